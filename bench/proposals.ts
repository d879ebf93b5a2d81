/**
 * `npm run bench:proposals`: proposals end to end against `r3 serve` and a HubSpot-shaped server on
 * real sockets (docs/api.md "Proposals"). BENCH_PROPOSALS (500) `crm.update_deal` proposals are made over MCP
 * (`propose_action`, the SDK client, 8 in flight), then approved through `POST /reviews/decide`
 * (8 in flight) while the workers execute them. Prints the latency percentiles of a propose call
 * and of a decide call, the time from approval to the recorded execution (the proposal's own
 * timestamps: `review.at` → `completed_at`), executions per second, and checks that HubSpot saw
 * exactly one PATCH per proposal.
 *
 *   npm run bench:proposals            BENCH_PROPOSALS=500
 */
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { startFakeHubspot } from '../fakes/hubspot-server.js';
import { api, type Child, createBenchDatabase, createBenchToken, percentiles, spawnR3 } from './lib.js';

const N = Number(process.env.BENCH_PROPOSALS ?? 500);
const CONCURRENCY = 8;

/** Runs `task(i)` for i in [0, n) with at most `concurrency` in flight. */
async function pool(n: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) await task(next++);
    }),
  );
}

const fmt = (p: ReturnType<typeof percentiles>) =>
  `p50 ${p.p50.toFixed(1)} ms, p90 ${p.p90.toFixed(1)} ms, p99 ${p.p99.toFixed(1)} ms, max ${p.max.toFixed(1)} ms`;

const hub = await startFakeHubspot();
const deals = Array.from(
  { length: N },
  (_, i) => hub.add('deals', { dealname: `Deal ${i}`, dealstage: 'open' }).id,
);
const bench = await createBenchDatabase('proposals');
let server: Child | null = null;
const clients: Client[] = [];
try {
  server = await spawnR3(bench.url, { R3_CONNECTORS_ALLOW_PRIVATE: 'true', R3_RATE_LIMIT_PER_MIN: '0' });
  const base = server.url;
  const token = await createBenchToken(bench.url, [
    'read:all',
    'write:resources',
    'run:invoke',
    'run:approve',
  ]);
  await api(base, token, 'POST', '/api/v1/sources', {
    slug: 'hubspot',
    name: 'HubSpot',
    kind: 'crm',
    connection: { baseUrl: hub.url },
  });
  await api(base, token, 'PUT', '/api/v1/sources/hubspot/credentials', { accessToken: hub.token });
  await api(base, token, 'POST', '/api/v1/agents', {
    slug: 'closer',
    name: 'Closer',
    sourceSlugs: ['hubspot'],
  });
  for (let i = 0; i < CONCURRENCY; i++) {
    const client = new Client({ name: 'bench-proposals', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
  }

  const ids: number[] = new Array(N);
  const proposeMs: number[] = [];
  let started = performance.now();
  let worker = 0;
  await pool(N, CONCURRENCY, async (i) => {
    const client = clients[worker++ % clients.length] as Client;
    const t0 = performance.now();
    const result = await client.callTool({
      name: 'propose_action',
      arguments: {
        action: 'crm.update_deal',
        params: { dealId: deals[i], properties: { dealstage: 'closedwon' } },
        rationale: `Deal ${i} signed.`,
        agent_slug: 'closer',
      },
    });
    proposeMs.push(performance.now() - t0);
    if (result.isError) throw new Error(JSON.stringify(result.content));
    ids[i] = (result.structuredContent as { proposalId: number }).proposalId;
  });
  const proposeS = (performance.now() - started) / 1000;

  const decideMs: number[] = [];
  started = performance.now();
  await pool(N, CONCURRENCY, async (i) => {
    const t0 = performance.now();
    await api(base, token, 'POST', '/api/v1/reviews/decide?limit=1', {
      kind: 'action',
      id: ids[i],
      action: 'approve',
    });
    decideMs.push(performance.now() - t0);
  });
  const decideS = (performance.now() - started) / 1000;

  const db = new pg.Client({ connectionString: bench.url });
  await db.connect();
  for (;;) {
    const { rows } = await db.query<{ n: number }>(
      `select count(*)::int as n from proposals where status in ('pending', 'executing')`,
    );
    if (rows[0]?.n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { rows } = await db.query<{ status: string; ms: number; approved: Date; done: Date }>(
    `select status, extract(epoch from completed_at - (review->>'at')::timestamptz) * 1000 as ms,
            (review->>'at')::timestamptz as approved, completed_at as done
       from proposals`,
  );
  await db.end();
  const executed = rows.filter((r) => r.status === 'executed');
  const first = Math.min(...rows.map((r) => r.approved.getTime()));
  const last = Math.max(...rows.map((r) => r.done.getTime()));
  const patches = hub.requests.filter((r) => r.method === 'PATCH');
  const perDeal = new Map<string, number>();
  for (const p of patches) perDeal.set(p.path, (perDeal.get(p.path) ?? 0) + 1);

  console.log(`bench:proposals — ${N} crm.update_deal proposals, ${CONCURRENCY} in flight, one r3 serve`);
  console.log(`propose_action over MCP: ${(N / proposeS).toFixed(0)}/s, ${fmt(percentiles(proposeMs))}`);
  console.log(`decide approve over HTTP: ${(N / decideS).toFixed(0)}/s, ${fmt(percentiles(decideMs))}`);
  console.log(
    `approval → executed (recorded): ${fmt(percentiles(rows.map((r) => Number(r.ms))))}; ` +
      `${((executed.length / (last - first)) * 1000).toFixed(0)} executions/s`,
  );
  console.log(
    `executed ${executed.length}/${N}; HubSpot PATCHes ${patches.length} over ${perDeal.size} deals ` +
      `(max ${Math.max(...perDeal.values())} per deal)`,
  );
  if (executed.length !== N || patches.length !== N || perDeal.size !== N) process.exitCode = 1;
} finally {
  for (const client of clients) await client.close().catch(() => undefined);
  await server?.stop();
  await hub.close();
  await bench.drop();
}
