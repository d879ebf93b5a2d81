import { describe, expect, it } from 'vitest';
import type { Headline } from '../../bench/lib.js';
import {
  figureReference,
  figureValue,
  judge,
  type Row,
  recordedRows,
  TABLE_END,
  TABLE_START,
  withTable,
} from '../../bench/records.js';

const SHARE = 'POST /skills/:slug/runs ÷ INSERT tx/s, workers executing on NATS';
const record: Row = {
  what: SHARE,
  goal: '≥ 0.30',
  figure: '0.29 (4,077 vs 13,790/s, 64 conns; p99 29 ms; workers processes)',
  date: '2026-11-30, load 1.8',
  commit: 'e4bcf08',
};
const share = (value: number, accepted: number, reference: number): Headline => ({
  what: SHARE,
  goal: '≥ 0.30',
  value,
  better: 'higher',
  figure: `${value.toFixed(2)} (${accepted.toLocaleString('en')} vs ${reference.toLocaleString('en')}/s, 64 conns)`,
});

describe('the records table', () => {
  it("reads a figure's value and the ceiling it names", () => {
    expect(figureValue(record.figure)).toBe(0.29);
    expect(figureReference(record.figure)).toBe(13_790);
    expect(figureReference('0.48 (57,908 vs 119,366 req/s, 64 conns)')).toBe(119_366);
    expect(figureValue('6.8 ms (p50 3.9 ms)')).toBe(6.8);
    expect(figureReference('1096/s')).toBeNaN();
  });

  it('rewrites the table between its markers and reads back the same rows', () => {
    const doc = `# title\n\n${TABLE_START}\n| what | goal | figure | date | commit |\n|---|---|---|---|---|\n${TABLE_END}\n\nrest\n`;
    const written = withTable(doc, [record]);
    expect(recordedRows(written)).toEqual([record]);
    expect(written.startsWith('# title\n\n')).toBe(true);
    expect(written.endsWith(`${TABLE_END}\n\nrest\n`)).toBe(true);
    expect(() => recordedRows('no table')).toThrow(/no table/);
  });
});

describe('judging a headline against its record', () => {
  it('takes a better share measured against a comparable ceiling', () => {
    expect(judge(share(0.31, 9_300, 30_000), record, false)).toEqual({
      change: expect.closeTo(0.069, 2),
      worse: false,
      takes: true,
    });
    // Half the record's ceiling is still comparable.
    expect(judge(share(0.3, 2_069, 6_895), record, false).takes).toBe(true);
  });

  it("does not take a share whose ceiling is under half the record's, however high it reads", () => {
    const verdict = judge(share(0.53, 2_360, 4_464), record, false);
    expect(verdict.takes).toBe(false);
    expect(verdict.worse).toBe(false);
    expect(verdict.incomparable).toMatch(/4,464 is under 50% of the record's 13,790/);
    // Unless every figure is accepted as measured.
    expect(judge(share(0.53, 2_360, 4_464), record, true).takes).toBe(true);
  });

  it('still flags a share more than 10% worse, whatever its ceiling', () => {
    expect(judge(share(0.25, 1_000, 4_000), record, false)).toMatchObject({ worse: true, takes: false });
    expect(judge(share(0.27, 8_100, 30_000), record, false)).toMatchObject({ worse: false, takes: false });
  });

  it('judges latencies the other way, and a first figure takes its row', () => {
    const latency: Headline = { what: 'p99', goal: '< 50 ms', value: 7.6, better: 'lower', figure: '7.6 ms' };
    const recorded: Row = { ...record, what: 'p99', figure: '6.8 ms (p50 3.9 ms)' };
    expect(judge(latency, recorded, false)).toMatchObject({ worse: true, takes: false });
    expect(judge({ ...latency, value: 6.1, figure: '6.1 ms' }, recorded, false).takes).toBe(true);
    expect(judge(latency, undefined, false)).toMatchObject({ worse: false, takes: true });
  });
});

describe('a headline with an ideal', () => {
  const rss = (value: number): Headline => ({
    what: 'rss',
    goal: '≤ 1.10',
    value,
    better: 'lower',
    ideal: 1,
    figure: `${value.toFixed(2)} (166 → 169 MB)`,
  });
  const recorded: Row = { ...record, what: 'rss', figure: '1.01 (166 → 169 MB; peak 306 MB)' };

  it('is compared as its ideal when past it, on both sides', () => {
    // 0.95 is as good as 1.00: it takes the record (no worse) but moves nothing the next run is judged by.
    expect(judge(rss(0.95), recorded, false)).toMatchObject({
      change: expect.closeTo(-0.0099, 3),
      takes: true,
    });
    const taken: Row = { ...recorded, figure: '0.95 (196 → 186 MB; peak 334 MB)' };
    expect(judge(rss(1.04), taken, false)).toMatchObject({ change: expect.closeTo(0.04, 3), worse: false });
    expect(judge(rss(1.12), taken, false)).toMatchObject({ worse: true, takes: false });
  });
});
