/**
 * `npm run bench:runs`: skill runs end to end on the echo provider.
 *
 * 1. Baseline, measured in the same run: single-row INSERT transactions per second (autocommit) on
 *    the same PostgreSQL, from this process, at 16 and 64 connections.
 * 2. Accepted runs per second: `POST /skills/:slug/runs` at 16 and 64 connections against an r3 with
 *    no workers (R3_WORKER_CONCURRENCY=0), so the figure is the API's alone; with the in-process bus
 *    (no configuration) and, at 64 connections when NATS answers, with NATS JetStream (what a
 *    deployment of more than one process runs: the relay publishes every event to the server and
 *    waits for its ack). Each row also reports r3's CPU per accepted run (the process, its main
 *    thread) and PostgreSQL's, and the transactions PostgreSQL committed per accept.
 * 3. End to end: against a second r3 (own database) whose workers execute the runs while the load
 *    runs: runs completed per second, and POST→completed latency p50/p99, taken from each run's
 *    `created_at` and `completed_at` (both written by r3's clock; `created_at` is stamped in the
 *    trigger's transaction, so the HTTP parse before it — well under a millisecond — is not counted).
 * 4. Accepts while workers execute (issue 37), with NATS: an r3 on NATS whose own workers execute the
 *    runs it accepts — POSTs at 64 connections (closed loop: the most it accepts meanwhile, and the
 *    runs completed per second during that row), then POSTs offered at BENCH_ACCEPT_RATE (500) a
 *    second (open loop: the latency a client sees at that load, from each request's due time), with
 *    r3's and PostgreSQL's CPU per run (accept and execution). The closed-loop row's share is of the
 *    INSERT baseline at 64 connections measured beside it: right before the row and right after its
 *    backlog was done, r3 idle both times (the mean of the two). This machine's speed drifts by a
 *    third within minutes, so a baseline measured minutes earlier (part 1) moved the share by as much.
 *
 * BENCH_PARTS picks the parts (see `PARTS`); BENCH_INPUT_BYTES makes each run's input (and so its
 * output) that large (see `inputText`). Every baseline and accept row starts with a CHECKPOINT
 * (see `checkpoint`): an accepted run writes about 4 kB of WAL, the baseline rows about 100 MB in
 * all, and without it a checkpoint started by an earlier row's WAL often fell into the 64-connection
 * accept row.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import {
  BENCH_NATS_URL,
  type BenchDatabase,
  benchBusPrefix,
  type Child,
  checkpoint,
  cpuMs,
  createBenchDatabase,
  createBenchSkill,
  createBenchToken,
  DURATION_S,
  databaseCpuMs,
  type LoadResult,
  load,
  natsAnswers,
  type OpenLoadResult,
  openLoad,
  percentiles,
  printTable,
  reportHeadlines,
  share,
  spawnR3,
  unlimitOrg,
} from './lib.js';

const CONNECTIONS = [16, 64];
/** The label of the in-process accept rows (the goals are read from them). */
const ACCEPT_LABEL = 'r3 POST /skills/:slug/runs (accept)';
/**
 * The accepts' input text: `benchmark input`, or BENCH_INPUT_BYTES bytes of prose-like text for runs
 * of a real prompt's size (the echo provider's output is the rendered prompt, so as large). Words
 * drawn from a fixed list by a seeded generator: PostgreSQL compresses it about as it would prose, not
 * as a sentence repeated.
 */
function inputText(bytes: number): string {
  if (!bytes) return 'benchmark input';
  const words = `the a of to and in is that for it as with was on be by this are from at or an have not
    review output draft reviewer approve reject change request run step skill workflow agent tool model
    customer account invoice order meeting summary contract renewal quarter revenue pipeline forecast
    ticket incident outage latency deploy release migration schema policy deadline escalation quorum`
    .split(/\s+/)
    .filter(Boolean);
  let seed = 37;
  const parts: string[] = [];
  let length = 0;
  while (length < bytes) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const word = words[(seed >>> 16) % words.length] as string;
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(' ').slice(0, bytes);
}
const BODY = JSON.stringify({ input: { text: inputText(Number(process.env.BENCH_INPUT_BYTES ?? 0)) } });

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
    const before = await cpuNow(r3, db.url);
    const xacts = await transactions(db.url);
    const row = await load(label, target, c, post);
    const accepted = row.statuses[202] ?? 0;
    const cpu = perRun(before, await cpuNow(r3, db.url), accepted);
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // the backends' statistics, flushed
    const perAccept = ((await transactions(db.url)) - xacts) / accepted;
    rows.push(row);
    if (cpu) acceptCpu.push({ label, connections: c, cpu, xacts: perAccept });
  }
  await r3.stop();
  return rows;
}

/** CPU per accepted run of each accept row (API alone), and PostgreSQL transactions per accept. */
const acceptCpu: Array<{ label: string; connections: number; cpu: RunCpu; xacts: number }> = [];

/** Transactions committed in the database of `url` so far (pg_stat_database; statistics lag a little). */
async function transactions(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // The statistics of this session's backend go out when it is idle: force a fresh snapshot.
    await client.query('select pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ n: string }>(
      'select xact_commit::text as n from pg_stat_database where datname = current_database()',
    );
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
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

/** The offered rate of the open-loop accept row (BENCH_ACCEPT_RATE, default 500 a second). */
const OFFERED_RATE = Number(process.env.BENCH_ACCEPT_RATE ?? 500);

/** What the phase of accepts while workers execute measured. */
interface Busy {
  /** Closed loop at 64 connections: the most accepts a second, while the workers execute them. */
  closed: LoadResult;
  /** Runs completed a second during the closed-loop window (the workers' pace under that load). */
  completedPerS: number;
  /** Offered at OFFERED_RATE: accepts a second and their latency. */
  open: OpenLoadResult;
  /** The open-loop runs end to end (completed during the window a second, POST→completed). */
  openE2e: EndToEnd & { inWindowPerS: number };
  /** CPU per run (ms), accept and execution, from each row's start until its last run completed. */
  cpu: { closed: RunCpu | null; open: RunCpu | null };
  /**
   * The INSERT baseline at 64 connections right before the closed-loop row and right after its
   * backlog was done (r3 idle both times): the closed row's share is of their mean (`reference`).
   */
  bracket: { before: LoadResult; after: LoadResult };
}

/** The INSERT transactions a second the busy part's closed-loop row is a share of: its bracket's mean. */
const reference = (busy: Busy): number => (busy.bracket.before.rps + busy.bracket.after.rps) / 2;

/** The busy part's closed-loop accepts as a share (0–1) of `reference`: the goal's figure. */
const busyShare = (busy: Busy): number => busy.closed.rps / reference(busy);

/**
 * CPU (ms) per run: r3's processes (the serving one and, unless BENCH_BUSY_WORKERS=inline, the workers'), the
 * serving process's main thread (the event loop), the workers' process alone, and the database's
 * backends.
 */
interface RunCpu {
  r3: number;
  main: number;
  workers: number;
  db: number;
}

/**
 * A reading of r3's and the database's CPU so far, to subtract from a later one (null off Linux):
 * `r3` serves; `workers`, when given, is the process that executes the runs.
 */
async function cpuNow(r3: Child, url: string, workers?: Child): Promise<RunCpu | null> {
  const pid = r3.child.pid as number;
  const [all, main, db] = [cpuMs(pid), cpuMs(pid, pid), await databaseCpuMs(url)];
  // The workers: a second r3 (split), or the serving r3's own `r3 work` children (processes).
  const pids = workers ? [workers.child.pid as number] : childPids(pid);
  let other: number | null = 0;
  for (const p of pids) {
    const ms = cpuMs(p);
    other = ms === null || other === null ? null : other + ms;
  }
  if (all === null || main === null || db === null || other === null) return null;
  return { r3: all + other, main, workers: other, db };
}

/** The process ids of `pid`'s children (Linux; none elsewhere). */
function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** CPU per run between two readings, over `runs` runs. */
function perRun(before: RunCpu | null, after: RunCpu | null, runs: number): RunCpu | null {
  if (!before || !after || runs === 0) return null;
  return {
    r3: (after.r3 - before.r3) / runs,
    main: (after.main - before.main) / runs,
    workers: (after.workers - before.workers) / runs,
    db: (after.db - before.db) / runs,
  };
}

/**
 * Where the busy part's workers run (BENCH_BUSY_WORKERS): `processes` (default: the serving r3 starts
 * one `r3 work` child with the workers, R3_WORKER_PROCESSES=1 — what the accept goal is measured
 * on), `inline` (the serving process executes the runs itself, R3_WORKER_PROCESSES=0), or `split` (a
 * second `r3 serve` on the same database and bus executes them, the serving one at
 * R3_WORKER_CONCURRENCY=0; BENCH_BUSY_SPLIT=1 is the old name).
 */
const BUSY_MODE = (process.env.BENCH_BUSY_WORKERS ??
  (process.env.BENCH_BUSY_SPLIT === '1' ? 'split' : 'processes')) as 'processes' | 'inline' | 'split';
if (!['processes', 'inline', 'split'].includes(BUSY_MODE)) {
  throw new Error(`BENCH_BUSY_WORKERS: processes, inline or split, not ${BUSY_MODE}`);
}
const BUSY_WHERE = {
  processes: 'in an r3 work child of the serving r3',
  inline: 'in the serving r3 process',
  split: 'in a second r3 serve',
}[BUSY_MODE];

/**
 * Accepts while the workers of the same process execute runs on NATS (issue 37): an r3 on NATS with
 * `workers` workers, first POSTs at 64 connections (closed loop: the most it accepts while executing
 * what it accepted), then, once that backlog is done, POSTs offered at OFFERED_RATE a second (open
 * loop: the latency a client sees at that load), each run executed as it is accepted.
 */
async function acceptsWhileExecuting(workers: string, children: Child[]): Promise<Busy> {
  const db = await createBenchDatabase('runs_busy');
  const bus = benchBusPrefix('runs_busy');
  try {
    const env = { NATS_URL: BENCH_NATS_URL, R3_BUS_PREFIX: bus.prefix, R3_DB_POOL_SIZE: '20' };
    const { r3, token } = await prepare(db, {
      ...env,
      R3_WORKER_CONCURRENCY: BUSY_MODE === 'split' ? '0' : workers,
      R3_WORKER_PROCESSES: BUSY_MODE === 'processes' ? '1' : '0',
    });
    children.push(r3);
    const executor =
      BUSY_MODE === 'split' ? await spawnR3(db.url, { ...env, R3_WORKER_CONCURRENCY: workers }) : undefined;
    if (executor) children.push(executor);
    for (const slug of ['busy', 'steady']) await createBenchSkill(r3.url, token, slug);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const post = { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: BODY };
      const url = (slug: string) => `${r3.url}/api/v1/skills/${slug}/runs`;
      await load('warm-up', url('bench'), 16, { ...post, duration: 2 });
      await waitForCompletion(client, 'bench', 120_000);
      await checkpoint(db.url);
      const before = await baseline(db.url, 64);
      await checkpoint(db.url);
      let cpuBefore = await cpuNow(r3, db.url, executor);
      let started = Date.now();
      const closed = await load('r3 POST … (accept, workers on NATS)', url('busy'), 64, post);
      let ended = Date.now();
      await waitForCompletion(client, 'busy', 300_000);
      const busyRuns = await endToEnd(client, 'busy', [started, ended]);
      const closedCpu = perRun(cpuBefore, await cpuNow(r3, db.url, executor), busyRuns.completed);
      await checkpoint(db.url);
      const after = await baseline(db.url, 64);
      await checkpoint(db.url);
      cpuBefore = await cpuNow(r3, db.url, executor);
      started = Date.now();
      const open = await openLoad(
        `r3 POST … offered ${OFFERED_RATE}/s (workers, NATS)`,
        url('steady'),
        OFFERED_RATE,
        post,
      );
      ended = Date.now();
      await waitForCompletion(client, 'steady', 120_000);
      const figures = await endToEnd(client, 'steady', [started, ended]);
      const openCpu = perRun(cpuBefore, await cpuNow(r3, db.url, executor), figures.completed);
      await r3.stop();
      await executor?.stop();
      const windowS = (ended - started) / 1000;
      return {
        closed,
        completedPerS: busyRuns.inWindow / DURATION_S,
        open,
        openE2e: { ...figures, inWindowPerS: figures.inWindow / windowS },
        cpu: { closed: closedCpu, open: openCpu },
        bracket: { before, after },
      };
    } finally {
      await client.end();
    }
  } finally {
    await db.drop();
    await bus.drop();
  }
}

/** One line of the goals: what, the figure, met or not. */
function goal(what: string, figure: string, met: boolean): void {
  console.log(`  ${what}: ${figure} — ${met ? 'met' : 'NOT met'}`);
}

/**
 * The goals, as this run measured them. Issue 37 (with workers executing runs on NATS: see
 * BENCH_BUSY_WORKERS): accepts ≥ 30% of the baseline's INSERT transactions a second at 64 connections, p99 <
 * 50 ms at an offered 500 accepts a second, ≥ 500 runs a second completed end to end. The earlier
 * goals of the API alone (no workers, in-process bus: ≥ 30% of the baseline, p99 < 20 ms) and of
 * end to end on the in-process bus follow, for reference.
 */
function printGoals(rows: readonly LoadResult[], busy: Busy | null, sustained: EndToEnd | undefined): void {
  const at = (label: string, connections: number) =>
    rows.find((r) => r.label.startsWith(label) && r.connections === connections);
  const base = at('baseline:', 64)?.rps ?? Number.NaN;
  const share = (rps: number | undefined) => ((rps ?? Number.NaN) / base) * 100;
  if (busy) {
    const accepted = busyShare(busy) * 100;
    console.log(`\ngoals with ${WORKERS} workers executing runs on NATS ${BUSY_WHERE}:`);
    goal(
      'accepted ≥ 30% of the INSERT tx/s beside it (64 connections)',
      `${accepted.toFixed(1)}% (${busy.closed.rps}/s; p50 ${busy.closed.p50.toFixed(1)} ms, p99 ${busy.closed.p99.toFixed(1)} ms)`,
      accepted >= 30,
    );
    goal(
      `p99 accept < 50 ms at an offered ${OFFERED_RATE}/s`,
      `${busy.open.p99.toFixed(1)} ms (p50 ${busy.open.p50.toFixed(1)} ms, ${busy.open.rps}/s accepted)`,
      busy.open.p99 < 50,
    );
    goal(
      'completed ≥ 500 runs/s end to end on NATS',
      `${Math.round(busy.completedPerS)}/s (during the 64-connection row)`,
      busy.completedPerS >= 500,
    );
  }
  const accept = at(ACCEPT_LABEL, 64);
  if (accept) {
    console.log('\nearlier goals (the API alone: no workers, in-process bus, 64 connections):');
    goal(
      "accepted ≥ 30% of the baseline's tx/s",
      `${share(accept.rps).toFixed(1)}%`,
      share(accept.rps) >= 30,
    );
    goal('p99 accept < 20 ms', `${accept.p99.toFixed(2)} ms`, accept.p99 < 20);
  }
  if (sustained) {
    const completed = sustained.completed / sustained.spanS;
    goal(
      'completed ≥ 500 runs/s end to end (in-process bus)',
      `${Math.round(completed)}/s`,
      completed >= 500,
    );
  }
}

/** The workers of the r3 processes that execute runs (BENCH_WORKERS, default 32). */
const WORKERS = process.env.BENCH_WORKERS ?? '32';

/**
 * The parts to run (BENCH_PARTS, a comma list; default all): `baseline` (INSERT transactions),
 * `accept` (the API alone), `nats` (its NATS row), `drain` (the backlog, after `accept`), `e2e` (in-process
 * bus), `busy` (accepts while workers execute on NATS, with the INSERT baseline beside them). `npm run
 * bench:summary` runs `busy`.
 */
const PARTS = new Set((process.env.BENCH_PARTS ?? 'baseline,accept,nats,drain,e2e,busy').split(','));

const api = await createBenchDatabase('runs_api');
const e2e = await createBenchDatabase('runs_e2e');
const children: Child[] = [];
try {
  const rows: LoadResult[] = [];
  if (PARTS.has('baseline')) {
    for (const c of CONNECTIONS) {
      await checkpoint(api.url);
      rows.push(await baseline(api.url, c));
    }
    for (const c of CONNECTIONS) {
      await checkpoint(api.url);
      rows.push(await baseline(api.url, c, true));
    }
  }

  if (PARTS.has('accept')) rows.push(...(await acceptRows(api, ACCEPT_LABEL, CONNECTIONS, {}, children)));

  const nats = await natsAnswers();
  if (!nats) console.log(`(NATS does not answer at ${BENCH_NATS_URL}: the NATS rows are skipped)`);
  if (nats && PARTS.has('nats')) {
    const withNats = await createBenchDatabase('runs_nats');
    const bus = benchBusPrefix('runs');
    try {
      const env = { NATS_URL: BENCH_NATS_URL, R3_BUS_PREFIX: bus.prefix };
      rows.push(...(await acceptRows(withNats, 'r3 POST … (accept, NATS bus)', [64], env, children)));
    } finally {
      await withNats.drop();
      await bus.drop();
    }
  }

  // The runs accepted above are still queued: a process with workers drains the backlog, which
  // measures what the workers complete when they have the machine to themselves.
  let drain: { n: number; perS: number; left: number } | null = null;
  if (PARTS.has('accept') && PARTS.has('drain')) {
    const drainer = await spawnR3(api.url, { R3_DB_POOL_SIZE: '20', R3_WORKER_CONCURRENCY: WORKERS });
    children.push(drainer);
    const apiClient = new pg.Client({ connectionString: api.url });
    await apiClient.connect();
    const left = await waitForCompletion(apiClient, 'bench', 300_000);
    const { rows: drained } = await apiClient.query<{ n: number; span_s: number }>(
      `select count(*)::int as n, extract(epoch from max(completed_at) - min(completed_at))::float8 as span_s
         from runs where status = 'completed'`,
    );
    await apiClient.end();
    await drainer.stop();
    const counted = drained[0];
    if (counted) drain = { n: counted.n, perS: counted.n / counted.span_s, left };
  }

  const e2eRows: Array<{
    label: string;
    accepted: number;
    left: number;
    figures: EndToEnd;
    windowS: number;
  }> = [];
  if (PARTS.has('e2e')) {
    const full = await prepare(e2e, { R3_DB_POOL_SIZE: '20', R3_WORKER_CONCURRENCY: WORKERS });
    children.push(full.r3);
    const e2eHeaders = { authorization: `Bearer ${full.token}` };
    const client = new pg.Client({ connectionString: e2e.url });
    await client.connect();
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
        { method: 'POST', headers: e2eHeaders, body: BODY },
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
  }

  const busy = nats && PARTS.has('busy') ? await acceptsWhileExecuting(WORKERS, children) : null;
  if (busy) rows.push(busy.closed, busy.open);

  printTable(
    `bench:runs — ${DURATION_S}s per row; r3 in a child process, load generator and baseline in this one`,
    rows,
    (row) => rows.find((r) => r.label.startsWith('baseline:') && r.connections === row.connections),
  );
  for (const { label, connections, cpu, xacts } of acceptCpu) {
    console.log(
      `  CPU per accepted run (${label}, ${connections} conns): r3 ${cpu.r3.toFixed(3)} ms (main thread ${cpu.main.toFixed(3)} ms), PostgreSQL ${cpu.db.toFixed(3)} ms; ${xacts.toFixed(2)} PostgreSQL transactions`,
    );
  }
  if (busy) {
    const f = busy.openE2e;
    console.log(
      `  (the offered row's conns: the most it had open; its latency counts from each request's due time)`,
    );
    console.log(`\naccepts while ${WORKERS} workers execute runs on NATS (echo provider, ${BUSY_WHERE}):`);
    console.log(
      `  64 connections: ${busy.closed.rps} accepted/s, ${Math.round(busy.completedPerS)} runs/s completed meanwhile`,
    );
    console.log(
      `  beside it, INSERT tx/s at 64 connections: ${busy.bracket.before.rps} before, ${busy.bracket.after.rps} after (the share's reference: ${Math.round(reference(busy))})`,
    );
    console.log(
      `  offered ${OFFERED_RATE}/s: ${busy.open.rps} accepted/s (p50 ${busy.open.p50.toFixed(1)} ms, p99 ${busy.open.p99.toFixed(1)} ms); ` +
        `completed during the window ${Math.round(f.inWindowPerS)}/s; POST→completed p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms`,
    );
    for (const [which, cpu] of Object.entries(busy.cpu)) {
      if (!cpu) continue;
      console.log(
        `  CPU per run (${which} loop, accept and execution): r3 ${cpu.r3.toFixed(2)} ms (main thread ${cpu.main.toFixed(2)} ms${BUSY_MODE === 'inline' ? '' : `, workers' process ${cpu.workers.toFixed(2)} ms`}), PostgreSQL ${cpu.db.toFixed(2)} ms`,
      );
    }
  }
  if (drain) {
    console.log(`\nbacklog drain (echo provider, ${WORKERS} workers, no HTTP load):`);
    console.log(
      `  ${drain.n} queued runs completed at ${Math.round(drain.perS)}/s (${drain.left} unfinished)`,
    );
  }
  if (e2eRows.length > 0) {
    console.log(
      `\nend to end (echo provider, ${WORKERS} workers in the r3 process that also serves the POSTs):`,
    );
  }
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
  printGoals(rows, busy, e2eRows[0]?.figures);
  if (busy) {
    const base = Math.round(reference(busy));
    const accepted = busyShare(busy);
    reportHeadlines([
      {
        what: 'POST /skills/:slug/runs ÷ INSERT tx/s, workers executing on NATS',
        goal: '≥ 0.30',
        value: accepted,
        better: 'higher',
        figure: `${share(accepted)} (${busy.closed.rps.toLocaleString('en')} vs ${base.toLocaleString('en')}/s, 64 conns; p99 ${busy.closed.p99.toFixed(0)} ms; workers ${BUSY_MODE})`,
      },
      {
        what: `POST /skills/:slug/runs p99 at ${OFFERED_RATE}/s offered, workers executing on NATS`,
        goal: '< 50 ms',
        value: busy.open.p99,
        better: 'lower',
        figure: `${busy.open.p99.toFixed(1)} ms (p50 ${busy.open.p50.toFixed(1)} ms; ${busy.open.rps}/s accepted; workers ${BUSY_MODE})`,
      },
      {
        what: 'runs completed end to end per second on NATS (while accepting)',
        goal: '≥ 500',
        value: busy.completedPerS,
        better: 'higher',
        figure: `${Math.round(busy.completedPerS)}/s (workers ${BUSY_MODE})`,
      },
    ]);
  }
} finally {
  await Promise.all(children.map((c) => c.stop()));
  await api.drop();
  await e2e.drop();
}
