/**
 * The records table that opens docs/performance.md, as `npm run bench:summary` reads, judges and
 * rewrites it: one row per headline (what, goal, figure, date, commit), the figure's first number the
 * value compared.
 *
 * A share is of a ceiling measured in the same run (bare uWS, raw INSERT transactions), and its
 * figure names that ceiling (`… vs 13,790/s …`). A share measured against a ceiling less than half
 * the record's does not take the record, however high it reads: on a slower machine the ceiling falls
 * further than r3 does (the slow VMs' INSERT baseline at 3.4–8.5 thousand tx/s against the record's
 * 13.8 thousand: each of its 64 one-row transactions pays the machine's cost alone, where r3's
 * batched statements pay it once per eight or more runs), so the share reads high — 0.42–0.62 for
 * the same code that read 0.20–0.31 on a fast VM (docs/performance.md, "Why the slow VMs' share reads
 * high"). It is still flagged when worse than the record: reading low even there is a loss.
 *
 * A headline with an `ideal` (the RSS ratio's 1) is compared as that ideal when past it, on both
 * sides: 0.95 after a hostile flood is not a better footprint than 1.00, only a higher level before.
 */
import type { Headline } from './lib.js';

export const TABLE_START = '<!-- bench:summary (npm run bench:summary rewrites this table) -->';
export const TABLE_END = '<!-- /bench:summary -->';
/** How much worse than its record a figure may be before it is flagged. */
export const TOLERANCE = 0.1;
/** A share's ceiling below this fraction of its record's: the share is not comparable with it. */
export const MIN_REFERENCE_RATIO = 0.5;

export interface Row {
  what: string;
  goal: string;
  figure: string;
  date: string;
  commit: string;
}

/** The figure's compared value: its first number. */
export function figureValue(figure: string): number {
  return Number(/-?\d[\d,]*(\.\d+)?/.exec(figure)?.[0]?.replaceAll(',', '') ?? Number.NaN);
}

/** The ceiling a share's figure names (`vs 13,790/s`, `vs 119,366 req/s`); NaN where it names none. */
export function figureReference(figure: string): number {
  return Number(/\bvs ([\d,]+(\.\d+)?)/.exec(figure)?.[1]?.replaceAll(',', '') ?? Number.NaN);
}

/** The rows of the table between TABLE_START and TABLE_END in `doc`. */
export function recordedRows(doc: string): Row[] {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start)
    throw new Error(`docs/performance.md has no table between ${TABLE_START} and ${TABLE_END}`);
  return doc
    .slice(start + TABLE_START.length, end)
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|\s*(what|-)/.test(line))
    .map((line) => {
      const [what = '', goal = '', figure = '', date = '', commit = ''] = line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim());
      return { what, goal, figure, date, commit };
    });
}

/** `doc` with its table replaced by `rows`. */
export function withTable(doc: string, rows: readonly Row[]): string {
  const lines = [
    '| what | goal | figure | date | commit |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.what} | ${r.goal} | ${r.figure} | ${r.date} | ${r.commit} |`),
  ];
  return `${doc.slice(0, doc.indexOf(TABLE_START))}${TABLE_START}\n${lines.join('\n')}\n${TABLE_END}${doc.slice(doc.indexOf(TABLE_END) + TABLE_END.length)}`;
}

export interface Verdict {
  /** The change against the record (a fraction; NaN without a record). */
  change: number;
  /** More than TOLERANCE worse than the record. */
  worse: boolean;
  /** Whether the headline replaces the record. */
  takes: boolean;
  /** Why a figure as good as its record does not take it (its ceiling is far below the record's). */
  incomparable?: string;
}

/**
 * How `headline` compares with `record`: the best figure yet takes the record (a worse one, even
 * within the tolerance, never does: small losses would add up unseen), unless `accept` (every figure
 * recorded as measured) — and a share whose ceiling is less than half its record's never does
 * without `accept`.
 */
export function judge(headline: Headline, record: Row | undefined, accept: boolean): Verdict {
  const { ideal } = headline;
  const compared = (value: number) =>
    ideal === undefined
      ? value
      : headline.better === 'lower'
        ? Math.max(value, ideal)
        : Math.min(value, ideal);
  const before = record ? compared(figureValue(record.figure)) : Number.NaN;
  const change = (compared(headline.value) - before) / before;
  const worse = headline.better === 'higher' ? change < -TOLERANCE : change > TOLERANCE;
  const better = !record || (headline.better === 'higher' ? change >= 0 : change <= 0);
  const theirs = record ? figureReference(record.figure) : Number.NaN;
  const ours = figureReference(headline.figure);
  const incomparable =
    better && record && ours < theirs * MIN_REFERENCE_RATIO
      ? `its ceiling ${ours.toLocaleString('en')} is under ${MIN_REFERENCE_RATIO * 100}% of the record's ${theirs.toLocaleString('en')}: a slower machine's share reads high`
      : undefined;
  return {
    change,
    worse,
    takes: accept || (better && incomparable === undefined),
    ...(incomparable ? { incomparable } : {}),
  };
}
