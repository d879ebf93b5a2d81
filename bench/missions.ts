/**
 * `npm run bench:missions`: BENCH_MISSIONS (200) mission runs of five tasks in a diamond, started at
 * once on one `r3 serve` process, to completion.
 *
 * The diamond: t1 → (t2, t3, t4) → t5 over a team of three agents, maxParallel 3. Tasks run a skill on
 * the `echo` provider. The planner is a model (a tiny OpenAI-compatible server in this process answers
 * every planner prompt with the diamond): with the echo provider alone the planner makes one task per
 * member in a chain, not a diamond. Each mission waits for its result review, which this benchmark
 * approves through `POST /reviews/decide` as soon as it shows in the queue.
 *
 * BENCH_WORKERS sets the r3's worker slots (R3_WORKER_CONCURRENCY; default 32, r3's own default).
 * BENCH_WARMUP (default 0) missions run first, unmeasured, on the same process: the measured round
 * then runs on code V8 has already compiled (a fresh process spends a quarter of its CPU in the burst
 * compiling: docs/performance.md, Missions).
 *
 * Reported: missions/s from the first start to the last completion (goal ≥ 20/s) and to the last
 * result review; the scheduling delay — from a task's last dependency finishing (its run's
 * `completed_at`) to the task starting (its run's first step execution's `started_at`: claimed by a
 * worker) — p50/p90/p99/max (goal p99 < 50 ms), and the part of it until the task's run was created;
 * a mission's start to its first task starting; tasks started twice (must be 0); and the commits of
 * the round that took long (`r3_db_commit_duration_seconds`, read from r3's /metrics): a task starts
 * once its hand-over has committed, and every commit in flight waits out a slow flush of the disk
 * (docs/performance.md, Missions).
 *
 * BENCH_SYNCHRONOUS_COMMIT=off runs the bench database with PostgreSQL's `synchronous_commit = off`
 * (commits not waiting for the disk), for diagnosis only: it shows what the disk's flushes cost the
 * delay; r3 itself never runs so (a crash of PostgreSQL could lose commits r3 acted on).
 */
import pg from 'pg';
import { startFakeOpenAI } from '../fakes/openai-server.js';
import {
  api,
  cpuMs,
  createBenchDatabase,
  createBenchToken,
  percentiles,
  reportHeadlines,
  spawnR3,
} from './lib.js';

const MISSIONS = Number(process.env.BENCH_MISSIONS ?? 200);
// Worker slots of the r3 under test (R3_WORKER_CONCURRENCY): the default, 32, unless BENCH_WORKERS says
// otherwise (docs/performance.md, Missions: the delay against the slots).
const WORKERS = process.env.BENCH_WORKERS ?? '32';
// Missions run first, unmeasured, on the same process (BENCH_WARMUP; 0 measures a process started cold).
const WARMUP = Number(process.env.BENCH_WARMUP ?? 0);

const diamond = JSON.stringify({
  tasks: [
    { id: 't1', title: 'Frame', agent: 'alpha', skill: 'step', instructions: 'Frame it', dependsOn: [] },
    { id: 't2', title: 'Part A', agent: 'beta', skill: 'step', instructions: 'Part A', dependsOn: ['t1'] },
    { id: 't3', title: 'Part B', agent: 'gamma', skill: 'step', instructions: 'Part B', dependsOn: ['t1'] },
    { id: 't4', title: 'Part C', agent: 'alpha', skill: 'step', instructions: 'Part C', dependsOn: ['t1'] },
    {
      id: 't5',
      title: 'Merge',
      agent: 'beta',
      skill: 'step',
      instructions: 'Merge',
      dependsOn: ['t2', 't3', 't4'],
    },
  ],
});

// The planner's model: every chat completion answers the diamond.
const model = await startFakeOpenAI({ chatContent: () => diamond });
const modelUrl = model.baseUrl;

const bench = await createBenchDatabase('missions');
const SYNCHRONOUS_COMMIT = process.env.BENCH_SYNCHRONOUS_COMMIT;
if (SYNCHRONOUS_COMMIT !== undefined) {
  // For diagnosis (see above): the database's sessions, r3's included, start with this setting.
  if (!['on', 'off'].includes(SYNCHRONOUS_COMMIT)) throw new Error('BENCH_SYNCHRONOUS_COMMIT: on or off');
  const admin = new pg.Client({ connectionString: bench.url });
  await admin.connect();
  await admin.query(
    `alter database ${pg.escapeIdentifier(new URL(bench.url).pathname.slice(1))} set synchronous_commit = ${SYNCHRONOUS_COMMIT}`,
  );
  await admin.end();
}
const server = await spawnR3(bench.url, {
  R3_RATE_LIMIT_PER_MIN: '0',
  R3_MODEL_PROVIDER: 'openai',
  OPENAI_BASE_URL: modelUrl,
  OPENAI_API_KEY: 'bench',
  R3_MODEL: 'planner',
  R3_WORKER_CONCURRENCY: WORKERS,
});
const base = server.url;
const db = new pg.Client({ connectionString: bench.url });
await db.connect();

const ms = (n: number) => `${n.toFixed(1)} ms`;

/**
 * The r3 process's CPU time so far, in ms (Linux: /proc; null elsewhere): all its threads, and its main
 * thread (the event loop) alone.
 */
function cpuOfR3(): { process: number; main: number } | null {
  const pid = server.child.pid as number;
  const all = cpuMs(pid);
  const main = cpuMs(pid, pid);
  return all === null || main === null ? null : { process: all, main };
}

/** r3's commits so far by time (`r3_db_commit_duration_seconds`): the count at or under each bound (s). */
async function commitTimes(): Promise<Map<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const counts = new Map<string, number>();
  for (const match of text.matchAll(/^r3_db_commit_duration_seconds_bucket\{le="([^"]+)"\} (\d+)$/gm)) {
    counts.set(match[1] as string, Number(match[2]));
  }
  return counts;
}

/**
 * Starts `count` missions at once and approves each result review as it shows up, until every one is
 * over: their ids, and the seconds until all were started, all were at review and all were over.
 */
async function round(
  token: string,
  count: number,
): Promise<{ ids: number[]; startedAll: number; reviewedAll: number; total: number }> {
  const started = performance.now();
  const ids = await Promise.all(
    Array.from({ length: count }, (_, n) =>
      api(base, token, 'POST', '/api/v1/mission-runs', { missionSlug: 'diamond', input: { n } }).then(
        (a: { missionRunId: number }) => a.missionRunId,
      ),
    ),
  );
  const startedAll = (performance.now() - started) / 1000;

  // Approve each result review as it shows up; stop when every run is over.
  const approved = new Set<number>();
  let reviewedAll = 0;
  const deadline = Date.now() + 300_000;
  for (;;) {
    const counts = await db.query<{ status: string; n: number }>(
      `select status, count(*)::int as n from mission_runs where id = any($1::bigint[]) group by status`,
      [ids],
    );
    const by = Object.fromEntries(counts.rows.map((r) => [r.status, r.n]));
    const over = (by.completed ?? 0) + (by.failed ?? 0) + (by.cancelled ?? 0);
    if (over >= count || Date.now() > deadline) break;
    const waiting = await db.query<{ id: number }>(
      `select id from mission_runs where status = 'awaiting_review' and id = any($1::bigint[]) order by id`,
      [ids],
    );
    const todo = waiting.rows.map((r) => Number(r.id)).filter((id) => !approved.has(id));
    if (approved.size + todo.length >= count && reviewedAll === 0) {
      reviewedAll = (performance.now() - started) / 1000;
    }
    await Promise.all(
      todo.map(async (id) => {
        approved.add(id);
        await api(base, token, 'POST', '/api/v1/reviews/decide', { kind: 'mission', id, action: 'approve' });
      }),
    );
    if (todo.length === 0) await new Promise((r) => setTimeout(r, 20));
  }
  const total = (performance.now() - started) / 1000;
  return { ids, startedAll, reviewedAll, total };
}

try {
  const token = await createBenchToken(bench.url, [
    'read:all',
    'write:resources',
    'run:invoke',
    'run:approve',
  ]);
  await api(base, token, 'POST', '/api/v1/skills', {
    manifest: { slug: 'step', name: 'Step', model: { provider: 'echo' } },
    promptMd: '{{input.title}}: {{input.instructions}} after {{input.dependencies}}',
  });
  for (const slug of ['alpha', 'beta', 'gamma']) {
    await api(base, token, 'POST', '/api/v1/agents', { slug, name: slug, skillSlugs: ['step'] });
  }
  await api(base, token, 'POST', '/api/v1/missions', {
    slug: 'diamond',
    name: 'Diamond',
    goal: 'Bench {{input.n}}',
    team: [{ agent: 'alpha' }, { agent: 'beta' }, { agent: 'gamma' }],
    limits: { maxParallel: 3 },
  });

  // The warm-up round (not measured): the same missions, so that the measured round runs on a process
  // whose hot paths V8 has compiled, as a server's are after its first minutes.
  if (WARMUP > 0) {
    const warm = await round(token, WARMUP);
    console.log(
      `warm-up: ${WARMUP} missions in ${warm.total.toFixed(2)} s (${(WARMUP / warm.total).toFixed(1)} missions/s), not measured`,
    );
  }
  const commitsBefore = await commitTimes();
  const cpuBefore = cpuOfR3();
  const { ids, startedAll, reviewedAll, total } = await round(token, MISSIONS);
  const cpuAfter = cpuOfR3();
  const commitsAfter = await commitTimes();
  const commits = (le: string) => (commitsAfter.get(le) ?? 0) - (commitsBefore.get(le) ?? 0);

  const outcome = await db.query<{ status: string; n: number }>(
    `select status, count(*)::int as n from mission_runs where id = any($1::bigint[]) group by status`,
    [ids],
  );
  // Scheduling delay: from the latest completion among a task's dependencies' runs to the task
  // starting — its run's first step execution starting (claimed by a worker, about to call the
  // model) — and, for where the time goes, to its run being created.
  const delays = await db.query<{ task: string; created: number; started: number }>(
    `with tasks as (
       select m.id as mission, t.value ->> 'id' as task, t.value -> 'dependsOn' as deps
         from mission_runs m, json_array_elements(m.plan -> 'tasks') t
        where m.id = any($1::bigint[])),
     ready as (
       select r.id, r.mission_task_id as task, r.created_at, max(d.completed_at) as ready_at
         from tasks
         join runs r on r.mission_run_id = tasks.mission and r.mission_task_id = tasks.task
         join json_array_elements_text(tasks.deps) dep(id) on true
         join runs d on d.mission_run_id = tasks.mission and d.mission_task_id = dep.id
        group by r.id, r.mission_task_id, r.created_at)
     select ready.task, extract(epoch from (ready.created_at - ready.ready_at)) * 1000 as created,
            extract(epoch from ((select min(s.started_at) from step_executions s where s.run_id = ready.id)
                                - ready.ready_at)) * 1000 as started
       from ready`,
    [ids],
  );
  // Where the wait goes instead: a mission's start to its first task starting (planning included).
  const firsts = await db.query<{ ms: number }>(
    `select extract(epoch from (min(s.started_at) - m.created_at)) * 1000 as ms
       from mission_runs m
       join runs r on r.mission_run_id = m.id and r.mission_task_id = 't1'
       join step_executions s on s.run_id = r.id
      where m.id = any($1::bigint[])
      group by m.id, m.created_at`,
    [ids],
  );
  const twice = await db.query<{ n: number }>(
    `select count(*)::int as n from (
       select mission_run_id, mission_task_id from runs where mission_run_id = any($1::bigint[])
        group by 1, 2 having count(*) > 1) x`,
    [ids],
  );
  const p = percentiles(delays.rows.map((r) => Number(r.started)));
  const c = percentiles(delays.rows.map((r) => Number(r.created)));
  console.log(
    `\n${MISSIONS} missions of 5 tasks in a diamond (t1 → t2, t3, t4 → t5), maxParallel 3, echo tasks, ${WORKERS} worker slots`,
  );
  console.log(`  started (202) in ${startedAll.toFixed(2)} s`);
  console.log(`  outcome: ${outcome.rows.map((r) => `${r.n} ${r.status}`).join(', ')}`);
  if (reviewedAll > 0) {
    console.log(
      `  every task done (all at result review) after ${reviewedAll.toFixed(2)} s: ${(MISSIONS / reviewedAll).toFixed(1)} missions/s`,
    );
  }
  console.log(
    `  completed (result review approved) after ${total.toFixed(2)} s: ${(MISSIONS / total).toFixed(1)} missions/s (goal ≥ 20)`,
  );
  console.log(
    `  scheduling delay (last dependency finished → task's first step started), ${delays.rows.length} tasks: p50 ${ms(p.p50)}, p90 ${ms(p.p90)}, p99 ${ms(p.p99)} (goal < 50 ms), max ${ms(p.max)}`,
  );
  console.log(
    `    of which to the task's run created: p50 ${ms(c.p50)}, p90 ${ms(c.p90)}, p99 ${ms(c.p99)}, max ${ms(c.max)}`,
  );
  // The same by task: t2–t4 wait on t1's report (one task's), t5 on the last of theirs.
  for (const [label, tasks] of [
    ['t2–t4 (after t1)', ['t2', 't3', 't4']],
    ['t5 (after t2, t3, t4)', ['t5']],
  ] as const) {
    const rows = delays.rows.filter((r) => (tasks as readonly string[]).includes(r.task));
    const s = percentiles(rows.map((r) => Number(r.started)));
    const k = percentiles(rows.map((r) => Number(r.created)));
    console.log(
      `    ${label}: p50 ${ms(s.p50)}, p99 ${ms(s.p99)}; to the run created p50 ${ms(k.p50)}, p99 ${ms(k.p99)}`,
    );
  }
  const f = percentiles(firsts.rows.map((r) => Number(r.ms)));
  console.log(
    `  mission started → its first task started (planning included): p50 ${ms(f.p50)}, p90 ${ms(f.p90)}, p99 ${ms(f.p99)}, max ${ms(f.max)}`,
  );
  console.log(`  tasks started twice: ${twice.rows[0]?.n ?? 0}`);
  if (cpuBefore && cpuAfter) {
    const perMission = (key: 'process' | 'main') => ((cpuAfter[key] - cpuBefore[key]) / MISSIONS).toFixed(1);
    console.log(
      `  r3's CPU per mission: ${perMission('process')} ms, of which its main thread ${perMission('main')} ms (the rest: V8's compiler and GC threads, libuv's)`,
    );
  }
  reportHeadlines([
    {
      what: `missions/s (${MISSIONS} five-task diamonds at once, ${WARMUP ? `after ${WARMUP} warm-up` : 'cold process'})`,
      goal: '≥ 20',
      value: MISSIONS / total,
      better: 'higher',
      figure: `${(MISSIONS / total).toFixed(1)}/s`,
    },
    {
      what: 'mission task scheduling delay p99',
      goal: '< 50 ms',
      value: p.p99,
      better: 'lower',
      figure: `${p.p99.toFixed(1)} ms (p50 ${p.p50.toFixed(1)} ms)`,
    },
  ]);
  const all = commits('+Inf');
  console.log(
    `  commits of the round: ${all}; over 50 ms ${all - commits('0.05')}, over 100 ms ${all - commits('0.1')}, over 250 ms ${all - commits('0.25')}, over 1 s ${all - commits('1')} (COMMIT sent → answer read: the disk's flush of the WAL, and r3's loop; synchronous_commit ${SYNCHRONOUS_COMMIT ?? "the server's"})`,
  );
} finally {
  await db.end();
  await server.stop();
  await bench.drop();
  await model.close();
}
