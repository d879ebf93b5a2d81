/**
 * `npm run bench:recovery`: crash recovery under load. BENCH_RUNS runs (default 1,000: every third a
 * three-step workflow, the rest skill runs) are accepted at a steady BENCH_RATE per second (default
 * 50), each with a webhook on `run.completed` to a local receiver; the model is a local
 * OpenAI-compatible server that answers after BENCH_MODEL_DELAY_MS (default 150), so steps take real
 * time and a kill always finds work in flight. While the runs are accepted, the r3 process is killed
 * with SIGKILL BENCH_KILLS times (default 3) at random moments (one in each equal slice of the
 * accepting window) and restarted at once.
 *
 * Modes (BENCH_MODES, comma list; default `memory,nats` when NATS answers at BENCH_NATS_URL, else
 * `memory`):
 * - `memory`: one node, in-process bus (no NATS_URL), restarted after each kill.
 * - `nats`: one node on NATS JetStream, restarted after each kill.
 * - `nats-2`: two nodes on NATS; the killed node is not restarted: the survivor must resume its work
 *   (a replacement node is started only once that happened, so the next kill again has a survivor).
 *
 * Each mode runs twice in fresh databases: the same load with no kills (the baseline), then with the
 * kills. Reported per kill: the jobs the dead process had claimed (`jobs.locked_by` naming its worker,
 * read right after it exited), the restart's spawn→listening time, and from the restart listening
 * (two nodes: from the kill) until the first and until the last of those jobs ran again — claimed by
 * a live worker or already completed (the `jobs` rows are polled every 20 ms, so a job that is claimed
 * and completed between two polls counts at the poll that sees it gone). Negative: before the
 * restart's "listening" line (its start-up sweep runs before it listens). p50/p99 over the kills.
 * Runs/s over the whole period (first run created → last run completed, from the `runs` rows) with
 * kills against without. Correctness: runs not completed at the end (lost), steps recorded twice
 * (`step_executions` rows per run and step), model calls repeated (a step whose result was not yet
 * recorded when its process died executes again: at-least-once, expected), and webhooks delivered
 * against expected (one per completed run): runs with no delivery (lost), and deliveries received
 * more than once (duplicates: the same `X-Service-Delivery` again, or a second delivery for a run).
 *
 * The API calls carry an `idempotencyKey`, and a call that fails because the process died is retried
 * until accepted, so every one of the BENCH_RUNS runs is created exactly once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import pg from 'pg';
import { type ChatBody, type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-server.js';
import { type Receiver, startReceiver } from '../fakes/webhook-receiver.js';
import {
  api,
  BENCH_NATS_URL,
  benchBusPrefix,
  createBenchDatabase,
  createBenchToken,
  natsAnswers,
  percentiles,
  R3_BIN,
  ROOT,
} from './lib.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 1_000);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const KILLS = Number(process.env.BENCH_KILLS ?? 3);
const MODEL_DELAY_MS = Number(process.env.BENCH_MODEL_DELAY_MS ?? 150);
const RECEIVER_DELAY_MS = Number(process.env.BENCH_RECEIVER_DELAY_MS ?? 100);
/** How long after the last run is accepted the bench waits for runs and webhooks to finish. */
const DRAIN_MS = Number(process.env.BENCH_DRAIN_S ?? 60) * 1000;
const SECRET = 'whsec_bench_recovery_0123456789abcdef';

type Mode = 'memory' | 'nats' | 'nats-2';

// ---------------------------------------------------------------------------------------------------
// The fake model and the webhook receiver (in this process).

interface ModelCall {
  /** `skill` for a skill run's step, else the workflow step's name. */
  step: string;
  run: number;
}

/** The last user message of a chat request. */
function promptOf(chat: ChatBody): string {
  return chat.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
}

/** An OpenAI-compatible model (fakes/) that answers `ok <prompt>` after MODEL_DELAY_MS. */
function startModel(): Promise<FakeOpenAI> {
  return startFakeOpenAI({
    delayMs: MODEL_DELAY_MS,
    chatContent: (chat) => `ok ${promptOf(chat).slice(0, 40)}`,
  });
}

/** The steps the model was asked to run, by the marker in their prompts (one per call). */
function modelCalls(model: FakeOpenAI): ModelCall[] {
  const calls: ModelCall[] = [];
  for (const request of model.requests) {
    if (request.path !== '/v1/chat/completions') continue;
    const marker = /(?:(s\d) )?run-(\d+)/.exec(promptOf(request.body as ChatBody));
    if (marker) calls.push({ step: marker[1] ?? 'skill', run: Number(marker[2]) });
  }
  return calls;
}

interface Receipt {
  deliveryId: string;
  runId: number;
  at: number;
}

/** The deliveries `receiver` got: id, run, when. */
function receipts(receiver: Receiver): Receipt[] {
  return receiver.received.items.map((r) => ({
    deliveryId: String(r.headers['x-service-delivery'] ?? ''),
    runId: Number(r.json?.data?.runId),
    at: r.at,
  }));
}

/** A webhook receiver (fakes/) that answers 204 after RECEIVER_DELAY_MS. */
async function startDelayedReceiver(): Promise<Receiver> {
  const receiver = await startReceiver({ delayMs: RECEIVER_DELAY_MS });
  receiver.respondWith(204, '');
  return receiver;
}

// ---------------------------------------------------------------------------------------------------
// r3 nodes that can be killed and restarted.

interface Node {
  url: string;
  child: ChildProcess;
  alive: boolean;
}

/** `r3 serve` on `env`; resolves once it listens (rejects if it exits first). */
function startNode(env: Record<string, string>): Promise<Node> {
  const child = spawn(process.execPath, [R3_BIN, 'serve'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      R3_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  let ready = false;
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`r3 serve exited with ${code}: ${out}`));
    child.once('exit', onExit);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (ready) return;
      out += chunk.toString();
      const match = /r3 listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        ready = true;
        child.off('exit', onExit);
        const node: Node = { url: match[1] as string, child, alive: true };
        child.once('exit', () => {
          node.alive = false;
        });
        resolve(node);
      }
    });
  });
}

async function killNode(node: Node): Promise<void> {
  node.alive = false;
  const exited = new Promise((resolve) => node.child.once('exit', resolve));
  node.child.kill('SIGKILL');
  await exited;
}

async function stopNode(node: Node): Promise<void> {
  if (node.child.exitCode !== null || node.child.signalCode !== null) return;
  const exited = new Promise((resolve) => node.child.once('exit', resolve));
  node.child.kill('SIGTERM');
  await exited;
}

// ---------------------------------------------------------------------------------------------------

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface KillRecord {
  heldJobs: number;
  kinds: string;
  /** Restart spawn → listening (ms); null with two nodes. */
  startMs: number | null;
  /** From the reference (restart listening, or the kill with two nodes) to the first / last job resumed. */
  firstMs: number | null;
  allMs: number | null;
  /** From the kill to the last job resumed (with one node: the restart's start-up included). */
  fromKillMs: number | null;
  /** Jobs still not resumed when the bench stopped waiting (15 s). */
  unresumed: number;
}

interface PhaseResult {
  runsPerSec: number;
  latency: { p50: number; p99: number; max: number };
  accepted: number;
  completed: number;
  failed: number;
  notFinished: number;
  stepsRecordedTwice: number;
  modelCallsRepeated: number;
  deliveriesExpected: number;
  deliveryRows: number;
  deliveryRowsPending: number;
  runsWithoutDelivery: number;
  /** Run completed → its first delivery received (ms). */
  webhookDelay: { p50: number; p99: number; max: number };
  /** Run completed → delivery row created (ms): the bus leg. */
  dispatchDelay: { p50: number; p99: number; max: number };
  /** Webhook attempts by outcome (`error`, else the HTTP status). */
  attempts: string;
  /** Deliveries with more than one attempt. */
  deliveriesRetried: number;
  /** Delivery rows created more than 5 s after their run completed. */
  dispatchLate: number;
  /** Deliveries received more than 5 s after their run completed. */
  webhooksLate: number;
  duplicateDeliveries: number;
  runsDeliveredTwice: number;
  kills: KillRecord[];
  seconds: number;
}

async function phase(mode: Mode, kills: number): Promise<PhaseResult> {
  const nodesWanted = mode === 'nats-2' ? 2 : 1;
  const db = await createBenchDatabase(`recovery_${mode.replace('-', '')}`);
  const bus = mode === 'memory' ? null : benchBusPrefix('recovery');
  const model = await startModel();
  const receiver = await startDelayedReceiver();
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    R3_RATE_LIMIT_PER_MIN: '0',
    R3_DB_POOL_SIZE: '20',
    R3_SECRET_KEY: 'bench-recovery-master-secret-0123456789abcdef',
    R3_WEBHOOK_ALLOW_PRIVATE: 'true',
    R3_MODEL_PROVIDER: 'openai',
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'sk-bench',
    ...(bus ? { NATS_URL: BENCH_NATS_URL, R3_BUS_PREFIX: bus.prefix } : {}),
  };
  const nodes: Node[] = [];
  const sql = new pg.Pool({ connectionString: db.url, max: 3 });
  // An idle connection the server ends is dropped by the pool; the next query opens another.
  sql.on('error', (error) => console.warn(`bench pool: ${error.message}`));
  try {
    for (let i = 0; i < nodesWanted; i++) nodes.push(await startNode(env));
    const token = await createBenchToken(db.url, ['read:all', 'write:resources', 'run:invoke']);
    const first = nodes[0] as Node;
    await api(first.url, token, 'POST', '/api/v1/skills', {
      manifest: { slug: 'note', name: 'Note' },
      promptMd: 'Note {{input.text}}',
    });
    await api(first.url, token, 'POST', '/api/v1/workflows', {
      slug: 'three',
      name: 'Three steps',
      steps: [
        { name: 's1', type: 'skill', skill: 'note', input: { text: 's1 {{input.text}}' } },
        {
          name: 's2',
          type: 'skill',
          skill: 'note',
          input: { text: 's2 {{input.text}} {{steps.s1.output.text}}' },
        },
        {
          name: 's3',
          type: 'skill',
          skill: 'note',
          input: { text: 's3 {{input.text}} {{steps.s2.output.text}}' },
        },
      ],
    });
    await api(first.url, token, 'POST', '/api/v1/webhooks', {
      url: `${receiver.url}/hook`,
      events: ['run.completed'],
      secret: SECRET,
    });

    // The steady load: run i is sent at t0 + i/RATE to a live node, and sent again (same idempotency
    // key) until it is accepted.
    let next = 0;
    const liveUrl = async (): Promise<string> => {
      for (;;) {
        const alive = nodes.filter((n) => n.alive);
        if (alive.length > 0) return (alive[next++ % alive.length] as Node).url;
        await sleep(10);
      }
    };
    let accepted = 0;
    const submit = async (i: number) => {
      const workflow = i % 3 === 0;
      const path = workflow ? '/api/v1/workflows/three/runs' : '/api/v1/skills/note/runs';
      const body = { input: { text: `run-${i}` }, idempotencyKey: `run-${i}` };
      for (let tries = 0; ; tries++) {
        try {
          await api(await liveUrl(), token, 'POST', path, body);
          accepted++;
          return;
        } catch (error) {
          if (tries > 600) throw error;
          await sleep(20);
        }
      }
    };
    const windowMs = (RUNS / RATE) * 1000;
    const t0 = performance.now();
    const submissions: Promise<void>[] = [];
    const load = (async () => {
      for (let i = 0; i < RUNS; i++) {
        const wait = t0 + (i * 1000) / RATE - performance.now();
        if (wait > 0) await sleep(wait);
        submissions.push(submit(i));
      }
      await Promise.all(submissions);
    })();

    // The kills: one at a random moment of each of `kills` equal slices of the window's middle 80%.
    const killRecords: KillRecord[] = [];
    const killer = (async () => {
      for (let k = 0; k < kills; k++) {
        const slice = (windowMs * 0.8) / kills;
        const at = t0 + windowMs * 0.1 + slice * k + Math.random() * slice * 0.7;
        const wait = at - performance.now();
        if (wait > 0) await sleep(wait);
        const alive = nodes.filter((n) => n.alive);
        const victim = alive[Math.floor(Math.random() * alive.length)] as Node;
        const pid = victim.child.pid as number;
        await killNode(victim);
        const killedAt = performance.now();
        const { rows: held } = await sql.query<{ id: string; kind: string; locked_by: string }>(
          `select id, kind, locked_by from jobs where locked_by like $1`,
          [`%:${pid}:%`],
        );
        const deadWorkers = new Set(held.map((r) => r.locked_by));
        const pending = new Set(held.map((r) => r.id));
        const resumedAt: number[] = [];
        // Poll until each held job is claimed by another worker or gone (completed).
        const watch = (async () => {
          const deadline = performance.now() + 15_000;
          while (pending.size > 0 && performance.now() < deadline) {
            const { rows } = await sql.query<{ id: string; locked_by: string | null }>(
              'select id, locked_by from jobs where id = any($1::bigint[])',
              [[...pending]],
            );
            const now = performance.now();
            const present = new Map(rows.map((r) => [r.id, r.locked_by]));
            for (const id of [...pending]) {
              const lockedBy = present.get(id);
              if (!present.has(id) || (lockedBy && !deadWorkers.has(lockedBy))) {
                pending.delete(id);
                resumedAt.push(now);
              }
            }
            if (pending.size > 0) await sleep(20);
          }
        })();
        let reference = killedAt;
        let startMs: number | null = null;
        if (nodesWanted === 1) {
          const spawnedAt = performance.now();
          const restarted = await startNode(env);
          nodes.push(restarted);
          reference = performance.now();
          startMs = reference - spawnedAt;
          await watch;
        } else {
          await watch;
          // A replacement, so the next kill again leaves a survivor (started only now: its start-up
          // sweep would otherwise do the survivor's work).
          nodes.push(await startNode(env));
        }
        const kinds = new Map<string, number>();
        for (const r of held) kinds.set(r.kind, (kinds.get(r.kind) ?? 0) + 1);
        killRecords.push({
          heldJobs: held.length,
          kinds: [...kinds].map(([kind, n]) => `${kind} ${n}`).join(', '),
          startMs,
          firstMs: resumedAt.length ? Math.min(...resumedAt) - reference : null,
          allMs: resumedAt.length && pending.size === 0 ? Math.max(...resumedAt) - reference : null,
          fromKillMs: resumedAt.length && pending.size === 0 ? Math.max(...resumedAt) - killedAt : null,
          unresumed: pending.size,
        });
      }
    })();
    await Promise.all([load, killer]);

    // Drain: until every run finished, every delivery row settled and every completed run's webhook
    // arrived — or, when some never arrive, until none arrived for QUIET_MS (past NATS's 30 s ack
    // wait, after which a bus message the dead process held is redelivered), or DRAIN_MS.
    const quietMs = mode === 'memory' ? 5_000 : 35_000;
    const deadline = performance.now() + DRAIN_MS;
    let quietSince = performance.now();
    let lastReceipts = -1;
    for (;;) {
      const { rows } = await sql.query<{
        unfinished: number;
        completed: number;
        pending: number;
        jobs: number;
      }>(
        `select (select count(*) from runs where status not in ('completed', 'failed', 'cancelled'))::int as unfinished,
                (select count(*) from runs where status = 'completed')::int as completed,
                (select count(*) from webhook_deliveries where api_status = 'pending')::int as pending,
                (select count(*) from jobs)::int as jobs`,
      );
      const row = rows[0] as { unfinished: number; completed: number; pending: number; jobs: number };
      if (receiver.received.items.length !== lastReceipts) {
        lastReceipts = receiver.received.items.length;
        quietSince = performance.now();
      }
      const runsDelivered = new Set(receipts(receiver).map((r) => r.runId)).size;
      const settled = row.unfinished === 0 && row.pending === 0 && row.jobs === 0;
      if (settled && (runsDelivered >= row.completed || performance.now() - quietSince > quietMs)) break;
      if (performance.now() > deadline) break;
      await sleep(200);
    }
    const seconds = (performance.now() - t0) / 1000;

    const { rows: runRows } = await sql.query<{
      id: number;
      status: string;
      created: Date;
      completed: Date | null;
    }>('select id::int, status, created_at as created, completed_at as completed from runs');
    const completedRuns = runRows.filter((r) => r.status === 'completed');
    const firstCreated = Math.min(...runRows.map((r) => r.created.getTime()));
    const lastCompleted = Math.max(...completedRuns.map((r) => (r.completed as Date).getTime()));
    const { rows: twice } = await sql.query<{ n: number }>(
      `select count(*)::int as n from (select run_id, step from step_executions group by 1, 2 having count(*) > 1) d`,
    );
    const { rows: deliveries } = await sql.query<{ n: number; pending: number }>(
      `select count(*)::int as n, count(*) filter (where api_status = 'pending')::int as pending from webhook_deliveries`,
    );
    // Run completed → its delivery row created: the outbox → bus → dispatcher leg alone.
    const { rows: dispatch } = await sql.query<{ ms: number }>(
      `select extract(epoch from (d.created_at - r.completed_at)) * 1000 as ms
         from webhook_deliveries d join runs r on r.id = (d.body::json -> 'data' ->> 'runId')::bigint`,
    );
    const { rows: attemptRows } = await sql.query<{ outcome: string; n: number }>(
      `select coalesce(error, response_status::text, 'none') as outcome, count(*)::int as n
         from webhook_attempts group by 1 order by 2 desc`,
    );
    const { rows: retried } = await sql.query<{ n: number }>(
      'select count(*)::int as n from webhook_deliveries where attempts > 1',
    );
    const callsPerStep = new Map<string, number>();
    const got = receipts(receiver);
    for (const c of modelCalls(model))
      callsPerStep.set(`${c.run}/${c.step}`, (callsPerStep.get(`${c.run}/${c.step}`) ?? 0) + 1);
    const deliveriesPerRun = new Map<number, Set<string>>();
    for (const r of got) {
      const set = deliveriesPerRun.get(r.runId) ?? new Set<string>();
      set.add(r.deliveryId);
      deliveriesPerRun.set(r.runId, set);
    }
    const firstReceipt = new Map<number, number>();
    for (const r of got) firstReceipt.set(r.runId, Math.min(firstReceipt.get(r.runId) ?? r.at, r.at));
    const webhookDelays = completedRuns
      .filter((r) => firstReceipt.has(r.id))
      .map((r) => (firstReceipt.get(r.id) as number) - (r.completed as Date).getTime());
    const distinctDeliveries = new Set(got.map((r) => r.deliveryId)).size;
    return {
      runsPerSec: completedRuns.length / ((lastCompleted - firstCreated) / 1000),
      latency: percentiles(completedRuns.map((r) => (r.completed as Date).getTime() - r.created.getTime())),
      accepted,
      completed: completedRuns.length,
      failed: runRows.filter((r) => r.status === 'failed').length,
      notFinished: RUNS - completedRuns.length,
      stepsRecordedTwice: twice[0]?.n ?? 0,
      modelCallsRepeated: [...callsPerStep.values()].filter((n) => n > 1).length,
      deliveriesExpected: completedRuns.length,
      deliveryRows: deliveries[0]?.n ?? 0,
      deliveryRowsPending: deliveries[0]?.pending ?? 0,
      runsWithoutDelivery: completedRuns.filter((r) => !deliveriesPerRun.has(r.id)).length,
      webhookDelay: percentiles(webhookDelays),
      dispatchDelay: percentiles(dispatch.map((d) => Number(d.ms))),
      attempts: attemptRows.map((a) => `${a.outcome} ${a.n}`).join(', '),
      deliveriesRetried: retried[0]?.n ?? 0,
      dispatchLate: dispatch.filter((d) => Number(d.ms) > 5_000).length,
      webhooksLate: webhookDelays.filter((d) => d > 5_000).length,
      duplicateDeliveries: got.length - distinctDeliveries,
      runsDeliveredTwice: [...deliveriesPerRun.values()].filter((s) => s.size > 1).length,
      kills: killRecords,
      seconds,
    };
  } finally {
    for (const node of nodes) await stopNode(node);
    await sql.end();
    await receiver.close();
    await model.close();
    await db.drop();
    await bus?.drop();
  }
}

const ms = (v: number | null) => (v === null ? 'n/a' : `${v.toFixed(0)} ms`);

function printPhase(label: string, r: PhaseResult): void {
  console.log(`\n  ${label} (${r.seconds.toFixed(1)} s)`);
  console.log(
    `    runs/s ${r.runsPerSec.toFixed(1)} (first created → last completed); created→completed p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, max ${r.latency.max} ms`,
  );
  console.log(
    `    runs: accepted ${r.accepted}/${RUNS}, completed ${r.completed}, failed ${r.failed}, lost (not completed at the end) ${r.notFinished}`,
  );
  console.log(
    `    steps recorded twice ${r.stepsRecordedTwice}; model calls repeated (step re-executed after a kill, at-least-once) ${r.modelCallsRepeated}`,
  );
  console.log(
    `    webhooks: expected ${r.deliveriesExpected}, delivery rows ${r.deliveryRows} (pending ${r.deliveryRowsPending}), ` +
      `runs with no delivery received (lost) ${r.runsWithoutDelivery}, same delivery received again ${r.duplicateDeliveries}, ` +
      `runs with two deliveries ${r.runsDeliveredTwice}`,
  );
  console.log(
    `    run completed → webhook received: p50 ${r.webhookDelay.p50} ms, p99 ${r.webhookDelay.p99} ms, max ${r.webhookDelay.max} ms; ` +
      `${r.webhooksLate} received more than 5 s after their run completed`,
  );
  console.log(
    `    run completed → delivery row created (outbox → bus → dispatcher): p50 ${r.dispatchDelay.p50.toFixed(0)} ms, ` +
      `p99 ${r.dispatchDelay.p99.toFixed(0)} ms, max ${r.dispatchDelay.max.toFixed(0)} ms; ${r.dispatchLate} created more than 5 s after`,
  );
  console.log(
    `    webhook attempts by outcome: ${r.attempts || 'none'}; deliveries attempted more than once ${r.deliveriesRetried}`,
  );
  r.kills.forEach((k, i) => {
    console.log(
      `    kill ${i + 1}: held ${k.heldJobs} jobs (${k.kinds || 'none'})` +
        (k.startMs !== null ? `; restart listening after ${ms(k.startMs)}` : '') +
        `; first resumed ${ms(k.firstMs)}, all resumed ${ms(k.allMs)}` +
        (k.startMs !== null ? ` (${ms(k.fromKillMs)} after the kill)` : '') +
        (k.unresumed ? `; ${k.unresumed} NOT resumed within 15 s` : ''),
    );
  });
  const all = r.kills.map((k) => k.allMs).filter((v): v is number => v !== null);
  if (all.length > 0) {
    const p = percentiles(all);
    const first = percentiles(r.kills.map((k) => k.firstMs).filter((v): v is number => v !== null));
    console.log(
      `    time until the dead process's work runs again, over ${all.length} kills: all of it p50 ${ms(p.p50)}, p99 ${ms(p.p99)}; first job p50 ${ms(first.p50)}, p99 ${ms(first.p99)}`,
    );
  }
}

const nats = await natsAnswers();
const modes = (process.env.BENCH_MODES ?? (nats ? 'memory,nats' : 'memory'))
  .split(',')
  .map((m) => m.trim()) as Mode[];
console.log(
  `bench:recovery — ${RUNS} runs (every third a three-step workflow) at ${RATE}/s, webhook on run.completed; ` +
    `model answers after ${MODEL_DELAY_MS} ms; ${KILLS} × kill -9 at random moments; modes ${modes.join(', ')}` +
    (nats ? ` (NATS at ${BENCH_NATS_URL})` : ' (NATS does not answer: in-process bus only)'),
);
for (const mode of modes) {
  if (mode !== 'memory' && !nats) {
    console.log(`\n${mode}: skipped, NATS does not answer at ${BENCH_NATS_URL}`);
    continue;
  }
  const title = {
    memory: 'one node, in-process bus, restarted at once after each kill (time from the restart listening)',
    nats: 'one node, NATS JetStream, restarted at once after each kill (time from the restart listening)',
    'nats-2': 'two nodes, NATS JetStream, the killed node not restarted (time from the kill)',
  }[mode];
  console.log(`\n${mode}: ${title}`);
  const base = await phase(mode, 0);
  printPhase('no kills', base);
  const killed = await phase(mode, KILLS);
  printPhase(`${KILLS} kills`, killed);
  console.log(
    `    runs/s with kills vs without: ${((killed.runsPerSec / base.runsPerSec) * 100).toFixed(1)}%`,
  );
}
