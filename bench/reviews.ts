/**
 * `npm run bench:reviews`: `GET /reviews` latency over HTTP in a big queue. Goal: p99 < 20 ms with
 * 10,000 open items in the org and 100 in the lane asked for.
 *
 * The queue is seeded the way production fills it, through r3's own API against `r3 serve` (so every
 * row is what the actor host writes: snapshots, projections, transition log, outbox):
 * - BENCH_OPEN (10,000) pending runs of a requiresApproval skill, plus BENCH_CLOSED (3,000) more that
 *   are then decided (closed items stay in the table) and BENCH_NOISE (2,000) open items in another org;
 * - of the open ones, 100 are assigned to `lane-user` and BENCH_OTHER_ASSIGNED (3,900) to 19 other
 *   reviewers, at random positions in the queue; 500 of the unassigned ones are snoozed for a day; the
 *   rest (≈5,500) wait in the triage lane. Workers execute the drafts meanwhile; the measurement
 *   starts once no job is left.
 *
 * Then each view's first page (`limit` default 50) is driven by the closed-loop load generator at
 * 1 and 8 connections for BENCH_DURATION seconds. Finally the lane views are measured once more
 * without the `review_items_lane` index (migration 0004), to show what it buys.
 *
 * Deciding (issue 38): first one reviewer alone decides BENCH_SOLO (200) items (the uncontended
 * latency of the same calls, for comparison on a loaded machine); then BENCH_REVIEWERS (50) reviewers, each with their own token, decide
 * BENCH_DECISIONS (5,000) of the open items through HTTP as the web UI does — read the item
 * (`GET /reviews/skill/:id`, its revision) then `POST /reviews/decide?limit=1` bound to it: decisions/s
 * over the whole run and the decide call's p50/p99 (goal p99 < 100 ms). Then BENCH_BATCHES (20)
 * `POST /reviews/decide-batch` of 100 items each, with their revisions, one after another: p50/p99
 * (goal p99 < 500 ms).
 *
 * Issue 39's rows: every item of the queue is opened under the policy `timed` (`dueIn: 24h`), so the
 * 10,000 open items have due times, and `GET /reviews?sort=due` is driven like the views above (goal
 * p99 < 50 ms). The ledger's cost to a decision: BENCH_LEDGER_ROWS (4) more rows of the 50 reviewers
 * deciding BENCH_LEDGER_DECISIONS (500) items each, alternating with and without ledger appends (a
 * row trigger on `review_ledger` skips the append's rows: the statement is still sent, nothing
 * is written or chained): the difference of their p99 (goal < 5 ms). Then escalations: a second
 * `r3 serve` joins the first, BENCH_ESCALATIONS (1,000) items of a policy that escalates get their
 * deadline timer moved into the same second a few seconds ahead (SQL on `timers`, as if they had all
 * opened together), and the bench watches the ledger every 25 ms: how long after its due time each
 * escalation was recorded (p50/p99/max; goal every one within 2 s), and none twice.
 *
 * BENCH_PARTS picks parts (default `views,decide,due,escalate`); BENCH_SAMPLE=1 also samples
 * `pg_stat_activity` of the bench database every 20 ms during the deciding rows and prints what the
 * sessions were doing (diagnosis: which statement each waits behind, and on what).
 */
import { randomInt } from 'node:crypto';
import http from 'node:http';
import { loadavg } from 'node:os';
import pg from 'pg';
import { TokenService } from '../src/features/tokens/service.js';
import { migrations } from '../src/migrations.js';
import { openDatabase } from '../src/platform/db/database.js';
import { createLogger } from '../src/platform/log.js';
import { systemClock } from '../src/platform/util/clock.js';
import {
  type Child,
  cpuMs,
  createBenchDatabase,
  DURATION_S,
  databaseCpuMs,
  type LoadResult,
  load,
  percentiles,
  printTable,
  spawnR3,
  unlimitOrg,
} from './lib.js';

const OPEN = Number(process.env.BENCH_OPEN ?? 10_000);
const LANE = Number(process.env.BENCH_LANE ?? 100);
const OTHER_ASSIGNED = Number(process.env.BENCH_OTHER_ASSIGNED ?? 3_900);
const SNOOZED = Number(process.env.BENCH_SNOOZED ?? 500);
const CLOSED = Number(process.env.BENCH_CLOSED ?? 3_000);
const NOISE = Number(process.env.BENCH_NOISE ?? 2_000);
const SEED_CONCURRENCY = 32;
const CONNECTIONS = [1, 8];
const LANE_USER = 'lane-user';
const OTHERS = Array.from({ length: 19 }, (_, i) => `reviewer-${String(i).padStart(2, '0')}`);
const REVIEWERS = Number(process.env.BENCH_REVIEWERS ?? 50);
const DECISIONS = Number(process.env.BENCH_DECISIONS ?? 5_000);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 20);
const SOLO = Number(process.env.BENCH_SOLO ?? 200);
const BATCH_SIZE = 100;
const PARTS = new Set((process.env.BENCH_PARTS ?? 'views,decide,due,escalate').split(','));
const LEDGER_ROWS = Number(process.env.BENCH_LEDGER_ROWS ?? 4);
const LEDGER_DECISIONS = Number(process.env.BENCH_LEDGER_DECISIONS ?? 500);
const ESCALATIONS = Number(process.env.BENCH_ESCALATIONS ?? 1_000);
const SAMPLE = process.env.BENCH_SAMPLE === '1';
const ESCALATION_LEAD = 'escalation-lead';

const log = createLogger('warn', 2);
const bench = await createBenchDatabase('reviews');
const db = await openDatabase(bench.url, { poolSize: 4, log, migrations });
const children: Child[] = [];

/** Runs `task(i)` for i in [0, n) with at most `concurrency` in flight. */
async function pool<T>(n: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}

/**
 * Keep-alive connections for the calls: node:http's client costs this process about a quarter of
 * what the global `fetch` (undici, with its web streams) did per call — 0.61 ms of this process's CPU
 * per decision (two calls) with `fetch` — and the reviewers' client shares the two cores with r3 and
 * PostgreSQL.
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** One API call that must answer `expected`; returns the JSON body. */
function call(
  url: string,
  token: string,
  method: string,
  path: string,
  body: unknown,
  expected: number,
): Promise<Record<string, unknown>> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string | number> = { authorization: `Bearer ${token}` };
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(payload);
  }
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/api/v1${path}`, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== expected) reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`));
        else resolve(JSON.parse(text) as Record<string, unknown>);
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Shuffles in place (Fisher–Yates). */
function shuffle<T>(list: T[]): T[] {
  for (let i = list.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [list[i], list[j]] = [list[j] as T, list[i] as T];
  }
  return list;
}

/** An item's revision, as a reviewer's screen reads it (`GET /reviews/skill/:id`). */
async function revisionOf(url: string, token: string, id: number): Promise<string> {
  const { review } = (await call(url, token, 'GET', `/reviews/skill/${id}`, undefined, 200)) as {
    review: { revision: string };
  };
  return review.revision;
}

/** One timed call: ms from sending to the whole answer read; throws unless it answers `expected`. */
async function timed(
  url: string,
  token: string,
  path: string,
  body: unknown,
  expected: number,
): Promise<number> {
  const started = performance.now();
  await call(url, token, 'POST', path, body, expected);
  return performance.now() - started;
}

/** What a deciding row measured. */
interface DecisionRow {
  label: string;
  decisions: number;
  seconds: number;
  p50: number;
  p99: number;
  /** r3's and PostgreSQL's CPU per decision (ms), when they could be read. */
  cpu?: { r3: number | null; db: number | null; bench: number };
}

/** r3's, the bench database's and this process's (the reviewers' HTTP client) CPU per decision over `row`. */
async function withCpu(r3: Child, url: string, row: () => Promise<DecisionRow>): Promise<DecisionRow> {
  const pid = r3.child.pid as number;
  const before = { r3: cpuMs(pid), db: await databaseCpuMs(url), bench: process.cpuUsage() };
  const sampling = SAMPLE ? sampleActivity(url) : null;
  const started = monotonicUs();
  const result = await row();
  if (SAMPLE) console.log(`window "${result.label}" ${started} ${monotonicUs()}`);
  const after = { r3: cpuMs(pid), db: await databaseCpuMs(url) };
  if (sampling) console.log(`\nwhat the sessions did during "${result.label}":\n${await sampling.stop()}`);
  const per = (a: number | null, b: number | null) =>
    a === null || b === null ? null : (b - a) / result.decisions;
  const bench = process.cpuUsage(before.bench);
  return {
    ...result,
    cpu: {
      r3: per(before.r3, after.r3),
      db: per(before.db, after.db),
      bench: (bench.user + bench.system) / 1000 / result.decisions,
    },
  };
}

/**
 * CLOCK_MONOTONIC in µs: the clock of the timestamps of `node --cpu-prof`'s profiles, so a window
 * printed with it picks the samples of r3's profile taken during a row.
 */
function monotonicUs(): string {
  return String(process.hrtime.bigint() / 1000n);
}

/**
 * Samples the bench database's non-idle sessions every 20 ms until `stop()`, which answers the most
 * frequent (state, wait event, statement) triples with their share of the samples.
 */
function sampleActivity(url: string): { stop(): Promise<string> } {
  const client = new pg.Client({ connectionString: url });
  const counts = new Map<string, number>();
  let samples = 0;
  let running = true;
  const done = (async () => {
    await client.connect();
    while (running) {
      const { rows } = await client.query<{ what: string }>(
        `select state || ' ' || coalesce(wait_event_type || ':' || wait_event, '-') || ' | ' ||
                left(regexp_replace(query, '\\s+', ' ', 'g'), 90) as what
           from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and state <> 'idle'`,
      );
      samples++;
      for (const { what } of rows) counts.set(what, (counts.get(what) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await client.end();
  })();
  return {
    async stop() {
      running = false;
      await done;
      return [...counts]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 15)
        .map(([what, n]) => `${(n / samples).toFixed(2).padStart(7)} ${what}`)
        .join('\n');
    },
  };
}

/**
 * `reviewers` deciding `items` concurrently, each as the web UI does: read the item's revision, then
 * approve bound to it. Every decision must succeed (no item is decided twice: each is taken once).
 */
async function reviewersDeciding(
  url: string,
  reviewers: string[],
  items: number[],
  suffix = '',
): Promise<DecisionRow> {
  const samples: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    reviewers.map(async (token) => {
      while (next < items.length) {
        const id = items[next++] as number;
        const revision = await revisionOf(url, token, id);
        samples.push(
          await timed(
            url,
            token,
            '/reviews/decide?limit=1',
            { kind: 'skill', id, action: 'approve', revision },
            200,
          ),
        );
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const { p50, p99 } = percentiles(samples);
  return {
    label: `${reviewers.length} reviewer${reviewers.length === 1 ? '' : 's'}: read, decide with revision${suffix}`,
    decisions: samples.length,
    seconds,
    p50,
    p99,
  };
}

/** `batches` decide-batch calls of `size` items with their revisions, one after another. */
async function batchesDeciding(
  url: string,
  token: string,
  items: number[],
  size: number,
): Promise<DecisionRow> {
  const samples: number[] = [];
  let seconds = 0;
  for (let at = 0; at + size <= items.length; at += size) {
    const ids = items.slice(at, at + size);
    const revisions = await pool(ids.length, 16, (i) => revisionOf(url, token, ids[i] as number));
    const body = {
      items: ids.map((id, i) => ({ kind: 'skill', id, revision: revisions[i] })),
      action: 'approve',
    };
    const ms = await timed(url, token, '/reviews/decide-batch?limit=1', body, 200);
    samples.push(ms);
    seconds += ms / 1000;
  }
  const { p50, p99 } = percentiles(samples);
  return {
    label: `decide-batch of ${size}, one at a time`,
    decisions: samples.length * size,
    seconds,
    p50,
    p99,
  };
}

function printDecisionRows(rows: DecisionRow[]): void {
  console.log(`
bench:reviews — deciding through HTTP (r3 in a child process)`);
  console.log(
    'label'.padEnd(56),
    'decided'.padStart(8),
    'per s'.padStart(8),
    'p50 ms'.padStart(8),
    'p99 ms'.padStart(8),
    'r3 CPU'.padStart(8),
    'db CPU'.padStart(8),
    'bench CPU'.padStart(10),
  );
  const ms = (value: number | null | undefined) => (value == null ? '—' : value.toFixed(2));
  for (const row of rows) {
    console.log(
      row.label.padEnd(56),
      String(row.decisions).padStart(8),
      (row.decisions / row.seconds).toFixed(0).padStart(8),
      row.p50.toFixed(2).padStart(8),
      row.p99.toFixed(2).padStart(8),
      ms(row.cpu?.r3).padStart(8),
      ms(row.cpu?.db).padStart(8),
      ms(row.cpu?.bench).padStart(10),
    );
  }
  console.log(
    '(r3 CPU, db CPU, bench CPU: ms of CPU per decision, r3 process, the bench database’s backends and this process — the reviewers’ HTTP client)',
  );
}

/**
 * The CPU time (ms) the bench database's backends spend from now until `stop()`, sampled every 100
 * ms: a backend that ends meanwhile (a pool's idle connection closed) counts to its last sample, one
 * that starts counts from zero — `databaseCpuMs` at both ends would lose the first and count the
 * second's whole life. Null when a backend's CPU cannot be read.
 */
async function trackBackendCpu(url: string): Promise<{ stop(): Promise<number | null> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  let unreadable = false;
  const sample = async (initial: boolean) => {
    const { rows } = await client.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    for (const { pid } of rows) {
      const ms = cpuMs(pid);
      if (ms === null) {
        unreadable ||= initial;
        continue;
      }
      if (!first.has(pid)) first.set(pid, initial ? ms : 0);
      last.set(pid, ms);
    }
  };
  await sample(true);
  let sampling = Promise.resolve();
  const timer = setInterval(() => {
    sampling = sampling.then(() => sample(false)).catch(() => undefined);
  }, 100);
  return {
    async stop() {
      clearInterval(timer);
      await sampling;
      await sample(false);
      await client.end();
      if (unreadable) return null;
      let total = 0;
      for (const [pid, ms] of last) total += ms - (first.get(pid) ?? 0);
      return total;
    },
  };
}

/**
 * Escalations on two processes: `items` (opened under the escalating policy) are made due in the same
 * second, DUE_IN_S from now, by moving their `due` timers there; answers when each one's `escalated`
 * ledger entry was first seen, less its due time (ms), and how many items have more than one.
 */
async function escalations(
  items: number[],
  pids: number[],
): Promise<{
  lateness: number[];
  twice: number;
  missing: number;
  dueSecond: string;
  cpu: { r3: number | null; db: number | null };
}> {
  const second = Math.ceil(Date.now() / 1000) * 1000 + 5_000;
  const r3Cpu = (): number | null => {
    const each = pids.map((pid) => cpuMs(pid));
    return each.includes(null) ? null : (each as number[]).reduce((sum, ms) => sum + ms, 0);
  };
  const before = r3Cpu();
  const backends = await trackBackendCpu(bench.url);
  const dueAt = new Map<number, number>();
  const moved = await db.sql.query<{ run_id: number; due_at: Date }>(
    `with due as (
       update timers t set due_at = to_timestamp(($2 + floor(random() * 1000)) / 1000.0)
         from review_items i
        where t.actor_kind = 'review-item' and t.actor_id = i.id and t.timer_id = 'due'
          and i.run_id = any($1::bigint[]) and i.open
        returning i.run_id, t.due_at)
     select run_id, due_at from due`,
    [items, second],
  );
  for (const row of moved) dueAt.set(Number(row.run_id), row.due_at.getTime());
  if (dueAt.size !== items.length) throw new Error(`moved ${dueAt.size} due timers of ${items.length}`);
  const seen = new Map<number, number>();
  const watched = new Set(items);
  let twice = 0;
  const deadline = second + 30_000;
  while (Date.now() < deadline) {
    // The org's escalations, the items' picked here: `subject_id = any($1)` with the 1,000 ids took
    // 1–4 s a poll on the full bench's ledger (each row compared with every id), which then showed as
    // lateness. An entry seen was recorded before the statement's snapshot, taken after `asked`.
    const asked = Date.now();
    const rows = await db.sql.query<{ id: number; n: number }>(
      `select subject_id as id, count(*)::int as n from review_ledger
        where org_id = (select id from orgs where slug = 'bench') and event = 'escalated'
        group by subject_id`,
    );
    twice = 0;
    for (const { id, n } of rows) {
      if (!watched.has(Number(id))) continue;
      if (!seen.has(Number(id))) seen.set(Number(id), asked);
      if (n > 1) twice++;
    }
    if (seen.size === items.length) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  // The machine's CPU of the escalations (both r3 processes, the database's backends) until the last
  // was seen; the bench's own polling is in the database's share.
  const after = r3Cpu();
  const cpu = { r3: before === null || after === null ? null : after - before, db: await backends.stop() };
  // Seen again a second later: an escalation recorded twice would show by now.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const again = await db.sql.one<{ n: number }>(
    `select count(*)::int as n from (
       select subject_id from review_ledger
        where org_id = (select id from orgs where slug = 'bench') and event = 'escalated'
          and subject_id = any($1::bigint[])
        group by subject_id having count(*) > 1) twice`,
    [items],
  );
  const lateness = [...seen].map(([id, at]) => at - (dueAt.get(id) as number));
  return {
    lateness,
    twice: Math.max(twice, again.n),
    missing: items.length - seen.size,
    dueSecond: new Date(second).toISOString(),
    cpu,
  };
}

try {
  await db.migrate();
  const tokens = new TokenService(db, 'test', systemClock);
  const issue = (org: string, userId: string) =>
    tokens.create({
      org,
      userId,
      role: 'owner',
      name: 'bench',
      scopes: ['read:all', 'write:resources', 'run:invoke', 'run:approve'],
      expiresAt: null,
    });
  const owner = (await issue('bench', 'bench-owner')).token;
  const noise = (await issue('noise', 'noise-owner')).token;
  for (const user of [LANE_USER, ...OTHERS, ESCALATION_LEAD]) await issue('bench', user);
  const reviewers: string[] = [];
  for (let i = 0; i < REVIEWERS; i++) reviewers.push((await issue('bench', `decider-${i}`)).token);
  for (const org of ['bench', 'noise']) await unlimitOrg(bench.url, org);

  const r3 = await spawnR3(bench.url, { R3_DB_POOL_SIZE: '20', R3_WORKER_CONCURRENCY: '16' });
  children.push(r3);
  // Every item of the queue is due a day after it opens (issue 39: open items with due times).
  const timed = { slug: 'timed', name: 'Due in a day', dueIn: '24h' };
  await call(r3.url, owner, 'POST', '/review-policies', timed, 201);
  const skill = {
    manifest: { slug: 'draft', name: 'Draft reply', requiresApproval: true, reviewPolicy: 'timed' },
    promptMd: 'Reply to {{input.text}}',
  };
  await call(r3.url, owner, 'POST', '/skills', skill, 201);
  await call(r3.url, noise, 'POST', '/review-policies', timed, 201);
  await call(r3.url, noise, 'POST', '/skills', skill, 201);

  const seedStarted = performance.now();
  const trigger =
    (token: string, slug = 'draft') =>
    async () =>
      (await call(r3.url, token, 'POST', `/skills/${slug}/runs`, { input: { text: 'a customer mail' } }, 202))
        .runId as number;
  const runs = await pool(OPEN + CLOSED, SEED_CONCURRENCY, trigger(owner));
  await pool(NOISE, SEED_CONCURRENCY, trigger(noise));
  // Items that escalate when they are due (an hour after they open, until the bench moves it).
  let escalating: number[] = [];
  if (PARTS.has('escalate')) {
    await call(
      r3.url,
      owner,
      'POST',
      '/review-policies',
      {
        slug: 'escalating',
        name: 'Escalates',
        dueIn: '1h',
        onTimeout: 'escalate',
        escalateTo: { users: [ESCALATION_LEAD] },
      },
      201,
    );
    await call(
      r3.url,
      owner,
      'POST',
      '/skills',
      {
        manifest: {
          slug: 'urgent',
          name: 'Urgent reply',
          requiresApproval: true,
          reviewPolicy: 'escalating',
        },
        promptMd: 'Reply to {{input.text}}',
      },
      201,
    );
    escalating = await pool(ESCALATIONS, SEED_CONCURRENCY, trigger(owner, 'urgent'));
  }
  // Close a random CLOSED of them (history), keep OPEN open.
  shuffle(runs);
  const closed = runs.slice(0, CLOSED);
  const open = runs.slice(CLOSED);
  await pool(closed.length, SEED_CONCURRENCY, (i) =>
    call(
      r3.url,
      owner,
      'POST',
      '/reviews/decide?limit=1',
      { kind: 'skill', id: closed[i], action: 'approve' },
      200,
    ),
  );
  // Lanes at random positions: `open` is shuffled.
  const lane = open.slice(0, LANE);
  const others = open.slice(LANE, LANE + OTHER_ASSIGNED);
  const snoozed = open.slice(LANE + OTHER_ASSIGNED, LANE + OTHER_ASSIGNED + SNOOZED);
  await pool(lane.length, SEED_CONCURRENCY, (i) =>
    call(
      r3.url,
      owner,
      'POST',
      '/reviews/assign?limit=1',
      { kind: 'skill', id: lane[i], assignedTo: LANE_USER, note: 'yours' },
      200,
    ),
  );
  await pool(others.length, SEED_CONCURRENCY, (i) =>
    call(
      r3.url,
      owner,
      'POST',
      '/reviews/assign?limit=1',
      { kind: 'skill', id: others[i], assignedTo: OTHERS[i % OTHERS.length] },
      200,
    ),
  );
  const until = new Date(Date.now() + 86_400_000).toISOString();
  await pool(snoozed.length, SEED_CONCURRENCY, (i) =>
    call(r3.url, owner, 'POST', '/reviews/snooze?limit=1', { kind: 'skill', id: snoozed[i], until }, 200),
  );
  // Wait for the drafts (the workers) to finish, so the measurement has the machine to itself.
  for (;;) {
    const { n } = await db.sql.one<{ n: number }>(
      'select count(*)::int as n from jobs where dead_at is null',
    );
    if (n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await db.sql.query('vacuum analyze review_items');
  await db.sql.query('vacuum analyze runs');
  const seedS = (performance.now() - seedStarted) / 1000;

  const counts = await db.sql.one<Record<string, number>>(
    `select count(*) filter (where open)::int as open,
            count(*) filter (where not open)::int as closed,
            count(*) filter (where open and assigned_to = $2)::int as lane,
            count(*) filter (where open and assigned_to is null and snoozed_until is null)::int as triage,
            count(*) filter (where open and snoozed_until is not null)::int as snoozed,
            count(*) filter (where open and due_at is not null)::int as due
       from review_items where org_id = (select id from orgs where slug = $1)`,
    ['bench', LANE_USER],
  );
  console.log(
    `seeded in ${seedS.toFixed(1)} s through the API: ${JSON.stringify(counts)} (+${NOISE} open in another org)`,
  );

  const headers = { authorization: `Bearer ${owner}` };
  const views = [
    ...(PARTS.has('views')
      ? [
          { label: `GET /reviews?assignedTo=<user>`, query: `?assignedTo=${LANE_USER}` },
          { label: 'GET /reviews?assignedTo=unassigned', query: '?assignedTo=unassigned' },
          { label: 'GET /reviews (every lane)', query: '' },
        ]
      : []),
    ...(PARTS.has('due') ? [{ label: 'GET /reviews?sort=due', query: '?sort=due' }] : []),
  ];
  // Every view answers a full first page (the lane of 100: 50 items).
  for (const view of views) {
    const page = await call(r3.url, owner, 'GET', `/reviews${view.query}`, undefined, 200);
    const n = (page.reviews as unknown[]).length;
    if (n !== 50 || page.nextCursor === null) throw new Error(`${view.label}: a first page of ${n}`);
  }
  const measure = async (label: string, query: string, rows: LoadResult[], connections = CONNECTIONS) => {
    const target = `${r3.url}/api/v1/reviews${query}`;
    await load('warm-up', target, 4, { headers, duration: 1 });
    for (const c of connections) rows.push(await load(label, target, c, { headers }));
  };
  const rows: LoadResult[] = [];
  for (const view of views) await measure(view.label, view.query, rows);

  // Deciding: items from the end of the shuffled queue (lanes, snoozes and all), each decided once.
  const decisionRows: DecisionRow[] = [];
  let ledgerCost: { on: DecisionRow[]; off: DecisionRow[] } | null = null;
  if (PARTS.has('decide')) {
    const ledgerItems = LEDGER_ROWS * LEDGER_DECISIONS;
    const deciding = open.slice(-(SOLO + DECISIONS + ledgerItems + BATCHES * BATCH_SIZE));
    const take = (() => {
      let at = 0;
      return (n: number) => {
        const taken = deciding.slice(at, at + n);
        at += n;
        return taken;
      };
    })();
    decisionRows.push(
      await withCpu(r3, bench.url, () => reviewersDeciding(r3.url, reviewers.slice(0, 1), take(SOLO))),
      await withCpu(r3, bench.url, () => reviewersDeciding(r3.url, reviewers, take(DECISIONS))),
    );
    // The ledger's share of a decision: with and without its appends, alternating.
    ledgerCost = { on: [], off: [] };
    for (let i = 0; i < LEDGER_ROWS; i++) {
      const on = i % 2 === 0;
      // A row trigger that skips the row, not a `do instead nothing` rule: a statement prepared under
      // such a rule rewrites to no query at all, so PostgreSQL's plan cache keeps no dependency on the
      // table and the prepared insert (r3's ledger append is one) stays a no-op on that connection
      // after the rule is dropped — the escalations below then lost about 600 of 1,000 entries.
      if (!on) {
        await db.sql.query(
          `create or replace function bench_ledger_off() returns trigger language plpgsql as $$ begin return null; end $$;
           create trigger review_ledger_off before insert on review_ledger for each row execute function bench_ledger_off()`,
        );
      }
      const row = await withCpu(r3, bench.url, () =>
        reviewersDeciding(r3.url, reviewers, take(LEDGER_DECISIONS), on ? ', ledger' : ', no ledger'),
      );
      if (!on) await db.sql.query('drop trigger review_ledger_off on review_ledger');
      (on ? ledgerCost.on : ledgerCost.off).push(row);
      decisionRows.push(row);
    }
    decisionRows.push(
      await withCpu(r3, bench.url, () =>
        batchesDeciding(r3.url, owner, take(BATCHES * BATCH_SIZE), BATCH_SIZE),
      ),
    );
  }

  // What the lane index buys: the same lane views without it.
  const without: LoadResult[] = [];
  const plans: Record<string, Array<{ 'QUERY PLAN': string }>> = {};
  if (PARTS.has('views')) {
    const explain = (lane: string) =>
      db.sql.query<{ 'QUERY PLAN': string }>(
        `explain (analyze, buffers, costs off)
         select i.id from review_items i
          where i.org_id = (select id from orgs where slug = 'bench') and i.open and ${lane}
            and (i.snoozed_until is null or i.snoozed_until <= now())
          order by i.created_at, i.id limit 51`,
      );
    plans[`assignedTo=${LANE_USER}`] = await explain(`i.assigned_to = '${LANE_USER}'`);
    plans['assignedTo=unassigned'] = await explain('i.assigned_to is null');
    await db.sql.query('drop index review_items_lane');
    for (const view of views.slice(0, 2))
      await measure(`${view.label} — no lane index`, view.query, without, [1]);
  }

  // Escalations: a second process joins; the items' deadlines all fall in one second.
  let escalated: Awaited<ReturnType<typeof escalations>> | null = null;
  if (PARTS.has('escalate')) {
    const second = await spawnR3(bench.url, { R3_DB_POOL_SIZE: '20', R3_WORKER_CONCURRENCY: '16' });
    children.push(second);
    const started = monotonicUs();
    const sampling = SAMPLE ? sampleActivity(bench.url) : null;
    escalated = await escalations(
      escalating,
      [r3, second].map((c) => c.child.pid as number),
    );
    if (sampling) console.log(`\nwhat the sessions did during the escalations:\n${await sampling.stop()}`);
    if (SAMPLE) console.log(`window "escalations" ${started} ${monotonicUs()}`);
  }

  if (rows.length + without.length > 0) {
    printTable(
      `bench:reviews — ${DURATION_S}s per row; first pages (50 items) of a ${counts.open}-item queue; r3 in a child process`,
      [...rows, ...without],
    );
  }
  for (const [view, plan] of Object.entries(plans)) {
    console.log(`\nplan of the ${view} page (with the index):`);
    for (const line of plan) console.log(`  ${line['QUERY PLAN']}`);
  }
  if (decisionRows.length > 0) {
    printDecisionRows(decisionRows);
    const single = decisionRows[1] as DecisionRow;
    const batch = decisionRows.at(-1) as DecisionRow;
    console.log(
      `goal decide p99 < 100 ms: ${single.p99 < 100 ? 'met' : 'NOT met'}; decide-batch of ${BATCH_SIZE} p99 < 500 ms: ${batch.p99 < 500 ? 'met' : 'NOT met'}`,
    );
  }
  if (ledgerCost && ledgerCost.on.length > 0 && ledgerCost.off.length > 0) {
    const mean = (list: DecisionRow[], pick: (row: DecisionRow) => number) =>
      list.reduce((sum, row) => sum + pick(row), 0) / list.length;
    const p99 = mean(ledgerCost.on, (r) => r.p99) - mean(ledgerCost.off, (r) => r.p99);
    const p50 = mean(ledgerCost.on, (r) => r.p50) - mean(ledgerCost.off, (r) => r.p50);
    console.log(
      `ledger appends add to a decision (50 reviewers, mean of the alternating rows): p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (goal p99 < 5 ms: ${p99 < 5 ? 'met' : 'NOT met'})`,
    );
  }
  const sorted = rows.filter((r) => r.label === 'GET /reviews?sort=due');
  if (sorted.length > 0) {
    const worst = Math.max(...sorted.map((r) => r.p99));
    console.log(
      `goal GET /reviews?sort=due p99 < 50 ms over ${counts.due} open items with due times: ${worst < 50 ? 'met' : 'NOT met'} (worst ${worst.toFixed(2)} ms)`,
    );
  }
  if (escalated) {
    const { p50, p99, max } = percentiles(escalated.lateness);
    const perEscalation = (ms: number | null) => (ms === null ? '?' : (ms / ESCALATIONS).toFixed(2));
    console.log(
      `\nescalations: ${ESCALATIONS} items due in the second from ${escalated.dueSecond}, two r3 processes
recorded ${escalated.lateness.length}, missing ${escalated.missing}, recorded twice ${escalated.twice}
due time → escalation recorded: p50 ${p50.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${max.toFixed(0)} ms
CPU per escalation: r3 ${perEscalation(escalated.cpu.r3)} ms, PostgreSQL ${perEscalation(escalated.cpu.db)} ms; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}
goal every escalation within 2 s, none twice: ${escalated.missing === 0 && escalated.twice === 0 && max < 2000 ? 'met' : 'NOT met'}`,
    );
  }
  const viewRows = rows.filter((r) => r.label !== 'GET /reviews?sort=due');
  if (viewRows.length > 0) {
    const worst = Math.max(...viewRows.map((r) => r.p99));
    console.log(
      `\ngoal p99 < 20 ms: ${worst < 20 ? 'met' : 'NOT met'} (worst p99 with the index ${worst.toFixed(2)} ms)`,
    );
  }
} finally {
  await Promise.all(children.map((c) => c.stop()));
  await db.close();
  await bench.drop();
}
