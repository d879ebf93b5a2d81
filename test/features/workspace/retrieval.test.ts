import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRIEVAL,
  fusedScore,
  RRF_K,
  resolveRetrieval,
} from '../../../src/features/workspace/retrieval.js';

describe('retrieval overrides', () => {
  it('fall back to the defaults field by field', () => {
    expect(resolveRetrieval(undefined)).toEqual(DEFAULT_RETRIEVAL);
    expect(resolveRetrieval({ weight: 2, maxAgeDays: 30 })).toEqual({
      ...DEFAULT_RETRIEVAL,
      weight: 2,
      maxAgeDays: 30,
    });
  });

  it('weight the fused score per source and per channel', () => {
    const both = { ftsRank: 1, vectorRank: 3 };
    const plain = fusedScore(both, DEFAULT_RETRIEVAL);
    expect(plain).toBeCloseTo(1 / (RRF_K + 1) + 1 / (RRF_K + 3));
    expect(fusedScore(both, resolveRetrieval({ weight: 2 }))).toBeCloseTo(2 * plain);
    expect(fusedScore(both, resolveRetrieval({ ftsWeight: 0 }))).toBeCloseTo(1 / (RRF_K + 3));
    expect(fusedScore({ ftsRank: 1 }, resolveRetrieval({ vectorWeight: 5 }))).toBeCloseTo(1 / (RRF_K + 1));
    expect(fusedScore(both, DEFAULT_RETRIEVAL, { relevance: 0.5 })).toBeCloseTo(plain / 2);
  });

  it('drop documents past maxAgeDays and decay by the half-life', () => {
    const settings = resolveRetrieval({ maxAgeDays: 10, recencyHalfLifeDays: 5 });
    const fresh = fusedScore({ ftsRank: 1, ageDays: 0 }, settings);
    expect(fusedScore({ ftsRank: 1, ageDays: 5 }, settings)).toBeCloseTo(fresh / 2);
    expect(fusedScore({ ftsRank: 1, ageDays: 11 }, settings)).toBe(0);
    expect(fusedScore({ ftsRank: 1 }, resolveRetrieval({ weight: 0 }))).toBe(0);
  });
});
