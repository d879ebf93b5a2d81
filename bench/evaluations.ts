/**
 * `npm run bench:evaluations`: an evaluation of 100 reviewed runs on the echo provider (docs/api.md
 * "Evaluations"), and what it costs ordinary work running at the same time.
 *
 * 1. Evaluation throughput: 100 approved runs of a skill that requires approval, the skill changed,
 *    then `POST /skills/:slug/evaluations {last: 100}`; shadow runs per second from the evaluation's
 *    creation to its last shadow run's end (both r3's clock: `createdAt`, `completedAt`). Goal ≥ 50.
 * 2. Shadow work must not crowd out real work: `POST /skills/:slug/runs` of an ordinary skill offered
 *    at BENCH_ACCEPT_RATE (100) a second for BENCH_DURATION seconds (open loop: latency from each
 *    request's due time), once alone and once while evaluations of 100 runs follow one another for
 *    the whole row, then alone again (the two alone rows bracket the loaded one, so a drift of the
 *    shared machine shows). Goal: the accept p99 with evaluations within 20% of the rows without.
 * The r3 under test has its workers (they execute the ordinary runs and the shadow runs alike).
 */
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
const BODY = JSON.stringify({ input: { text: 'benchmark input' } });

interface Evaluation {
  evaluationId: number;
  status: string;
  createdAt: string;
  completedAt: string | null;
  summary: { total: number; changed: number; failed: number };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const db = await createBenchDatabase('evaluations');
  const r3 = await spawnR3(db.url);
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

    const evaluate = async (): Promise<Evaluation> => {
      const { evaluationId } = await call('POST', '/skills/reviewed/evaluations', { workspace, last: RUNS });
      for (;;) {
        const e = (await call('GET', `/evaluations/${evaluationId}`)) as Evaluation;
        if (e.status !== 'running') return e;
        await sleep(20);
      }
    };

    // 1. One evaluation alone.
    await checkpoint(db.url);
    const alone = await evaluate();
    const seconds = (Date.parse(alone.completedAt as string) - Date.parse(alone.createdAt)) / 1000;
    const perSecond = alone.summary.total / seconds;
    console.log('\nEvaluation of 100 runs (echo provider), alone');
    console.log(
      `  ${alone.summary.total} shadow runs in ${seconds.toFixed(2)} s: ${perSecond.toFixed(1)} runs/s (goal ≥ 50);` +
        ` status ${alone.status}, changed ${alone.summary.changed}, failed ${alone.summary.failed}`,
    );

    // 2. Ordinary accepts alone, with evaluations running back to back, alone again.
    const url = `${r3.url}/api/v1/skills/plain/runs`;
    const request = {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: BODY,
    };
    const rows: OpenLoadResult[] = [];
    await checkpoint(db.url);
    rows.push(await openLoad('accept, alone', url, RATE, request));
    await checkpoint(db.url);
    let running = true;
    let evaluated = 0;
    const background = (async () => {
      while (running) evaluated += (await evaluate()).summary.total;
    })();
    rows.push(await openLoad('accept, with evaluations', url, RATE, request));
    running = false;
    await background;
    await checkpoint(db.url);
    rows.push(await openLoad('accept, alone again', url, RATE, request));
    printTable(`Ordinary accepts at ${RATE}/s for ${DURATION_S} s (open loop)`, rows);
    const [before, loaded, after] = rows as [OpenLoadResult, OpenLoadResult, OpenLoadResult];
    const base = Math.max(before.p99, after.p99);
    console.log(
      `\n  shadow runs evaluated during the loaded row (and its tail): ${evaluated}` +
        `\n  accept p99 with evaluations ${loaded.p99.toFixed(2)} ms vs ${before.p99.toFixed(2)} / ${after.p99.toFixed(2)} ms without:` +
        ` ${((loaded.p99 / base - 1) * 100).toFixed(1)}% over the worse of the two (goal within 20%)`,
    );
  } finally {
    await r3.stop();
    await db.drop();
  }
}

await main();
