import { describe, expect, it } from 'vitest';
import {
  createLocalEmbedder,
  LOCAL_EMBEDDER_NAME,
} from '../../../../src/features/objects/search/local-embedder.js';
import { dot } from '../../../../src/features/objects/search/vector-codec.js';

function norm(v: Float32Array): number {
  return Math.sqrt(dot(v, v));
}

describe('local embedder', () => {
  const embedder = createLocalEmbedder();

  it('has a name and the configured dimensions', async () => {
    expect(embedder.name).toBe(LOCAL_EMBEDDER_NAME);
    expect(embedder.dimensions).toBe(256);
    const small = createLocalEmbedder({ dimensions: 64 });
    const [vector] = await small.embed(['hello world']);
    expect(vector).toBeInstanceOf(Float32Array);
    expect(vector?.length).toBe(64);
  });

  it('is deterministic across calls and instances', async () => {
    const text = 'Renewal of the ACME contract, due in March';
    const [a] = await embedder.embed([text]);
    const b = createLocalEmbedder().embedSync(text);
    expect(a).toEqual(b);
    // Pinned so that a change to the vector space (which needs a new name) cannot go unnoticed.
    const nonZero = Array.from(b, (x, i) => [i, Math.round(x * 1e4)]).filter(([, x]) => x !== 0);
    expect(nonZero.slice(0, 6)).toEqual([
      [1, -918],
      [5, 918],
      [8, 918],
      [13, 1837],
      [14, -918],
      [17, 918],
    ]);
  });

  it('returns unit vectors, and the zero vector for texts without features', async () => {
    const vectors = await embedder.embed(['A short text', 'x'.repeat(500), 'Ünïcödé wörds and 数字 123']);
    for (const v of vectors) expect(norm(v)).toBeCloseTo(1, 5);
    const empty = await embedder.embed(['', '   ', 'the and of to', '!!! ???']);
    for (const v of empty) {
      expect(v.every((x) => x === 0)).toBe(true);
    }
  });

  it('returns one vector per text, in order', async () => {
    const texts = ['alpha', 'beta', 'alpha'];
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(3);
    expect(vectors[0]).toEqual(vectors[2]);
    expect(vectors[0]).not.toEqual(vectors[1]);
  });

  it('ignores case, punctuation and stop words', () => {
    expect(embedder.embedSync('Reset THE password!')).toEqual(embedder.embedSync('reset password'));
  });

  it.each([
    [
      'How do I reset my password?',
      'Steps to reset a forgotten password',
      'Quarterly revenue grew in Europe',
    ],
    ['Invoice for the March consulting services', 'March consulting invoice', 'The cat sat on the mat'],
    [
      'Meeting notes: onboarding new customers to the CRM',
      'notes from the customer onboarding meeting',
      'Kubernetes cluster upgrade failed',
    ],
    ['Les factures impayées du client', 'facture impayée client', 'le chat dort sur le canapé'],
  ])('scores a paraphrase above an unrelated text: %s', (query, paraphrase, unrelated) => {
    const q = embedder.embedSync(query);
    const close = dot(q, embedder.embedSync(paraphrase));
    const far = dot(q, embedder.embedSync(unrelated));
    expect(close).toBeGreaterThan(0.35);
    expect(Math.abs(far)).toBeLessThan(0.15);
    expect(close).toBeGreaterThan(far + 0.25);
  });

  it('relates word forms through character n-grams', () => {
    const q = embedder.embedSync('invoices');
    expect(dot(q, embedder.embedSync('invoice'))).toBeGreaterThan(0.3);
    expect(dot(q, embedder.embedSync('meeting'))).toBeLessThan(0.15);
  });

  it('ranks documents by relevance to a query', () => {
    const docs = [
      'Kubernetes upgrade guide for production clusters',
      'Password reset instructions for customer accounts',
      'Quarterly sales report for the European market',
      'How to change your account password',
    ];
    const q = embedder.embedSync('reset account password');
    const ranked = docs
      .map((d) => ({ d, s: dot(q, embedder.embedSync(d)) }))
      .sort((a, b) => b.s - a.s)
      .map((x) => x.d);
    expect(ranked.slice(0, 2).sort()).toEqual([docs[3], docs[1]].sort());
  });

  it('rejects invalid dimensions', () => {
    expect(() => createLocalEmbedder({ dimensions: 0 })).toThrow(RangeError);
    expect(() => createLocalEmbedder({ dimensions: 1.5 })).toThrow(RangeError);
  });

  it('embeds only the first maxChars characters', () => {
    const clipped = createLocalEmbedder({ maxChars: 10 });
    expect(clipped.embedSync('alpha beta gamma delta')).toEqual(clipped.embedSync('alpha beta'));
  });
});
