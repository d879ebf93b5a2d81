import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration, parseDurationList } from '../../../src/platform/util/duration.js';

describe('durations', () => {
  it('parse with a unit or as bare milliseconds, and refuse anything else', () => {
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('6h')).toBe(21_600_000);
    expect(parseDuration('42')).toBe(42);
    expect(parseDuration('1.5s')).toBeUndefined();
    expect(parseDuration('-1s')).toBeUndefined();
    expect(parseDurationList('1s, 30s,5m')).toEqual([1_000, 30_000, 300_000]);
    expect(parseDurationList('1s,,2s')).toBeUndefined();
  });

  it('format in the largest unit that divides them, and read back to the same value', () => {
    expect(formatDuration(86_400_000)).toBe('24h');
    expect(formatDuration(300_000)).toBe('5m');
    expect(formatDuration(90_000)).toBe('90s');
    expect(formatDuration(1_500)).toBe('1500ms');
    expect(formatDuration(0)).toBe('0ms');
    for (const ms of [0, 1, 999, 1_000, 61_000, 3_600_000, 5_400_000]) {
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    }
  });
});
