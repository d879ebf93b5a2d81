/**
 * The embedding extension point of hybrid search: turns texts into vectors whose dot product
 * measures similarity.
 *
 * Terminology:
 * - embedder: a named backend (`local-hash-v1`, `openai:<model>`) producing `dimensions`-long vectors.
 * - vector: a `Float32Array` of unit length (L2-normalised), so dot product = cosine similarity;
 *   a text with no features (empty, only stop words) yields the zero vector.
 * - embedder name: identifies the vector space. Vectors of different names (or dimensions) are not
 *   comparable, so the index stores the name with each vector and a change means re-embedding.
 */

/** Options of one `embed` call. */
export interface EmbedOptions {
  /** Cancels the call; it then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** A text-embedding backend. Implementations are safe to share across concurrent callers. */
export interface Embedder {
  /** Identifies the vector space (model and version), e.g. `local-hash-v1` or `openai:text-embedding-3-small`. */
  readonly name: string;
  /** Length of every vector this embedder returns. */
  readonly dimensions: number;
  /**
   * One unit-length vector per text, in input order. Remote embedders reject with `ProviderError`
   * (`PROVIDER_ERROR`, `PROVIDER_TIMEOUT`) from `src/platform/models/model-provider.ts`.
   */
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
}

/** Scales `vector` in place to unit length; the zero vector stays zero. Returns `vector`. */
export function normalizeInPlace(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i] ?? 0;
    sum += x * x;
  }
  if (sum === 0) return vector;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] ?? 0) * inv;
  return vector;
}
