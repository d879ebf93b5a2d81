import { describe, expect, it } from 'vitest';
import { fuse } from '../../../../src/features/objects/search/rrf.js';

const items = (...ids: string[]) => ids.map((id, i) => ({ id, score: ids.length - i }));

describe('fuse', () => {
  it('sums 1/(k + rank) over rankings and sorts best first', () => {
    const out = fuse([
      { name: 'fulltext', items: items('a', 'b', 'c') },
      { name: 'vector', items: items('c', 'a', 'd') },
    ]);
    expect(out.map((x) => x.id)).toEqual(['a', 'c', 'b', 'd']);
    expect(out[0]).toEqual({ id: 'a', score: 1 / 61 + 1 / 62, ranks: { fulltext: 1, vector: 2 } });
    expect(out[2]).toEqual({ id: 'b', score: 1 / 62, ranks: { fulltext: 2 } });
    expect(out[3]?.ranks).toEqual({ vector: 3 });
  });

  it('ranks by score, not by input order, and gives equal scores equal ranks', () => {
    const out = fuse([
      {
        name: 'r',
        items: [
          { id: 'low', score: 0.1 },
          { id: 'tieB', score: 0.5 },
          { id: 'top', score: 0.9 },
          { id: 'tieA', score: 0.5 },
        ],
      },
    ]);
    expect(out.map((x) => [x.id, x.ranks.r])).toEqual([
      ['top', 1],
      ['tieA', 2],
      ['tieB', 2],
      ['low', 4],
    ]);
  });

  it('breaks fused-score ties by id, numbers numerically', () => {
    expect(
      fuse([
        { name: 'a', items: [{ id: 'y', score: 1 }] },
        { name: 'b', items: [{ id: 'x', score: 1 }] },
      ]).map((x) => x.id),
    ).toEqual(['x', 'y']);
    const numeric = fuse<number>([
      { name: 'a', items: [{ id: 10, score: 1 }] },
      { name: 'b', items: [{ id: 9, score: 1 }] },
    ]);
    expect(numeric.map((x) => x.id)).toEqual([9, 10]);
  });

  it('applies ranking weights', () => {
    const rankings = [
      { name: 'fulltext', items: items('a', 'b') },
      { name: 'vector', items: items('b', 'a') },
    ];
    expect(
      fuse(rankings.map((r) => ({ ...r, weight: r.name === 'vector' ? 2 : 1 }))).map((x) => x.id),
    ).toEqual(['b', 'a']);
    expect(
      fuse(rankings.map((r) => ({ ...r, weight: r.name === 'fulltext' ? 2 : 1 }))).map((x) => x.id),
    ).toEqual(['a', 'b']);
    const zero = fuse([{ name: 'x', weight: 0, items: items('a') }]);
    expect(zero).toEqual([{ id: 'a', score: 0, ranks: { x: 1 } }]);
  });

  it('applies per-item multipliers after fusion', () => {
    const rankings = [
      { name: 'fulltext', items: items('crm-1', 'mail-1', 'mail-2') },
      { name: 'vector', items: items('crm-1', 'mail-1', 'mail-2') },
    ];
    const relevance: Record<string, number> = { crm: 0.2, mail: 1.5 };
    const out = fuse(rankings, { multiplier: (id) => relevance[id.split('-')[0] ?? ''] ?? 1 });
    expect(out.map((x) => x.id)).toEqual(['mail-1', 'mail-2', 'crm-1']);
    expect(out[2]?.score).toBeCloseTo((2 / 61) * 0.2, 12);
    expect(out[0]?.ranks).toEqual({ fulltext: 2, vector: 2 });
  });

  it('uses k: a small k lets the head of one ranking dominate', () => {
    const rankings = [
      { name: 'a', items: items('x', 'y', 'z') },
      { name: 'b', items: items('z', 'w', 'y') },
    ];
    // k = 0: x = 1, y = 1/2 + 1/3; k = 60: x = 1/61 < y = 1/62 + 1/63.
    expect(fuse(rankings, { k: 0 }).map((x) => x.id)).toEqual(['z', 'x', 'y', 'w']);
    expect(fuse(rankings).map((x) => x.id)).toEqual(['z', 'y', 'x', 'w']);
    expect(fuse(rankings, { k: 0 })[0]?.score).toBeCloseTo(1 / 3 + 1, 12);
  });

  it('keeps the best occurrence of a repeated id, ranks NaN last, and limits', () => {
    const out = fuse([
      {
        name: 'r',
        items: [
          { id: 'a', score: 1 },
          { id: 'a', score: 5 },
          { id: 'n', score: Number.NaN },
          { id: 'b', score: 3 },
        ],
      },
    ]);
    expect(out.map((x) => [x.id, x.ranks.r])).toEqual([
      ['a', 1],
      ['b', 2],
      ['n', 4],
    ]);
    expect(fuse([{ name: 'r', items: items('a', 'b', 'c') }], { limit: 2 }).map((x) => x.id)).toEqual([
      'a',
      'b',
    ]);
    expect(fuse([])).toEqual([]);
  });

  it('rejects duplicate names and negative or non-finite factors', () => {
    expect(() =>
      fuse([
        { name: 'a', items: [] },
        { name: 'a', items: [] },
      ]),
    ).toThrow(/duplicate/);
    expect(() => fuse([{ name: 'a', weight: -1, items: [] }])).toThrow(RangeError);
    expect(() => fuse([{ name: 'a', items: items('x') }], { multiplier: () => Number.NaN })).toThrow(
      RangeError,
    );
    expect(() => fuse([], { k: -1 })).toThrow(RangeError);
  });
});
