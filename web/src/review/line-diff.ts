/**
 * A line diff of two texts, for the "your changes" step before an edited approval, and a word diff,
 * for an evaluation's pairs: the longest common subsequence of their lines or words (dynamic
 * programming over the pieces between the common head and tail).
 * Written here rather than taken from a package: it is one function of ~40 lines, and a new
 * dependency of the web bundle is checked by check:deps and the bundle budget for this alone. Texts
 * whose middles exceed `MAX_CELLS` line pairs are shown as all removed, then all added. Pure.
 */

/** One line (or word) of a diff: kept (` `), removed (`-`) or added (`+`). */
export interface DiffLine {
  op: ' ' | '-' | '+';
  text: string;
}

/** Line pairs the table may hold (beyond: removed-then-added). */
const MAX_CELLS = 4_000_000;

/** The lines of `after` against `before`, in order. */
export function lineDiff(before: string, after: string): DiffLine[] {
  return sequenceDiff(before.split('\n'), after.split('\n'));
}

/**
 * The words of `after` against `before`, in order (each piece a word or the whitespace after it, so
 * the pieces joined give the text back): what an evaluation's page marks between an approved output
 * and its replay.
 */
export function wordDiff(before: string, after: string): DiffLine[] {
  const words = (text: string) => text.match(/\S+\s*|\s+/g) ?? [];
  return sequenceDiff(words(before), words(after));
}

/** The pieces of `b` against `a`, in order. */
function sequenceDiff(a: string[], b: string[]): DiffLine[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const kept = (lines: string[]) => lines.map((text): DiffLine => ({ op: ' ', text }));
  const middle: DiffLine[] = [];
  if (x.length * y.length > MAX_CELLS) {
    middle.push(...x.map((text): DiffLine => ({ op: '-', text })));
    middle.push(...y.map((text): DiffLine => ({ op: '+', text })));
  } else {
    // lcs[i][j]: the common lines of x[i..] and y[j..].
    const width = y.length + 1;
    const lcs = new Uint32Array((x.length + 1) * width);
    for (let i = x.length - 1; i >= 0; i--) {
      for (let j = y.length - 1; j >= 0; j--) {
        lcs[i * width + j] =
          x[i] === y[j]
            ? (lcs[(i + 1) * width + j + 1] ?? 0) + 1
            : Math.max(lcs[(i + 1) * width + j] ?? 0, lcs[i * width + j + 1] ?? 0);
      }
    }
    let i = 0;
    let j = 0;
    while (i < x.length || j < y.length) {
      if (i < x.length && j < y.length && x[i] === y[j]) {
        middle.push({ op: ' ', text: x[i] as string });
        i++;
        j++;
      } else if (
        i < x.length &&
        (j === y.length || (lcs[(i + 1) * width + j] ?? 0) >= (lcs[i * width + j + 1] ?? 0))
      ) {
        // Removals before additions where either keeps as many lines.
        middle.push({ op: '-', text: x[i] as string });
        i++;
      } else {
        middle.push({ op: '+', text: y[j] as string });
        j++;
      }
    }
  }
  return [...kept(a.slice(0, head)), ...middle, ...kept(a.slice(a.length - tail))];
}

/** A value as the diff compares it: a string as itself, anything else as indented JSON. */
export function diffText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? 'null');
}
