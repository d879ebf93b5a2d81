/**
 * `npm run bench:sync`: a crm source synced from the HubSpot-shaped server of the tests (in this
 * process, over a real socket) into `r3 serve` (a separate process): BENCH_SYNC_RECORDS deals
 * (default 50,000) paged 100 at a time through the objects search API, then the latency of
 * `get_crm_deals` over MCP (the official SDK client over HTTP) with a filter and two facets over them.
 * Goals: ≥ 2,000 records/s; domain query p99 < 30 ms.
 */
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { startFakeHubspot } from '../fakes/hubspot-server.js';
import { api, createBenchDatabase, createBenchToken, percentiles, spawnR3, unlimitOrg } from './lib.js';

const RECORDS = Number(process.env.BENCH_SYNC_RECORDS ?? 50_000);
const PAGE = Number(process.env.BENCH_SYNC_PAGE ?? 100);
const QUERIES = Number(process.env.BENCH_SYNC_QUERIES ?? 1_000);
const STAGES = [
  'appointmentscheduled',
  'qualifiedtobuy',
  'presentationscheduled',
  'contractsent',
  'closedwon',
  'closedlost',
];
const PIPELINES = ['default', 'enterprise', 'smb', 'partner'];
const OWNERS = Array.from({ length: 25 }, (_, i) => `owner-${i}`);

const fmt = (n: number, digits = 1) => n.toFixed(digits).padStart(9);
const hub = await startFakeHubspot();
const bench = await createBenchDatabase('sync');
let r3: Awaited<ReturnType<typeof spawnR3>> | null = null;
try {
  for (let i = 0; i < RECORDS; i++) {
    hub.add('deals', {
      dealname: `Deal ${i} with ${OWNERS[i % OWNERS.length]}`,
      amount: String(((i * 7919) % 100_000) + 100),
      dealstage: STAGES[(i * 31) % STAGES.length] as string,
      pipeline: PIPELINES[(i * 17) % PIPELINES.length] as string,
      closedate: new Date(Date.UTC(2025, i % 12, 1 + (i % 28))).toISOString(),
      hubspot_owner_id: OWNERS[(i * 13) % OWNERS.length] as string,
    });
  }
  const token = await createBenchToken(bench.url, ['read:all', 'write:resources', 'run:invoke']);
  await unlimitOrg(bench.url);
  r3 = await spawnR3(bench.url, { R3_CONNECTORS_ALLOW_PRIVATE: 'true' });
  const base = r3.url;
  await api(base, token, 'POST', '/api/v1/objects/types', { slug: 'deal', name: 'Deal' });
  await api(base, token, 'POST', '/api/v1/sources', {
    slug: 'hubspot',
    name: 'HubSpot',
    kind: 'crm',
    connection: {
      baseUrl: hub.url,
      pageSize: PAGE,
      properties: { deal: ['dealname', 'amount', 'dealstage', 'pipeline', 'closedate', 'hubspot_owner_id'] },
    },
    sync: { objectTypes: { deal: 'deal' } },
  });
  await api(base, token, 'PUT', '/api/v1/sources/hubspot/credentials', { accessToken: hub.token });
  await api(base, token, 'POST', '/api/v1/agents', {
    slug: 'sales',
    name: 'Sales',
    sourceSlugs: ['hubspot'],
  });

  console.log(`sync: ${RECORDS.toLocaleString('en')} deals from the HubSpot-shaped server, ${PAGE} per page`);
  const t0 = performance.now();
  const started = await api(base, token, 'POST', '/api/v1/sources/hubspot/sync', {});
  let sync = started;
  while (sync.status === 'running') {
    await new Promise((r) => setTimeout(r, 200));
    sync = await api(base, token, 'GET', `/api/v1/sources/hubspot/syncs/${started.syncId}`);
  }
  const wallS = (performance.now() - t0) / 1000;
  if (sync.status !== 'completed') throw new Error(`the sync ended ${sync.status}: ${sync.error}`);
  const jobS = (Date.parse(sync.completedAt) - Date.parse(sync.startedAt)) / 1000;
  const pages = hub.requests.filter((r) => r.path === '/crm/v3/objects/deals/search').length;
  console.log(
    `  created ${sync.created}, updated ${sync.updated}, skipped ${sync.skipped}, ${pages} search pages\n` +
      `  wall (request → completed seen) ${fmt(wallS, 2)} s → ${fmt(sync.created / wallS, 0)} records/s\n` +
      `  job (started → completed)       ${fmt(jobS, 2)} s → ${fmt(sync.created / jobS, 0)} records/s (goal ≥ 2,000)`,
  );

  // A full re-sync: every record read again and found unchanged (only its synced_at is written).
  const again = await api(base, token, 'POST', '/api/v1/sources/hubspot/sync', { full: true });
  let second = again;
  const t1 = performance.now();
  while (second.status === 'running') {
    await new Promise((r) => setTimeout(r, 200));
    second = await api(base, token, 'GET', `/api/v1/sources/hubspot/syncs/${again.syncId}`);
  }
  const fullS = (performance.now() - t1) / 1000;
  console.log(
    `  full re-sync of unchanged records: ${fmt(fullS, 2)} s → ${fmt(RECORDS / fullS, 0)} records/s ` +
      `(created ${second.created}, updated ${second.updated})`,
  );

  const db = new pg.Client({ connectionString: bench.url });
  await db.connect();
  const [{ n }] = (await db.query(`select count(*)::int as n from object_instances where type_slug = 'deal'`))
    .rows;
  await db.end();
  console.log(`  instances: ${n}`);

  const client = new Client({ name: 'bench-sync', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  const query = (i: number) => ({
    agent_slug: 'sales',
    filter: { dealstage: STAGES[i % STAGES.length] as string },
    facets: ['pipeline', 'hubspot_owner_id'],
    limit: 20,
  });
  for (let i = 0; i < 50; i++) await client.callTool({ name: 'get_crm_deals', arguments: query(i) });
  const samples: number[] = [];
  let checked = false;
  for (let i = 0; i < QUERIES; i++) {
    const t = performance.now();
    const result = await client.callTool({ name: 'get_crm_deals', arguments: query(i) });
    samples.push(performance.now() - t);
    if (result.isError) throw new Error(JSON.stringify(result.content));
    if (!checked) {
      const body = result.structuredContent as {
        total: number;
        facets: Record<string, Record<string, number>>;
      };
      const sum = Object.values(body.facets.pipeline ?? {}).reduce((a, b) => a + b, 0);
      console.log(
        `get_crm_deals {filter: {dealstage}, facets: [pipeline, hubspot_owner_id], limit: 20}: total ${body.total}, ` +
          `pipeline facet sums to ${sum}, ${Object.keys(body.facets.hubspot_owner_id ?? {}).length} owners`,
      );
      checked = true;
    }
  }
  await client.close();
  const p = percentiles(samples);
  console.log(
    `  ${QUERIES} calls over MCP (HTTP, one at a time): p50 ${fmt(p.p50, 2)} ms  p90 ${fmt(p.p90, 2)} ms  ` +
      `p99 ${fmt(p.p99, 2)} ms  max ${fmt(p.max, 2)} ms (goal p99 < 30 ms)`,
  );
} finally {
  await r3?.stop();
  await hub.close();
  if (process.env.BENCH_KEEP_DB === '1') console.log(`kept ${bench.url}`);
  else await bench.drop();
}
