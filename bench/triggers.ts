/**
 * `npm run bench:triggers`: workflow triggers on two `r3 serve` processes sharing one database.
 *
 * - Schedules: BENCH_SCHEDULES (20) workflows on a per-second cron (`* * * * * *`) fire for
 *   BENCH_DURATION (10) seconds. Reported: due times fired against due times passed (a job that
 *   comes due late fires only its last due time, by design), the lag from a due time to its run's
 *   creation (p50/p90/p99/max), and due times that started two runs (must be 0).
 * - object.created: BENCH_OBJECTS (2,000) instances are ingested through `POST /objects/:slug/instances`
 *   at BENCH_CONCURRENCY (16) connections, alternating between the two processes, into a type one
 *   workflow triggers on, then as many into a type nothing triggers on (the baseline). Reported:
 *   ingest requests/s of both (what the trigger costs the ingest), runs/s until every instance has
 *   its run, the lag from an instance's creation to its run's (p50/p90/p99/max), and instances with
 *   no run or two (must be 0).
 */
import pg from 'pg';
import { api, createBenchDatabase, createBenchToken, DURATION_S, percentiles, spawnR3 } from './lib.js';

const SCHEDULES = Number(process.env.BENCH_SCHEDULES ?? 20);
const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 2_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

const bench = await createBenchDatabase('triggers');
// A per-second cron fires every second: no floor, no cap (the defaults are 1 minute and 20 open items).
const env = { R3_RATE_LIMIT_PER_MIN: '0', R3_SCHEDULE_MIN_INTERVAL: '0s', R3_SCHEDULE_MAX_OPEN_REVIEWS: '0' };
const [a, b] = await Promise.all([spawnR3(bench.url, env), spawnR3(bench.url, env)]);
const bases = [a.url, b.url];
const db = new pg.Client({ connectionString: bench.url });
await db.connect();
const token = await createBenchToken(bench.url, ['read:all', 'write:resources', 'run:invoke', 'run:approve']);
const gate = [{ name: 'gate', type: 'approve' }];

/** Runs `task(i)` for i in [0, n) with at most `concurrency` in flight; resolves with the seconds taken. */
async function pool(n: number, concurrency: number, task: (i: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) await task(next++);
    }),
  );
  return (performance.now() - started) / 1000;
}

const ms = (n: number) => `${n.toFixed(0)} ms`;
const spread = (samples: number[]) => {
  const p = percentiles(samples);
  return `p50 ${ms(p.p50)}, p90 ${ms(p.p90)}, p99 ${ms(p.p99)}, max ${ms(p.max)}`;
};

try {
  // Schedules.
  const slugs = Array.from({ length: SCHEDULES }, (_, i) => `tick-${i}`);
  for (const slug of slugs) {
    await api(a.url, token, 'POST', '/api/v1/workflows', {
      slug,
      name: slug,
      trigger: { type: 'schedule', cron: '* * * * * *' },
      steps: gate,
    });
  }
  const from = Date.now();
  await new Promise((resolve) => setTimeout(resolve, DURATION_S * 1000));
  for (const slug of slugs) {
    await api(b.url, token, 'PATCH', `/api/v1/workflows/${slug}`, { trigger: { type: 'manual' } });
  }
  const until = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const fired = await db.query<{ slug: string; due: Date; created: Date }>(
    `select r.slug, (a.details -> 'trigger' ->> 'dueAt')::timestamptz as due, r.created_at as created
       from runs r join audit_log a on a.action = 'run.create' and a.target_id = r.id::text
      where r.slug like 'tick-%'`,
  );
  const perDue = new Map<string, number>();
  const span = new Map<string, { first: number; last: number }>();
  for (const row of fired.rows) {
    const key = `${row.slug}@${row.due.toISOString()}`;
    perDue.set(key, (perDue.get(key) ?? 0) + 1);
    const due = row.due.getTime();
    const seen = span.get(row.slug) ?? { first: due, last: due };
    span.set(row.slug, { first: Math.min(seen.first, due), last: Math.max(seen.last, due) });
  }
  // Due times between each workflow's first and last firing.
  const passed = [...span.values()].reduce((sum, s) => sum + (s.last - s.first) / 1000 + 1, 0);
  console.log(`\nschedules: ${SCHEDULES} per-second workflows for ${((until - from) / 1000).toFixed(1)} s`);
  console.log(`  due times fired ${perDue.size} of the ${passed} between each one's first and last firing`);
  console.log(
    `  due time → run created: ${spread(fired.rows.map((r) => r.created.getTime() - r.due.getTime()))}`,
  );
  console.log(`  due times with two runs: ${[...perDue.values()].filter((n) => n > 1).length}`);

  // object.created.
  for (const slug of ['ticket', 'note']) {
    await api(a.url, token, 'POST', '/api/v1/objects/types', { slug, name: slug });
  }
  await api(a.url, token, 'POST', '/api/v1/workflows', {
    slug: 'triage',
    name: 'Triage',
    trigger: { type: 'object.created', objectType: 'ticket' },
    steps: gate,
  });
  const ingest = (type: string) => (i: number) =>
    api(bases[i % 2] as string, token, 'POST', `/api/v1/objects/${type}/instances`, {
      title: `${type} ${i}`,
      metadata: { i },
      content: `Instance ${i} of ${type}.`,
    }).then(() => undefined);
  const baseline = await pool(OBJECTS, CONCURRENCY, ingest('note'));
  const started = performance.now();
  const triggered = await pool(OBJECTS, CONCURRENCY, ingest('ticket'));
  const count = async () =>
    Number((await db.query(`select count(*) as n from runs where slug = 'triage'`)).rows[0]?.n ?? 0);
  const deadline = Date.now() + 120_000;
  while ((await count()) < OBJECTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const allRuns = (performance.now() - started) / 1000;
  const lags = await db.query<{ lag: number; runs: number }>(
    `select extract(epoch from (min(r.created_at) - o.created_at)) * 1000 as lag, count(r.id)::int as runs
       from object_instances o
       left join runs r on r.slug = 'triage' and (r.input::jsonb -> 'object' ->> 'id')::bigint = o.id
      where o.type_slug = 'ticket' group by o.id, o.created_at`,
  );
  console.log(`\nobject.created: ${OBJECTS} instances at ${CONCURRENCY} connections over two processes`);
  console.log(`  ingest, no trigger on the type:  ${(OBJECTS / baseline).toFixed(0)} req/s`);
  console.log(`  ingest, one workflow triggered:  ${(OBJECTS / triggered).toFixed(0)} req/s`);
  console.log(
    `  every instance's run created after ${allRuns.toFixed(1)} s (${(OBJECTS / allRuns).toFixed(0)} runs/s)`,
  );
  console.log(
    `  instance created → run created: ${spread(lags.rows.filter((r) => r.runs > 0).map((r) => Number(r.lag)))}`,
  );
  console.log(
    `  instances without a run: ${lags.rows.filter((r) => r.runs === 0).length}, with two or more: ${lags.rows.filter((r) => r.runs > 1).length}`,
  );
} finally {
  await db.end();
  await Promise.all([a.stop(), b.stop()]);
  await bench.drop();
}
