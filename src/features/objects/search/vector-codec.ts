/**
 * Compact storage of embedding vectors in PostgreSQL without pgvector.
 *
 * Design:
 * - A vector lives in a `bytea` column as int8 codes plus one scale (`encodeVector`): for D = 256,
 *   261 bytes instead of 1,024 as float32. Layout: byte 0 = format version (1), bytes 1–4 = the
 *   scale as float32 little-endian, then D signed bytes. Component i decodes to `code[i] · scale`,
 *   where `scale = max|x| / 127`, so each component is off by at most `scale / 2`.
 * - PostgreSQL does not rank by vector. Similarity is computed in the application over a bounded
 *   candidate set: the full-text hits ∪ the top N of a cheap prefilter, both tenant-scoped. The
 *   prefilter can be a sign-bit signature (`encodeSignature`, D bits) in a `bit(D)` column, ranked in
 *   SQL by `bit_count(signature # $1::bit(D))` (Hamming distance, PostgreSQL 14+) — a sequential
 *   scan over the tenant's rows, but one XOR and popcount per row instead of a float dot product.
 *   The candidates' codes are then scored exactly enough with `dot` and fused with the full-text
 *   ranking (`rrf.ts`).
 * - Where the pgvector extension exists, the column can be swapped for `vector(D)` with an HNSW index
 *   and the prefilter becomes `ORDER BY embedding <#> $1 LIMIT N`; the candidate-set code path stays.
 * - Vectors of different embedders are not comparable: store the embedder name beside the codes
 *   and re-embed when it changes (see `embedder.ts`).
 */

/** An int8-quantised vector: component i is `values[i] · scale`. */
export interface QuantizedVector {
  readonly scale: number;
  readonly values: Int8Array;
}

/** Either representation accepted by `dot`. */
export type VectorLike = Float32Array | QuantizedVector;

/** Current `bytea` format version (byte 0). */
export const VECTOR_FORMAT_VERSION = 1;
const HEADER_BYTES = 5;

/** Bytes `encodeVector` produces for a vector of `dimensions` components. */
export function encodedByteLength(dimensions: number): number {
  return HEADER_BYTES + dimensions;
}

/** Quantises `vector` to int8 codes with one symmetric scale. Non-finite components are rejected. */
export function quantize(vector: Float32Array): QuantizedVector {
  let maxAbs = 0;
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i] ?? 0;
    if (!Number.isFinite(x)) throw new RangeError(`vector component ${i} is not finite`);
    const abs = Math.abs(x);
    if (abs > maxAbs) maxAbs = abs;
  }
  const values = new Int8Array(vector.length);
  // Rounded through float32 because that is what is stored; the codes are computed against it.
  const scale = Math.fround(maxAbs / 127);
  if (scale === 0) return { scale: 0, values };
  for (let i = 0; i < vector.length; i++) {
    const code = Math.round((vector[i] ?? 0) / scale);
    values[i] = Math.min(127, Math.max(-127, code));
  }
  return { scale, values };
}

/** The float vector a quantised one stands for. */
export function dequantize(vector: QuantizedVector): Float32Array {
  const out = new Float32Array(vector.values.length);
  for (let i = 0; i < out.length; i++) out[i] = (vector.values[i] ?? 0) * vector.scale;
  return out;
}

/** Encodes `vector` for a `bytea` column (format described at the top of this file). */
export function encodeVector(vector: Float32Array): Buffer {
  const { scale, values } = quantize(vector);
  const out = Buffer.allocUnsafe(HEADER_BYTES + values.length);
  out.writeUInt8(VECTOR_FORMAT_VERSION, 0);
  out.writeFloatLE(scale, 1);
  out.set(new Uint8Array(values.buffer, values.byteOffset, values.length), HEADER_BYTES);
  return out;
}

/**
 * Decodes a `bytea` value from `encodeVector`. The codes are a view on `bytes` (no copy): do not
 * mutate `bytes` while the result is in use. Throws `RangeError` on an unknown format or a
 * dimension mismatch when `dimensions` is given.
 */
export function decodeVector(bytes: Uint8Array, dimensions?: number): QuantizedVector {
  if (bytes.length < HEADER_BYTES || bytes[0] !== VECTOR_FORMAT_VERSION) {
    throw new RangeError(`not an encoded vector (format ${bytes[0] ?? 'none'}, ${bytes.length} bytes)`);
  }
  const length = bytes.length - HEADER_BYTES;
  if (dimensions !== undefined && length !== dimensions) {
    throw new RangeError(`encoded vector has ${length} dimensions, expected ${dimensions}`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const scale = view.getFloat32(1, true);
  return { scale, values: new Int8Array(bytes.buffer, bytes.byteOffset + HEADER_BYTES, length) };
}

function lengthOf(vector: VectorLike): number {
  return vector instanceof Float32Array ? vector.length : vector.values.length;
}

/**
 * Dot product of two vectors in either representation (cosine similarity for unit vectors).
 * Two quantised vectors multiply their integer codes and scale once, which is the fast path for
 * scoring stored candidates against each other; a query is usually kept as `Float32Array`.
 */
export function dot(a: VectorLike, b: VectorLike): number {
  const n = lengthOf(a);
  if (n !== lengthOf(b)) throw new RangeError(`dimension mismatch: ${n} vs ${lengthOf(b)}`);
  let sum = 0;
  if (a instanceof Float32Array) {
    if (b instanceof Float32Array) {
      for (let i = 0; i < n; i++) sum += (a[i] ?? 0) * (b[i] ?? 0);
      return sum;
    }
    for (let i = 0; i < n; i++) sum += (a[i] ?? 0) * (b.values[i] ?? 0);
    return sum * b.scale;
  }
  if (b instanceof Float32Array) return dot(b, a);
  for (let i = 0; i < n; i++) sum += (a.values[i] ?? 0) * (b.values[i] ?? 0);
  return sum * a.scale * b.scale;
}

/**
 * Sign-bit signature of a vector: bit i (most significant bit first, as PostgreSQL's `bit(D)` reads
 * it) is 1 when component i is positive. Hamming distance between signatures approximates angular
 * distance, which makes it a cheap prefilter.
 */
export function encodeSignature(vector: VectorLike): Buffer {
  const n = lengthOf(vector);
  const out = Buffer.alloc(Math.ceil(n / 8));
  for (let i = 0; i < n; i++) {
    const x = vector instanceof Float32Array ? (vector[i] ?? 0) : (vector.values[i] ?? 0);
    if (x > 0) out[i >> 3] = (out[i >> 3] ?? 0) | (0x80 >> (i & 7));
  }
  return out;
}

/** The signature as a `'0101…'` string of `bits` characters, the text form of PostgreSQL's `bit(D)`. */
export function signatureToBitString(signature: Uint8Array, bits: number = signature.length * 8): string {
  let out = '';
  for (let i = 0; i < bits; i++) out += ((signature[i >> 3] ?? 0) & (0x80 >> (i & 7))) !== 0 ? '1' : '0';
  return out;
}

/** Number of differing bits between two signatures of equal length. */
export function hamming(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) throw new RangeError(`signature length mismatch: ${a.length} vs ${b.length}`);
  let count = 0;
  for (let i = 0; i < a.length; i++) {
    let x = ((a[i] ?? 0) ^ (b[i] ?? 0)) & 0xff;
    while (x !== 0) {
      x &= x - 1;
      count++;
    }
  }
  return count;
}
