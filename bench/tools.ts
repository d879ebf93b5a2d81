/**
 * `npm run bench:tools`: the tool loop of skill runs end to end, and run_code's cold start.
 *
 * 1. One `r3 serve` (workers on, the `openai` provider pointed at a local OpenAI-compatible server in
 *    this process that answers at once) runs two skills on the same prompt in the same invocation:
 *    `plain` (no tools: one model call) and `tools` (a scripted two-call run: the model asks for
 *    run_code `1+1`, then run_code `2+2`, then answers — three model calls, two tool calls, each
 *    recorded before and after). BENCH_CONNECTIONS (default 8) clients each POST a run and poll it
 *    until it is completed, for BENCH_DURATION seconds per skill: runs completed per second and
 *    POST→completed latency.
 * 2. r3's own time per tool call: each step execution records where its time went
 *    (`step_executions.meta.timing`: stepMs, modelMs — inside the provider's `complete`, the HTTP
 *    round trip to the model server included — and toolMs — inside the tools). What is left,
 *    stepMs − modelMs − toolMs, is what r3 adds: rendering, the loop, recording each call (two
 *    transitions per call: TOOLS_REQUESTED, committed before the call executes, and TOOL_COMPLETED,
 *    committed while the next model request is already out), rebuilding the conversation. Printed per
 *    tool call for `tools`, and per step for `plain` beside it; `commit` is the part of it spent
 *    waiting for those commits (meta.timing.recordMs). The warm-up runs' calls are left out. Goal:
 *    p99 < 5 ms per call.
 * 3. run_code cold start, on new sandbox pools: the first call on a pool whose spare worker is ready
 *    (as r3's is: it warms the spare at start and starts another when one is taken), each call of a
 *    burst of BENCH_BURST (default 8) at once beyond that one spare (short scripts, and scripts that
 *    keep a worker busy for about 10 ms), and a call on a pool nobody warmed (a worker thread
 *    started for it, the process's compiled QuickJS WebAssembly module instantiated in it);
 *    and the process's first such call, which compiles the module as well. Goal: < 50 ms.
 */
import pg from 'pg';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-server.js';
import { Sandbox } from '../src/features/tools/sandbox.js';
import {
  api,
  createBenchDatabase,
  createBenchToken,
  DURATION_S,
  percentiles,
  spawnR3,
  unlimitOrg,
} from './lib.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const COLD_STARTS = Number(process.env.BENCH_COLD_STARTS ?? 30);
const BURST = Number(process.env.BENCH_BURST ?? 8);

/** The model: the tools skill's script (two run_code calls, then an answer), else an echo. */
function startModel(): Promise<FakeOpenAI> {
  return startFakeOpenAI({
    assistant(chat) {
      const answered = chat.messages.filter((m) => m.role === 'tool').length;
      if (!chat.tools || answered >= 2) return { content: `done: ${chat.messages.at(-1)?.content ?? ''}` };
      const code = answered === 0 ? '1+1' : '2+2';
      return {
        content: null,
        toolCalls: [
          {
            id: `call_${answered + 1}`,
            name: 'run_code',
            arguments: JSON.stringify({ language: 'javascript', code }),
          },
        ],
      };
    },
  });
}

interface RunsResult {
  slug: string;
  completed: number;
  rps: number;
  latencies: number[];
  failed: number;
}

/** Closed loop: each client POSTs a run of `slug` and polls it until it is over. */
async function drive(base: string, token: string, slug: string): Promise<RunsResult> {
  const latencies: number[] = [];
  let failed = 0;
  const end = performance.now() + DURATION_S * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const { runId } = await api(base, token, 'POST', `/api/v1/skills/${slug}/runs`, { input: { n: 1 } });
        for (;;) {
          const run = await api(base, token, 'GET', `/api/v1/runs/${runId}`);
          if (run.status === 'completed') break;
          if (run.status === 'failed') {
            failed++;
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return {
    slug,
    completed: latencies.length,
    rps: Math.round(latencies.length / elapsed),
    latencies,
    failed,
  };
}

/**
 * r3's own time per unit (tool call, or step for a skill without tools) of each execution of `slug`
 * in a run after run `after` (the last of the warm-up), and the part of it spent waiting for the
 * tool loop's records to commit.
 */
async function overheads(
  databaseUrl: string,
  slug: string,
  after: number,
): Promise<{ own: number[]; record: number[] }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{
      timing: { stepMs: number; modelMs: number; toolMs: number; recordMs?: number };
      calls: number;
    }>(
      `select s.meta->'timing' as timing, coalesce((s.meta->>'toolCalls')::int, 0) as calls
         from step_executions s join runs r on r.id = s.run_id
        where r.slug = $1 and r.id > $2 and s.error is null`,
      [slug, after],
    );
    const per = (r: (typeof rows)[number], ms: number) => ms / Math.max(1, r.calls);
    return {
      own: rows.map((r) => per(r, r.timing.stepMs - r.timing.modelMs - r.timing.toolMs)),
      record: rows.map((r) => per(r, r.timing.recordMs ?? 0)),
    };
  } finally {
    await client.end();
  }
}

/** Scripts of a burst: a short one, and one that keeps a worker busy for some milliseconds. */
const BURST_SCRIPTS = {
  short: '6*7',
  busy: 'let s = 0; for (let i = 0; i < 100000; i++) s += i; s',
} as const;

/** One script on `sandbox`, in ms from the call to the answer. */
async function timed(sandbox: Sandbox, code: string): Promise<number> {
  const t0 = performance.now();
  const outcome = await sandbox.run(code, 'null');
  const ms = performance.now() - t0;
  if (outcome.kind !== 'ok' || outcome.error) throw new Error(`run_code failed: ${JSON.stringify(outcome)}`);
  return ms;
}

interface ColdStarts {
  /** The process's first call on a pool nobody warmed: it also compiles the module. */
  first: number;
  /** A call on a new pool whose spare is ready (as r3's is once started): its first script. */
  spare: number[];
  /** A call on a new pool nobody warmed: a worker started for it, the module instantiated, the call. */
  unwarmed: number[];
  /** Each call of BURST at once on a new pool whose one spare is ready, by script. */
  burst: Record<keyof typeof BURST_SCRIPTS, number[]>;
}

async function coldStarts(): Promise<ColdStarts> {
  const unwarmedCall = async () => {
    const sandbox = new Sandbox();
    try {
      return await timed(sandbox, '1+1');
    } finally {
      await sandbox.close();
    }
  };
  // The process's first sandbox also compiles the QuickJS module, which later ones only instantiate
  // (r3 compiles it once, when it warms its spare at start).
  const first = await unwarmedCall();
  const result: ColdStarts = { first, spare: [], unwarmed: [], burst: { short: [], busy: [] } };
  for (let i = 0; i < COLD_STARTS; i++) {
    result.unwarmed.push(await unwarmedCall());
    const warmed = new Sandbox();
    await warmed.warm();
    result.spare.push(await timed(warmed, '6*7'));
    await warmed.close();
  }
  for (const [name, code] of Object.entries(BURST_SCRIPTS) as Array<[keyof typeof BURST_SCRIPTS, string]>) {
    for (let i = 0; i < Math.ceil(COLD_STARTS / 3); i++) {
      const sandbox = new Sandbox();
      await sandbox.warm();
      result.burst[name].push(
        ...(await Promise.all(Array.from({ length: BURST }, () => timed(sandbox, code)))),
      );
      await sandbox.close();
    }
  }
  return result;
}

const fmt = (ms: number) => ms.toFixed(2).padStart(8);

async function main(): Promise<void> {
  const model = await startModel();
  const db = await createBenchDatabase('tools');
  const token = await createBenchToken(db.url, ['read:all', 'write:resources', 'run:invoke']);
  await unlimitOrg(db.url);
  const r3 = await spawnR3(db.url, {
    R3_MODEL_PROVIDER: 'openai',
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'sk-bench',
    R3_MODEL: 'bench',
  });
  try {
    for (const [slug, tools] of [
      ['plain', undefined],
      ['tools', ['run_code']],
    ] as const) {
      await api(r3.url, token, 'POST', '/api/v1/skills', {
        manifest: { slug, name: slug, ...(tools ? { tools } : {}) },
        promptMd: 'Add {{input.n}}',
      });
    }
    // Warm-up: the first runs open the pool's connections and prepare the statements on them, and
    // start the sandbox's workers. Their calls are left out of r3's share below: they paid a
    // process's first minute, not a call's cost (with them, 1 client's p99 was theirs).
    let warmUpLast = 0;
    for (let i = 0; i < 5; i++) {
      const { runId } = await api(r3.url, token, 'POST', '/api/v1/skills/tools/runs', { input: { n: i } });
      warmUpLast = Math.max(warmUpLast, runId);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const results: RunsResult[] = [];
    for (const slug of ['plain', 'tools']) results.push(await drive(r3.url, token, slug));

    console.log(
      `\nbench:tools — ${CONNECTIONS} clients, ${DURATION_S} s per skill, one r3 process (2 cores shared)`,
    );
    console.log(
      'skill'.padEnd(8),
      'runs'.padStart(6),
      'runs/s'.padStart(7),
      'p50 ms'.padStart(8),
      'p99 ms'.padStart(8),
      'failed'.padStart(7),
    );
    for (const r of results) {
      const p = percentiles(r.latencies);
      console.log(
        r.slug.padEnd(8),
        String(r.completed).padStart(6),
        String(r.rps).padStart(7),
        fmt(p.p50),
        fmt(p.p99),
        String(r.failed).padStart(7),
      );
    }

    console.log('\nr3 overhead (stepMs - modelMs - toolMs): per tool call for `tools`, per step for `plain`');
    console.log(
      'skill'.padEnd(8),
      'samples'.padStart(8),
      'p50 ms'.padStart(8),
      'p90 ms'.padStart(8),
      'p99 ms'.padStart(8),
      'max ms'.padStart(8),
    );
    for (const slug of ['plain', 'tools']) {
      const { own, record } = await overheads(db.url, slug, warmUpLast);
      const rows: Array<[string, number[]]> = [[slug, own]];
      // Of r3's share: waiting for the records' commits (TOOLS_REQUESTED; a TOOL_COMPLETED that outlasts
      // the next model answer it overlaps).
      if (slug === 'tools') rows.push(['  commit', record]);
      for (const [label, samples] of rows) {
        const p = percentiles(samples);
        console.log(
          label.padEnd(8),
          String(samples.length).padStart(8),
          fmt(p.p50),
          fmt(p.p90),
          fmt(p.p99),
          fmt(p.max),
        );
      }
    }
  } finally {
    await r3.stop();
    await model.close();
    await db.drop();
  }

  const cold = await coldStarts();
  console.log(`\nrun_code cold start (${COLD_STARTS} new pools each; bursts of ${BURST} calls at once)`);
  console.log(
    'case'.padEnd(60),
    'p50 ms'.padStart(8),
    'p90 ms'.padStart(8),
    'p99 ms'.padStart(8),
    'max ms'.padStart(8),
  );
  const rows: Array<[string, number[]]> = [
    ['spare ready (as r3 at start): the first call', cold.spare],
    [`burst of ${BURST} beyond the one spare, short scripts: each call`, cold.burst.short],
    [`burst of ${BURST} beyond the one spare, ~10 ms scripts: each call`, cold.burst.busy],
    ['no spare (pool not warmed): new worker + module + the call', cold.unwarmed],
  ];
  for (const [label, samples] of rows) {
    const p = percentiles(samples);
    console.log(label.padEnd(60), fmt(p.p50), fmt(p.p90), fmt(p.p99), fmt(p.max));
  }
  console.log(
    `the process's first call on a pool not warmed (compiles the module too): ${cold.first.toFixed(2)} ms`,
  );
}

await main();
