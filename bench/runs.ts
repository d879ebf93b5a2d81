/**
 * `npm run bench:runs`: skill runs end to end on the echo provider.
 *
 * 1. Baseline, measured in the same run: single-row INSERT transactions per second (autocommit) on
 *    the same PostgreSQL, from this process, at 16 and 64 connections.
 * 2. Accepted runs per second: `POST /skills/:slug/runs` at 16 and 64 connections against an r3 with
 *    no workers (R3_WORKER_CONCURRENCY=0), so the figure is the API's alone; with the in-process bus
 *    (no configuration) and, at 64 connections when NATS answers, with NATS JetStream (what a
 *    deployment of more than one process runs: the relay publishes every event to the server and
 *    waits for its ack).
 * 3. End to end: against a second r3 (own database) whose workers execute the runs while the load
 *    runs: runs completed per second, and POST→completed latency p50/p99, taken from each run's
 *    `created_at` and `completed_at` (both written by r3's clock; `created_at` is stamped in the
 *    trigger's transaction, so the HTTP parse before it — well under a millisecond — is not counted).
 *
 * Every baseline and accept row starts with a CHECKPOINT (see `checkpoint`): an accepted run writes
 * about 4 kB of WAL, the baseline rows about 100 MB in all, and without it a checkpoint started by
 * an earlier row's WAL often fell into the 64-connection accept row.
 */
import pg from 'pg';
import {
  BENCH_NATS_URL,
  type BenchDatabase,
  benchBusPrefix,
  type Child,
  checkpoint,
  createBenchDatabase,
  createBenchSkill,
  createBenchToken,
  DURATION_S,
  type LoadResult,
  load,
  natsAnswers,
  percentiles,
  printTable,
  spawnR3,
  unlimitOrg,
} from './lib.js';

const CONNECTIONS = [16, 64];
/** The label of the in-process accept rows (the goals are read from them). */
const ACCEPT_LABEL = 'r3 POST /skills/:slug/runs (accept)';
const BODY = JSON.stringify({ input: { text: 'benchmark input' } });

/**
 * Closed-loop single-row INSERTs from `connections` clients: autocommit (each INSERT its own
 * transaction, the goal's baseline), or wrapped in BEGIN/COMMIT (shown for reference).
 */
async function baseline(url: string, connections: number, explicit = false): Promise<LoadResult> {
  const pool = new pg.Pool({ connectionString: url, max: connections });
  await pool.query(
    'create table if not exists bench_baseline (id bigserial primary key, org_id bigint, payload jsonb, created_at timestamptz)',
  );
  const latencies: number[] = [];
  const end = performance.now() + DURATION_S * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      const client = await pool.connect();
      try {
        while (performance.now() < end) {
          const t0 = performance.now();
          if (explicit) await client.query('begin');
          await client.query({
            name: 'baseline_insert',
            text: 'insert into bench_baseline (org_id, payload, created_at) values ($1, $2, $3)',
            values: [1, '{"input":{"text":"benchmark input"}}', new Date()],
          });
          if (explicit) await client.query('commit');
          latencies.push(performance.now() - t0);
        }
      } finally {
        client.release();
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  await pool.end();
  const p = percentiles(latencies);
  return {
    label: explicit ? 'ref: BEGIN;INSERT;COMMIT (pg)' : 'baseline: INSERT tx (pg, in-process)',
    connections,
    rps: Math.round(latencies.length / elapsed),
    p50: p.p50,
    p99: p.p99,
    errors: 0,
    non2xx: 0,
    statuses: {},
  };
}

/** An r3 on `db` with a token and the benchmark skills. */
async function prepare(
  db: BenchDatabase,
  env: Record<string, string>,
): Promise<{ r3: Child; token: string }> {
  const r3 = await spawnR3(db.url, env);
  const token = await createBenchToken(db.url, ['read:all', 'write:resources', 'run:invoke']);
  await unlimitOrg(db.url);
  for (const slug of ['bench', 'bench-light']) await createBenchSkill(r3.url, token, slug);
  return { r3, token };
}

/**
 * Accept rows: an r3 on `db` with no workers (the figure is the API's alone) and `env`, warmed up,
 * then POSTs at each of `connections`, each row after a CHECKPOINT. The r3 is stopped afterwards.
 */
async function acceptRows(
  db: BenchDatabase,
  label: string,
  connections: readonly number[],
  env: Record<string, string>,
  children: Child[],
): Promise<LoadResult[]> {
  const { r3, token } = await prepare(db, { R3_WORKER_CONCURRENCY: '0', R3_DB_POOL_SIZE: '20', ...env });
  children.push(r3);
  const post = { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: BODY };
  const target = `${r3.url}/api/v1/skills/bench/runs`;
  await load('warm-up', target, 16, { ...post, duration: 2 });
  const rows: LoadResult[] = [];
  for (const c of connections) {
    await checkpoint(db.url);
    rows.push(await load(label, target, c, post));
  }
  await r3.stop();
  return rows;
}

/** Waits until no run of `slug` is unfinished; resolves with how many still are at the timeout. */
async function waitForCompletion(client: pg.Client, slug: string, timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const { rows } = await client.query<{ n: number }>(
      `select count(*)::int as n from runs where slug = $1 and status not in ('completed', 'failed')`,
      [slug],
    );
    const left = rows[0]?.n ?? 0;
    if (left === 0 || performance.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface EndToEnd {
  completed: number;
  failed: number;
  inWindow: number;
  spanS: number;
  p50: number;
  p99: number;
}

/** Completion figures of `slug`'s runs; `window` (epoch ms) bounds the steady-state count. */
async function endToEnd(client: pg.Client, slug: string, window: [number, number]): Promise<EndToEnd> {
  const { rows } = await client.query<EndToEnd>(
    `select count(*) filter (where status = 'completed')::int as completed,
            count(*) filter (where status = 'failed')::int as failed,
            count(*) filter (where completed_at between to_timestamp($2 / 1000.0) and to_timestamp($3 / 1000.0))::int
              as "inWindow",
            extract(epoch from max(completed_at) - min(created_at))::float8 as "spanS",
            percentile_cont(0.5) within group (order by extract(epoch from completed_at - created_at) * 1000) as p50,
            percentile_cont(0.99) within group (order by extract(epoch from completed_at - created_at) * 1000) as p99
       from runs where slug = $1`,
    [slug, window[0], window[1]],
  );
  return rows[0] as EndToEnd;
}

/**
 * The goals, as this run measured them: accepted runs ≥ 30% of the baseline's transactions
 * a second and p99 accept < 20 ms, at 64 connections (in-process bus); completed ≥ 500 runs a second
 * end to end (sustained load). The 16-connection share is printed beside them, for reference.
 */
function printGoals(rows: readonly LoadResult[], sustained: EndToEnd | undefined): void {
  const at = (label: string, connections: number) =>
    rows.find((r) => r.label.startsWith(label) && r.connections === connections);
  const share = (connections: number) => {
    const accept = at(ACCEPT_LABEL, connections);
    const base = at('baseline:', connections);
    return accept && base ? (accept.rps / base.rps) * 100 : Number.NaN;
  };
  const p99 = at(ACCEPT_LABEL, 64)?.p99 ?? Number.NaN;
  const completed = sustained ? sustained.completed / sustained.spanS : Number.NaN;
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  console.log('\ngoals (accept figures at 64 connections, in-process bus):');
  console.log(
    `  accepted ≥ 30% of the baseline's tx/s: ${share(64).toFixed(1)}% — ${verdict(share(64) >= 30)}`,
  );
  console.log(`  p99 accept < 20 ms: ${p99.toFixed(2)} ms — ${verdict(p99 < 20)}`);
  console.log(
    `  completed ≥ 500 runs/s end to end: ${Math.round(completed)}/s — ${verdict(completed >= 500)}`,
  );
  console.log(`  (for reference, 16 connections: accepted ${share(16).toFixed(1)}% of their baseline)`);
}

const api = await createBenchDatabase('runs_api');
const e2e = await createBenchDatabase('runs_e2e');
const children: Child[] = [];
try {
  const rows: LoadResult[] = [];
  for (const c of CONNECTIONS) {
    await checkpoint(api.url);
    rows.push(await baseline(api.url, c));
  }
  for (const c of CONNECTIONS) {
    await checkpoint(api.url);
    rows.push(await baseline(api.url, c, true));
  }

  rows.push(...(await acceptRows(api, ACCEPT_LABEL, CONNECTIONS, {}, children)));

  if (await natsAnswers()) {
    const withNats = await createBenchDatabase('runs_nats');
    const bus = benchBusPrefix('runs');
    try {
      const env = { NATS_URL: BENCH_NATS_URL, R3_BUS_PREFIX: bus.prefix };
      rows.push(...(await acceptRows(withNats, 'r3 POST … (accept, NATS bus)', [64], env, children)));
    } finally {
      await withNats.drop();
      await bus.drop();
    }
  } else {
    console.log(`(NATS does not answer at ${BENCH_NATS_URL}: the NATS accept row is skipped)`);
  }

  // The runs accepted above are still queued: a process with workers drains the backlog, which
  // measures what the workers complete when they have the machine to themselves.
  const workers = process.env.BENCH_WORKERS ?? '32';
  const drainer = await spawnR3(api.url, { R3_DB_POOL_SIZE: '20', R3_WORKER_CONCURRENCY: workers });
  children.push(drainer);
  const apiClient = new pg.Client({ connectionString: api.url });
  await apiClient.connect();
  const backlogLeft = await waitForCompletion(apiClient, 'bench', 300_000);
  const { rows: drained } = await apiClient.query<{ n: number; span_s: number }>(
    `select count(*)::int as n, extract(epoch from max(completed_at) - min(completed_at))::float8 as span_s
       from runs where status = 'completed'`,
  );
  await apiClient.end();
  await drainer.stop();

  const full = await prepare(e2e, { R3_DB_POOL_SIZE: '20', R3_WORKER_CONCURRENCY: workers });
  children.push(full.r3);
  const e2eHeaders = { authorization: `Bearer ${full.token}` };
  const client = new pg.Client({ connectionString: e2e.url });
  await client.connect();
  const e2eRows: Array<{
    label: string;
    accepted: number;
    left: number;
    figures: EndToEnd;
    windowS: number;
  }> = [];
  const phases = [
    { label: 'sustained load, 16 connections', slug: 'bench', connections: 16 },
    { label: 'light load, 2 connections', slug: 'bench-light', connections: 2 },
  ];
  for (const phase of phases) {
    const started = Date.now();
    const result = await load(
      `e2e ${phase.slug}`,
      `${full.r3.url}/api/v1/skills/${phase.slug}/runs`,
      phase.connections,
      {
        method: 'POST',
        headers: e2eHeaders,
        body: BODY,
      },
    );
    const ended = Date.now();
    const left = await waitForCompletion(client, phase.slug, 120_000);
    e2eRows.push({
      label: phase.label,
      accepted: result.rps,
      left,
      figures: await endToEnd(client, phase.slug, [started, ended]),
      windowS: (ended - started) / 1000,
    });
  }
  await client.end();
  await full.r3.stop();

  printTable(
    `bench:runs — ${DURATION_S}s per row; r3 in a child process, load generator and baseline in this one`,
    rows,
    (row) => rows.find((r) => r.label.startsWith('baseline:') && r.connections === row.connections),
  );
  const backlog = drained[0];
  if (backlog) {
    console.log(`\nbacklog drain (echo provider, ${workers} workers, no HTTP load):`);
    console.log(
      `  ${backlog.n} queued runs completed at ${Math.round(backlog.n / backlog.span_s)}/s (${backlogLeft} unfinished)`,
    );
  }
  console.log(
    `\nend to end (echo provider, ${workers} workers in the r3 process that also serves the POSTs):`,
  );
  for (const row of e2eRows) {
    const f = row.figures;
    console.log(`  ${row.label}:`);
    console.log(
      `    accepted/s ${row.accepted}; completed during the load ${Math.round(f.inWindow / row.windowS)}/s;`,
    );
    console.log(
      `    all ${f.completed} runs completed (${f.failed} failed, ${row.left} unfinished) at ${Math.round(f.completed / f.spanS)}/s from first POST to last completion`,
    );
    console.log(`    POST→completed p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms`);
  }
  printGoals(rows, e2eRows[0]?.figures);
} finally {
  await Promise.all(children.map((c) => c.stop()));
  await api.drop();
  await e2e.drop();
}
