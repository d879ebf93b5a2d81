/** Percentiles of benchmark samples, for every bench (lib.ts re-exports them; loadgen.ts uses them too). */

/** The sample at quantile `q` (0–1) of `sorted` (ascending): the nearest rank at or below; 0 when empty. */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

/** Latency percentiles (ms) of a list of samples. */
export function percentiles(samples: readonly number[]): {
  p50: number;
  p90: number;
  p99: number;
  max: number;
} {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? 0,
  };
}
