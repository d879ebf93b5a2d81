/**
 * `npm run bench:summary`: the benchmarks' headline rows, short (about 6 minutes in all), compared
 * with the best figures recorded in the table that opens docs/performance.md, which it then rewrites.
 *
 * Each benchmark runs in its own process with BENCH_JSON set and writes its headlines there
 * (lib.ts `reportHeadlines`: what, goal, value, which way is better, the figure as the table shows
 * it). A figure more than 10% worse than its record — a share or a rate 10% below it, a latency 10%
 * above — is flagged: the run exits 1 and that row keeps its record, so the next run compares with
 * it again, until the regression is fixed or explained and the new figure accepted with
 * `BENCH_ACCEPT=1` (which records every figure as measured). A row whose figure is as good as its
 * record or better takes it, with today's date, the load average it was measured at and the commit
 * (`+` when the tree had uncommitted changes); a worse one within the 10% leaves the record as it is,
 * so that small losses cannot lower it run by run. A share measured against a ceiling under half
 * its record's (a slower machine, where shares read high) does not take the record either
 * (records.ts `judge`).
 *
 * The machine is shared: figures of one run vary with what else runs (the load average says how
 * busy it was). Compare shares measured side by side (each bench measures its ceiling in the same
 * run) rather than rates across days, and run it again before acting on a single flag.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Headline, ROOT } from './lib.js';
import { figureValue, judge, recordedRows, TOLERANCE, withTable } from './records.js';

/** The headline rows: each bench with the settings that keep it short. */
const STEPS: ReadonlyArray<{ bench: string; env: Record<string, string> }> = [
  {
    bench: 'bench/http.ts',
    env: { BENCH_CONNECTIONS: '64', BENCH_PARTS: 'runs,limiter', BENCH_DURATION: '5' },
  },
  { bench: 'bench/runs.ts', env: { BENCH_PARTS: 'busy', BENCH_DURATION: '5' } },
  { bench: 'bench/missions.ts', env: { BENCH_MISSIONS: '200' } },
  { bench: 'bench/sandbox.ts', env: { BENCH_DURATION: '5', BENCH_HOSTILE: '100' } },
];

const DOC = path.join(ROOT, 'docs/performance.md');

/** Runs `bench` with `env` and BENCH_JSON; its headlines. */
async function runBench(bench: string, env: Record<string, string>, dir: string): Promise<Headline[]> {
  const file = path.join(dir, `${path.basename(bench, '.ts')}.json`);
  console.log(
    `\n=== ${bench} ${Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', bench], {
      cwd: ROOT,
      env: { ...process.env, ...env, BENCH_JSON: file },
      stdio: 'inherit',
    });
    child.on('exit', resolve);
  });
  if (code !== 0) console.log(`(${bench} exited with ${code})`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Headline[];
  } catch {
    return [];
  }
}

function git(args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
}

const started = performance.now();
const dir = mkdtempSync(path.join(os.tmpdir(), 'r3-bench-summary-'));
const headlines: Headline[] = [];
try {
  for (const step of STEPS) headlines.push(...(await runBench(step.bench, step.env, dir)));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const doc = readFileSync(DOC, 'utf8');
const recorded = recordedRows(doc);
const accept = process.env.BENCH_ACCEPT === '1';
const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== '';
const commit = `${git(['rev-parse', '--short', 'HEAD'])}${dirty ? '+' : ''}`;
const date = `${new Date().toISOString().slice(0, 10)}, load ${os.loadavg()[0]?.toFixed(1)}`;

const rows = new Map(recorded.map((row) => [row.what, row]));
const flagged: string[] = [];
console.log(`\nbench:summary — ${((performance.now() - started) / 1000).toFixed(0)} s, ${date}, ${commit}`);
console.log(`${'what'.padEnd(72)} ${'goal'.padEnd(18)} ${'record'.padStart(9)} ${'now'.padStart(9)}  change`);
for (const h of headlines) {
  const record = rows.get(h.what);
  const { change, worse, takes, incomparable } = judge(h, record, accept);
  if (worse) flagged.push(h.what);
  console.log(
    `${h.what.padEnd(72)} ${h.goal.padEnd(18)} ${(record ? String(figureValue(record.figure)) : '—').padStart(9)} ${figureValue(h.figure).toString().padStart(9)}  ${
      Number.isFinite(change) ? `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)}%` : 'new'
    }${worse ? `  ← more than ${TOLERANCE * 100}% worse than the record` : ''}${incomparable && !takes ? `  ← not recorded: ${incomparable}` : ''}`,
  );
  if (takes) rows.set(h.what, { what: h.what, goal: h.goal, figure: h.figure, date, commit });
}
writeFileSync(DOC, withTable(doc, [...rows.values()]));
console.log(
  `\ndocs/performance.md's table rewritten${accept ? '' : ' (rows that did not improve keep their record)'}.`,
);
if (flagged.length > 0 && !accept) {
  console.log(
    `${flagged.length} figure(s) more than ${TOLERANCE * 100}% worse than the record: fix them, or explain them and record the new figures with BENCH_ACCEPT=1.`,
  );
  process.exitCode = 1;
}
