/**
 * Durations as r3's configuration writes them: an integer with a `ms`, `s`, `m` or `h` suffix
 * (`250ms`, `30s`, `5m`, `6h`). A bare integer is milliseconds.
 */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const DURATION = /^(\d+)(ms|s|m|h)?$/;

/** Parses one duration to milliseconds, or returns `undefined` when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * (UNIT_MS[match[2] ?? 'ms'] ?? 1);
}

/** Parses a comma-separated list of durations (`1s,30s,5m`), or `undefined` when any entry is bad. */
export function parseDurationList(text: string): number[] | undefined {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => p === '')) return undefined;
  const out: number[] = [];
  for (const part of parts) {
    const ms = parseDuration(part);
    if (ms === undefined) return undefined;
    out.push(ms);
  }
  return out;
}

/** Writes milliseconds as a duration `parseDuration` reads, in the largest unit that divides it (`30s`, `6h`). */
export function formatDuration(ms: number): string {
  for (const unit of ['h', 'm', 's'] as const) {
    const size = UNIT_MS[unit] as number;
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
