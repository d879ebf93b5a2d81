/**
 * `npm run bench:ledger`: `r3 audit verify` over a big decision ledger (issue 39: 100,000 entries in
 * < 5 s). BENCH_LEDGER_ENTRIES (100,000) entries are inserted pending in one statement and chained
 * by the ledger itself (ReviewLedger.chain, the path every commit takes), then the CLI — a process of
 * its own, start-up included, as an auditor runs it — verifies the org's chain BENCH_RUNS (3) times:
 * wall time p50/max, and the verdict (must be ok with every entry counted).
 */
import { ReviewLedger } from '../src/features/reviews/ledger.js';
import { migrations } from '../src/migrations.js';
import { openDatabase } from '../src/platform/db/database.js';
import { createLogger } from '../src/platform/log.js';
import { createBenchDatabase, createBenchToken, percentiles, r3Cli } from './lib.js';

const ENTRIES = Number(process.env.BENCH_LEDGER_ENTRIES ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

const log = createLogger('warn', 2);
const bench = await createBenchDatabase('ledger');
const db = await openDatabase(bench.url, { poolSize: 4, log, migrations });
try {
  await createBenchToken(bench.url, undefined, 'audited');
  const org = await db.sql.one<{ id: number }>(`select id from orgs where slug = 'audited'`);
  await db.sql.query(
    `insert into review_ledger (org_id, at, kind, subject_id, event, by, details)
     select $1, now() - make_interval(secs => $2 - g), 'skill', 1 + g / 4,
            (array['opened', 'assigned', 'escalated', 'decided'])[1 + g % 4], 'token:bench',
            jsonb_build_object('title', 'Item ' || g / 4, 'status', 'pending', 'revision', null)
       from generate_series(1, $2) g`,
    [org.id, ENTRIES],
  );
  const chainStarted = performance.now();
  await new ReviewLedger(db.sql, log).chain(org.id);
  const chainMs = performance.now() - chainStarted;
  const times: number[] = [];
  let verdict = '';
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    verdict = await r3Cli(['audit', 'verify', '--org', 'audited', '--json'], { DATABASE_URL: bench.url });
    times.push(performance.now() - started);
  }
  const parsed = JSON.parse(verdict) as { ok: boolean; entries: number };
  if (!parsed.ok || parsed.entries !== ENTRIES) throw new Error(`verify said ${verdict}`);
  const { p50, max } = percentiles(times);
  console.log(
    `\nr3 audit verify over ${ENTRIES} ledger entries (CLI process, start-up included), ${RUNS} runs`,
  );
  console.log(`verify    p50 ${p50.toFixed(0)} ms   max ${max.toFixed(0)} ms   (goal < 5000 ms)`);
  console.log(`chaining  ${chainMs.toFixed(0)} ms (one ReviewLedger.chain of all of them)`);
} finally {
  await db.close();
  await bench.drop();
}
