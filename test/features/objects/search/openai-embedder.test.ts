import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeOpenAI, fakeEmbedding, startFakeOpenAI } from '../../../../fakes/openai-server.js';
import {
  createOpenAIEmbedder,
  type OpenAIEmbedderOptions,
} from '../../../../src/features/objects/search/openai-embedder.js';
import { dot } from '../../../../src/features/objects/search/vector-codec.js';
import { providerFailure } from '../../../helpers/providers.js';

let server: FakeOpenAI;

function embedder(overrides: Partial<OpenAIEmbedderOptions> = {}) {
  return createOpenAIEmbedder({
    baseUrl: server.baseUrl,
    apiKey: 'sk-emb',
    model: 'text-embedding-test',
    dimensions: 8,
    ...overrides,
  });
}

function unit(values: number[]): number[] {
  const n = Math.sqrt(values.reduce((s, x) => s + x * x, 0));
  return values.map((x) => x / n);
}

beforeEach(async () => {
  server = await startFakeOpenAI({ apiKey: 'sk-emb' });
});

afterEach(async () => {
  await server.close();
});

describe('openai embedder', () => {
  it('posts model and inputs, orders answers by index, and normalises them', async () => {
    const e = embedder();
    expect(e.name).toBe('openai:text-embedding-test');
    expect(e.dimensions).toBe(8);
    const vectors = await e.embed(['first text', 'second']);
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.path).toBe('/v1/embeddings');
    expect(request?.headers.authorization).toBe('Bearer sk-emb');
    expect(request?.body).toEqual({
      model: 'text-embedding-test',
      input: ['first text', 'second'],
      encoding_format: 'float',
    });
    expect(vectors).toHaveLength(2);
    for (const [i, text] of ['first text', 'second'].entries()) {
      const expected = unit(fakeEmbedding(text, 8));
      expect(Array.from(vectors[i] ?? [])).toEqual(expected.map((x) => Math.fround(x)));
      expect(dot(vectors[i] ?? new Float32Array(8), vectors[i] ?? new Float32Array(8))).toBeCloseTo(1, 5);
    }
  });

  it('splits inputs into batches of batchSize, keeping order', async () => {
    const texts = Array.from({ length: 7 }, (_, i) => `text number ${i}`);
    const vectors = await embedder({ batchSize: 3 }).embed(texts);
    expect(server.requests.map((r) => (r.body as { input: string[] }).input)).toEqual([
      texts.slice(0, 3),
      texts.slice(3, 6),
      texts.slice(6),
    ]);
    expect(vectors.map((v) => Array.from(v))).toEqual(
      texts.map((t) => unit(fakeEmbedding(t, 8)).map((x) => Math.fround(x))),
    );
  });

  it('does not send blank texts and gives them the zero vector', async () => {
    const vectors = await embedder().embed(['', 'real', '  ']);
    expect((server.requests[0]!.body as { input: string[] }).input).toEqual(['real']);
    expect(Array.from(vectors[0] ?? [])).toEqual(new Array(8).fill(0));
    expect(Array.from(vectors[2] ?? [])).toEqual(new Array(8).fill(0));
    expect(dot(vectors[1] ?? new Float32Array(8), vectors[1] ?? new Float32Array(8))).toBeCloseTo(1, 5);
    await embedder().embed([]);
    await embedder().embed(['']);
    expect(server.requests).toHaveLength(1);
  });

  it('sends dimensions only when asked to', async () => {
    await embedder({ sendDimensions: true }).embed(['x']);
    expect((server.requests[0]!.body as { dimensions?: number }).dimensions).toBe(8);
  });

  it('retries 429 and 5xx per batch, honouring Retry-After', async () => {
    server.enqueue(
      { status: 429, headers: { 'retry-after-ms': '300' }, body: { error: { message: 'rate limited' } } },
      { status: 502, body: 'bad gateway' },
    );
    const vectors = await embedder({ batchSize: 2 }).embed(['a', 'b', 'c']);
    expect(vectors).toHaveLength(3);
    expect(server.requests).toHaveLength(4);
    const gaps = server.gaps();
    expect(gaps[0]).toBeGreaterThanOrEqual(290);
    // The retry's 502 waits the SDK's second backoff step (1 s less up to 25 % jitter).
    expect(gaps[1]).toBeGreaterThanOrEqual(740);
  });

  it('gives up after maxRetries with PROVIDER_ERROR', async () => {
    const failing = { status: 500, body: { error: { message: 'boom' } } };
    server.enqueue(failing, failing, failing);
    const error = await providerFailure(embedder({ maxRetries: 2 }).embed(['a']));
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.details).toMatchObject({ status: 500, attempts: 3 });
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a 400', async () => {
    server.enqueue({ status: 400, body: { error: { message: 'too many tokens' } } });
    const error = await providerFailure(embedder().embed(['a']));
    expect(error.details.status).toBe(400);
    expect(server.requests).toHaveLength(1);
  });

  it('times out a hanging request with PROVIDER_TIMEOUT', async () => {
    server.enqueue({ hang: true });
    const error = await providerFailure(embedder({ timeoutMs: 100 }).embed(['a']));
    expect(error.code).toBe('PROVIDER_TIMEOUT');
  });

  it('fails on a dimension mismatch or a missing embedding', async () => {
    const wrong = await providerFailure(embedder({ dimensions: 16 }).embed(['a']));
    expect(wrong.message).toContain('8 dimensions, configured 16');
    server.enqueue({ status: 200, body: { data: [{ index: 0, embedding: [1, 0, 0, 0, 0, 0, 0, 0] }] } });
    const missing = await providerFailure(embedder().embed(['a', 'b']));
    expect(missing.message).toContain('no embedding for input 1');
  });

  it('rejects bad settings', () => {
    expect(() => embedder({ batchSize: 0 })).toThrow(RangeError);
    expect(() => embedder({ dimensions: 0 })).toThrow(RangeError);
  });
});
