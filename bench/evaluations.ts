/**
 * `npm run bench:evaluations`: an evaluation of 100 reviewed runs on the echo provider (docs/api.md
 * "Evaluations"), and what it costs ordinary work running at the same time.
 *
 * 1. Evaluation throughput: 100 approved runs of a skill that requires approval, the skill changed,
 *    then `POST /skills/:slug/evaluations {last: 100}`; shadow runs per second from the evaluation's
 *    creation to its last shadow run's end (both r3's clock: `createdAt`, `completedAt`). Goal ≥ 50.
 *    Measured BENCH_ROUNDS (3) times; the median is the figure.
 * 2. Shadow work must not crowd out real work: `POST /skills/:slug/runs` of an ordinary skill offered
 *    at BENCH_ACCEPT_RATE (100) a second for BENCH_DURATION seconds (open loop: latency from each
 *    request's due time), in BENCH_ROUNDS rounds of a row alone and a row while evaluations of 100
 *    runs follow one another for the whole row, and a last row alone (the rows alternate, so a drift
 *    of the shared machine falls on both sides alike). Goal: the median accept p99 of the rows with
 *    evaluations within 20% of the median of the rows without. The shadow runs' rate during the
 *    loaded rows (shadow runs that ended within the row's window) is printed too.
 * The r3 under test has its workers (they execute the ordinary runs and the shadow runs alike);
 * R3_SHADOW_RUN_RATE, when set, is passed to it. Each evaluation is polled every BENCH_POLL_MS (250)
 * until it ends: `GET /evaluations/:id` reads its 100 pairs, about 1.5 ms of r3's CPU each, and at
 * the 20 ms this bench polled at first those reads alone raised the accepts' p50 1.5–2.3× — a
 * client's load, not the shadow work's (docs/performance.md, "Evaluations"). The throughput is
 * taken from r3's clock, so the poll's pace does not change it.
 */
import pg from 'pg';
import {
  api,
  checkpoint,
  completedRun,
  createBenchDatabase,
  createBenchSkill,
  createBenchToken,
  DURATION_S,
  type OpenLoadResult,
  openLoad,
  printTable,
  spawnR3,
  unlimitOrg,
} from './lib.js';

const RUNS = 100;
const RATE = Number(process.env.BENCH_ACCEPT_RATE ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BODY = JSON.stringify({ input: { text: 'benchmark input' } });
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 250);

interface Evaluation {
  evaluationId: number;
  status: string;
  createdAt: string;
  completedAt: string | null;
  summary: { total: number; changed: number; failed: number };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
/** Shadow runs per second of an evaluation, from its creation to its last shadow run's end (r3's clock). */
const rateOf = (e: Evaluation): number =>
  e.summary.total / ((Date.parse(e.completedAt as string) - Date.parse(e.createdAt)) / 1000);

/** Shadow runs that ended in [from, to). */
async function shadowRunsEnded(url: string, from: Date, to: Date): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      'select count(*)::int as n from runs where shadow and completed_at >= $1 and completed_at < $2',
      [from, to],
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const db = await createBenchDatabase('evaluations');
  const r3 = await spawnR3(
    db.url,
    process.env.R3_SHADOW_RUN_RATE ? { R3_SHADOW_RUN_RATE: process.env.R3_SHADOW_RUN_RATE } : {},
  );
  try {
    const token = await createBenchToken(db.url, [
      'read:all',
      'write:resources',
      'run:invoke',
      'run:approve',
    ]);
    await unlimitOrg(db.url);
    const call = (method: string, path: string, body?: unknown) =>
      api(r3.url, token, method, `/api/v1${path}`, body);
    await createBenchSkill(r3.url, token, 'plain');
    await call('POST', '/skills', {
      manifest: { slug: 'reviewed', name: 'reviewed', requiresApproval: true },
      promptMd: 'Summarize: {{input.text}}',
    });
    // 100 reviewed runs: triggered, drafted by the workers, approved in one batch.
    const ids: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      ids.push((await call('POST', '/skills/reviewed/runs', { input: { text: `run ${i}` } })).runId);
    }
    for (;;) {
      const page = await call('GET', '/reviews?limit=100');
      if (page.reviews.filter((r: { summary: string | null }) => r.summary).length >= RUNS) break;
      await sleep(100);
    }
    await call('POST', '/reviews/decide-batch', {
      items: ids.map((id) => ({ kind: 'skill', id })),
      action: 'approve',
    });
    await call('PATCH', '/skills/reviewed', { promptMd: 'Sum up: {{input.text}}' });
    const probe = await completedRun(r3.url, token, 'plain');
    const workspace = (await call('GET', `/runs/${probe}`)).workspaceSha as string;

    /** Milliseconds each evaluation's POST took (its shadow runs are created before it answers). */
    const creations: number[] = [];
    const evaluate = async (): Promise<Evaluation> => {
      const posted = performance.now();
      const { evaluationId } = await call('POST', '/skills/reviewed/evaluations', { workspace, last: RUNS });
      creations.push(performance.now() - posted);
      for (;;) {
        const e = (await call('GET', `/evaluations/${evaluationId}`)) as Evaluation;
        if (e.status !== 'running') return e;
        await sleep(POLL_MS);
      }
    };

    // 1. Evaluations alone, one at a time.
    const alone: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      await checkpoint(db.url);
      const e = await evaluate();
      alone.push(rateOf(e));
      if (e.status !== 'completed' || e.summary.failed > 0)
        throw new Error(`evaluation ${JSON.stringify(e)}`);
    }
    console.log(`\nEvaluation of ${RUNS} runs (echo provider), alone, ${ROUNDS} times`);
    console.log(
      `  shadow runs/s: ${alone.map((r) => r.toFixed(1)).join(', ')}; median ${median(alone).toFixed(1)} (goal ≥ 50)` +
        `\n  POST /skills/:slug/evaluations (creates the ${RUNS} shadow runs): median ${median(creations).toFixed(1)} ms`,
    );

    // 2. Ordinary accepts alone and with evaluations running back to back, alternating; alone last
    // (BENCH_ACCEPT_RATE=0: part 1 only).
    if (RATE <= 0) return;
    const url = `${r3.url}/api/v1/skills/plain/runs`;
    const request = {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: BODY,
    };
    const without: OpenLoadResult[] = [];
    const withEvaluations: OpenLoadResult[] = [];
    const loadedRates: number[] = [];
    const row = async (label: string) => {
      await checkpoint(db.url);
      const result = await openLoad(label, url, RATE, request);
      without.push(result);
      return result;
    };
    const rows: OpenLoadResult[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      rows.push(await row(`accept, alone (${round})`));
      await checkpoint(db.url);
      let running = true;
      const background = (async () => {
        while (running) await evaluate();
      })();
      const from = new Date();
      const loaded = await openLoad(`accept, with evaluations (${round})`, url, RATE, request);
      const to = new Date();
      running = false;
      await background;
      withEvaluations.push(loaded);
      rows.push(loaded);
      loadedRates.push((await shadowRunsEnded(db.url, from, to)) / ((to.getTime() - from.getTime()) / 1000));
    }
    rows.push(await row(`accept, alone (${ROUNDS + 1})`));
    printTable(`Ordinary accepts at ${RATE}/s for ${DURATION_S} s (open loop), rows alternating`, rows);
    const p99Without = median(without.map((r) => r.p99));
    const p99With = median(withEvaluations.map((r) => r.p99));
    console.log(
      `\n  shadow runs/s while the accepts ran: ${loadedRates.map((r) => r.toFixed(1)).join(', ')}` +
        `\n  accept p99 median with evaluations ${p99With.toFixed(2)} ms vs ${p99Without.toFixed(2)} ms without:` +
        ` ${((p99With / p99Without - 1) * 100).toFixed(1)}% (goal within 20%);` +
        ` p50 ${median(withEvaluations.map((r) => r.p50)).toFixed(2)} vs ${median(without.map((r) => r.p50)).toFixed(2)} ms`,
    );
  } finally {
    await r3.stop();
    await db.drop();
  }
}

await main();
