import { describe, expect, it } from 'vitest';
import { createLocalEmbedder } from '../../../../src/features/objects/search/local-embedder.js';
import {
  decodeVector,
  dequantize,
  dot,
  encodedByteLength,
  encodeSignature,
  encodeVector,
  hamming,
  quantize,
  signatureToBitString,
} from '../../../../src/features/objects/search/vector-codec.js';

function randomUnitVector(dimensions: number, seed: number): Float32Array {
  let state = seed;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32 - 0.5;
  };
  const v = Float32Array.from({ length: dimensions }, next);
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return v.map((x) => x / n);
}

describe('vector codec', () => {
  it('round-trips within half a quantisation step per component', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const v = randomUnitVector(256, seed);
      const bytes = encodeVector(v);
      expect(bytes.length).toBe(encodedByteLength(256));
      const q = decodeVector(bytes, 256);
      const maxAbs = Math.max(...Array.from(v, Math.abs));
      expect(q.scale).toBeCloseTo(maxAbs / 127, 6);
      const back = dequantize(q);
      for (let i = 0; i < v.length; i++) {
        expect(Math.abs((back[i] ?? 0) - (v[i] ?? 0))).toBeLessThanOrEqual(q.scale / 2 + 1e-7);
      }
      expect(dot(v, back)).toBeGreaterThan(0.999);
    }
  });

  it('keeps dot products within the error bound in every representation', () => {
    const a = randomUnitVector(256, 7);
    const b = randomUnitVector(256, 8);
    const qa = decodeVector(encodeVector(a));
    const qb = decodeVector(encodeVector(b));
    const exact = dot(a, b);
    // |a·b − â·b̂| ≤ ‖a − â‖ + ‖b − b̂‖ + ‖a − â‖·‖b − b̂‖, each ‖·‖ ≤ √D · scale / 2.
    const ea = Math.sqrt(256) * (qa.scale / 2);
    const eb = Math.sqrt(256) * (qb.scale / 2);
    const bound = ea + eb + ea * eb;
    expect(Math.abs(dot(a, qb) - exact)).toBeLessThanOrEqual(eb + 1e-6);
    expect(Math.abs(dot(qa, b) - exact)).toBeLessThanOrEqual(ea + 1e-6);
    expect(Math.abs(dot(qa, qb) - exact)).toBeLessThanOrEqual(bound);
    expect(Math.abs(dot(qa, qb) - exact)).toBeLessThan(0.01);
    expect(dot(qa, qb)).toBeCloseTo(dot(dequantize(qa), dequantize(qb)), 5);
  });

  it('keeps the local embedder ranking after quantisation', () => {
    const embedder = createLocalEmbedder();
    const q = embedder.embedSync('reset account password');
    const docs = [
      'How to change your account password',
      'Password reset for customers',
      'Quarterly sales in Europe',
    ];
    const exact = docs.map((d) => dot(q, embedder.embedSync(d)));
    const stored = docs.map((d) => dot(q, decodeVector(encodeVector(embedder.embedSync(d)))));
    const order = (xs: number[]) =>
      xs
        .map((x, i) => [x, i] as const)
        .sort((x, y) => y[0] - x[0])
        .map(([, i]) => i);
    expect(order(stored)).toEqual(order(exact));
  });

  it('encodes the zero vector and decodes from an offset view of a larger buffer', () => {
    const zero = decodeVector(encodeVector(new Float32Array(8)));
    expect(zero.scale).toBe(0);
    expect(Array.from(dequantize(zero))).toEqual(new Array(8).fill(0));

    const v = randomUnitVector(16, 3);
    const framed = Buffer.concat([Buffer.from([9, 9, 9]), encodeVector(v)]);
    const q = decodeVector(framed.subarray(3));
    expect(dot(v, q)).toBeGreaterThan(0.999);
  });

  it('rejects unknown formats, wrong dimensions, non-finite values and mismatched dot operands', () => {
    expect(() => decodeVector(Buffer.from([2, 0, 0, 0, 0, 1]))).toThrow(RangeError);
    expect(() => decodeVector(Buffer.from([1, 0]))).toThrow(RangeError);
    expect(() => decodeVector(encodeVector(new Float32Array(4)), 8)).toThrow(/expected 8/);
    expect(() => quantize(Float32Array.from([1, Number.NaN]))).toThrow(RangeError);
    expect(() => dot(new Float32Array(3), new Float32Array(4))).toThrow(RangeError);
  });
});

describe('sign signatures', () => {
  it('sets one bit per positive component, most significant first', () => {
    const sig = encodeSignature(Float32Array.from([1, -1, 0, 2, -3, 4, 5, -6, 7, 0]));
    expect(sig.length).toBe(2);
    expect(signatureToBitString(sig, 10)).toBe('1001011010');
  });

  it('agrees between float and quantised vectors and tracks angular distance', () => {
    const a = randomUnitVector(256, 11);
    const near = a.map((x, i) => x + (i % 7 === 0 ? 0.05 : 0));
    const far = randomUnitVector(256, 12);
    // Components that quantise to 0 may flip from 1 to 0; no other bit may differ.
    const qa = decodeVector(encodeVector(a));
    const zeroCodes = qa.values.filter((c) => c === 0).length;
    expect(hamming(encodeSignature(a), encodeSignature(qa))).toBeLessThanOrEqual(zeroCodes);
    const sa = encodeSignature(a);
    expect(hamming(sa, sa)).toBe(0);
    expect(hamming(sa, encodeSignature(near))).toBeLessThan(hamming(sa, encodeSignature(far)));
    expect(hamming(Buffer.from([0xff]), Buffer.from([0x0f]))).toBe(4);
    expect(() => hamming(Buffer.alloc(1), Buffer.alloc(2))).toThrow(RangeError);
  });
});
