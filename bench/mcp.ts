/**
 * `npm run bench:mcp`: MCP `tools/call` of `runtime_get_run` per second and its latency at 16
 * connections, beside `GET /api/v1/runs/:id` of the same run in the same r3 process and the same run of
 * this script, with every tool result checked against its output schema (`R3_MCP_VALIDATE_OUTPUT`, as
 * deployed; the goal, issue 41: MCP at ≥ 60% of REST's throughput). Each request is one stateless MCP
 * exchange. Rounds alternate REST and MCP (BENCH_ROUNDS, default 2) so drift on a shared machine hits
 * both.
 *
 * Then `resources/read` of a 1 MiB binary artifact (`r3://artifacts/<id>`, answered as a base64 blob:
 * about 1.4 MB of JSON) at 1 and at 4 connections (the goal, issue 41: p99 < 50 ms).
 *
 * Then, in this process and without a database, what a per-request server costs: r3's (the low-level
 * `Server` over the toolset's precomputed listing) against the naive `McpServer` with every tool
 * registered per request, each through a whole `tools/list` exchange on the web-standard transport.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import pg from 'pg';
import { dataTools } from '../src/features/objects/mcp-tools.js';
import { runtimeTools } from '../src/features/runs/mcp-tools.js';
import { workspaceTools } from '../src/features/workspace/mcp-tools.js';
import type { Principal } from '../src/platform/auth/principal.js';
import { createMcpServer } from '../src/platform/mcp/server.js';
import { createToolset } from '../src/platform/mcp/toolset.js';
import {
  api,
  type Child,
  completedRun,
  createBenchDatabase,
  createBenchSkill,
  createBenchToken,
  DURATION_S,
  type LoadResult,
  load,
  printTable,
  spawnR3,
  unlimitOrg,
} from './lib.js';

const CONNECTIONS = 16;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

/** An r3 with an unlimited token, a skill, and one completed run of it. */
async function prepare(databaseUrl: string): Promise<{ r3: Child; token: string; runId: number }> {
  const r3 = await spawnR3(databaseUrl, {
    R3_DB_POOL_SIZE: '20',
    R3_MCP_VALIDATE_OUTPUT: process.env.BENCH_VALIDATE_OUTPUT ?? 'true',
  });
  const token = await createBenchToken(databaseUrl, ['read:all', 'write:resources', 'run:invoke']);
  await unlimitOrg(databaseUrl);
  await createBenchSkill(r3.url, token, 'bench');
  return { r3, token, runId: await completedRun(r3.url, token, 'bench') };
}

/** CPU milliseconds (user + system) process `pid` has used, from /proc (null where there is none). */
async function cpuMs(pid: number | undefined): Promise<number | null> {
  if (pid === undefined) return null;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** The JSON-RPC body of one `tools/call` of `runtime_get_run`. */
function callBody(runId: number): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'runtime_get_run', arguments: { runId } },
  });
}

/** The bytes of the artifact `resources/read` reads: 1 MiB, not text (a blob). */
const ARTIFACT_BYTES = 1024 * 1024;

/**
 * Stores a 1 MiB binary artifact of org `bench` straight in the table (a request body is at most 1
 * MiB, so no tool can upload one this size; the read is what is measured). Answers its id and bytes.
 */
async function bigArtifact(databaseUrl: string): Promise<{ id: number; content: Buffer }> {
  const content = randomBytes(ARTIFACT_BYTES);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>(
      `insert into artifacts (org_id, name, media_type, bytes, sha256, content, created_by, created_at)
       select id, 'bench.bin', 'application/octet-stream', $1, $2, $3, 'bench', now() from orgs where slug = 'bench'
       returning id`,
      [content.byteLength, createHash('sha256').update(content).digest('hex'), content],
    );
    return { id: Number(rows[0]?.id), content };
  } finally {
    await client.end();
  }
}

/** The JSON-RPC body of one `resources/read` of `uri`. */
function readBody(uri: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri } });
}

/** Checks once that `resources/read` answers the artifact's bytes as a blob before loading it. */
async function checkRead(url: string, token: string, uri: string, content: Buffer): Promise<void> {
  const answer = (await api(url, token, 'POST', '/api/mcp', JSON.parse(readBody(uri)), MCP_HEADERS)) as {
    result?: { contents?: Array<{ uri: string; mimeType: string; blob?: string }> };
  };
  const blob = answer.result?.contents?.[0]?.blob;
  if (!blob || !Buffer.from(blob, 'base64').equals(content)) {
    throw new Error(`unexpected resources/read answer: ${JSON.stringify(answer).slice(0, 300)}`);
  }
}

/** Checks once that the MCP call answers the run (not an error result) before loading it. */
async function checkMcp(url: string, token: string, runId: number): Promise<void> {
  const answer = (await api(url, token, 'POST', '/api/mcp', JSON.parse(callBody(runId)), MCP_HEADERS)) as {
    result?: { isError?: boolean; structuredContent?: { id?: number } };
  };
  if (answer.result?.isError || answer.result?.structuredContent?.id !== runId) {
    throw new Error(`unexpected MCP answer: ${JSON.stringify(answer)}`);
  }
}

/** Per-request server cost in this process: `tools/list` exchanges per second, r3's way and the naive way. */
async function constructionCost(): Promise<
  Array<{ label: string; perSecond: number; microseconds: number }>
> {
  const noop = () => Promise.reject(new Error('not called'));
  const services = {
    log: { error() {}, warn() {} },
    bus: {},
    runs: { get: noop, list: noop },
    workspace: {},
    resources: {},
    objects: {},
    search: {},
  } as unknown as Parameters<typeof workspaceTools>[0] &
    Parameters<typeof runtimeTools>[0] &
    Parameters<typeof dataTools>[0];
  const tools = [
    ...workspaceTools(services),
    ...runtimeTools(services, { waitMs: 60_000 }),
    ...dataTools(services),
  ];
  const toolset = createToolset(tools, { httpAuthoring: true, log: services.log });
  const principal = {
    orgId: 1,
    orgSlug: 'bench',
    userId: 'bench',
    role: 'owner',
    scopes: new Set(),
    tokenId: null,
    actor: 'bench',
    rateLimit: { perMinute: null, burst: null },
  } as unknown as Principal;
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
  const request = () =>
    new Request('http://bench.local/api/mcp', {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'content-type': 'application/json' },
    });
  const variants: Array<{
    label: string;
    build: () => { connect(t: unknown): Promise<void>; close(): Promise<void> };
  }> = [
    {
      label: 'r3: Server over the precomputed toolset',
      build: () => createMcpServer(toolset, { principal, transport: 'http' }) as never,
    },
    {
      label: 'naive: McpServer, 18 tools registered',
      build: () => {
        const server = new McpServer({ name: 'r3', version: '0.1.0' });
        for (const tool of toolset.tools) {
          server.registerTool(
            tool.name,
            { description: tool.description, inputSchema: tool.input as never },
            noop as never,
          );
        }
        return server as never;
      },
    },
  ];
  const out: Array<{ label: string; perSecond: number; microseconds: number }> = [];
  for (const variant of variants) {
    const exchange = async () => {
      const server = variant.build();
      const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
      await server.connect(transport);
      const response = await transport.handleRequest(request(), { parsedBody: body });
      await response.text();
      await server.close();
    };
    for (let i = 0; i < 300; i++) await exchange();
    const n = 3_000;
    const started = performance.now();
    for (let i = 0; i < n; i++) await exchange();
    const seconds = (performance.now() - started) / 1000;
    out.push({ label: variant.label, perSecond: Math.round(n / seconds), microseconds: (seconds / n) * 1e6 });
  }
  return out;
}

const db = await createBenchDatabase('mcp');
let r3: Child | null = null;
try {
  const prepared = await prepare(db.url);
  r3 = prepared.r3;
  const { token, runId } = prepared;
  await checkMcp(r3.url, token, runId);
  const auth = { authorization: `Bearer ${token}` };
  const restUrl = `${r3.url}/api/v1/runs/${runId}`;
  const mcpUrl = `${r3.url}/api/mcp`;
  const mcpOptions = { method: 'POST', headers: { ...auth, ...MCP_HEADERS }, body: callBody(runId) };

  await load('warm-up REST', restUrl, CONNECTIONS, { headers: auth, duration: 2 });
  await load('warm-up MCP', mcpUrl, CONNECTIONS, { ...mcpOptions, duration: 2 });
  const rows: LoadResult[] = [];
  /** CPU time r3 spent per answered request during each row (µs), from /proc: robust to a busy machine. */
  const cpuPerRequest = new Map<LoadResult, number>();
  const measured = async (run: () => Promise<LoadResult>) => {
    const before = await cpuMs(r3?.child.pid);
    const row = await run();
    const after = await cpuMs(r3?.child.pid);
    if (before !== null && after !== null) {
      cpuPerRequest.set(row, ((after - before) * 1000) / Math.max(1, row.rps * DURATION_S));
    }
    rows.push(row);
  };
  for (let round = 1; round <= ROUNDS; round++) {
    await measured(() =>
      load(`REST GET /api/v1/runs/:id #${round}`, restUrl, CONNECTIONS, { headers: auth }),
    );
    await measured(() => load(`MCP runtime_get_run #${round}`, mcpUrl, CONNECTIONS, mcpOptions));
  }
  printTable(
    `bench:mcp — ${DURATION_S}s per row, ${CONNECTIONS} connections; r3 in a child process, load generator in this one`,
    rows,
    (row) => {
      const index = rows.indexOf(row);
      return row.label.startsWith('MCP') ? rows[index - 1] : undefined;
    },
  );
  const rest = rows.filter((r) => r.label.startsWith('REST'));
  const mcp = rows.filter((r) => r.label.startsWith('MCP'));
  const mean = (list: LoadResult[]) => list.reduce((sum, r) => sum + r.rps, 0) / list.length;
  console.log(
    `\nMCP/REST throughput over ${ROUNDS} round(s): ${((mean(mcp) / mean(rest)) * 100).toFixed(1)}% ` +
      `(REST ${Math.round(mean(rest))}/s, MCP ${Math.round(mean(mcp))}/s; output validation ${process.env.BENCH_VALIDATE_OUTPUT === 'false' ? 'off' : 'on'}; goal ≥ 60%)`,
  );
  if (cpuPerRequest.size === rows.length) {
    const cpu = (list: LoadResult[]) =>
      list.reduce((sum, r) => sum + (cpuPerRequest.get(r) ?? 0), 0) / list.length;
    console.log(
      `r3's CPU per request: REST ${cpu(rest).toFixed(0)} µs, MCP ${cpu(mcp).toFixed(0)} µs; ` +
        `CPU-bound MCP/REST capacity ${((cpu(rest) / cpu(mcp)) * 100).toFixed(1)}%`,
    );
  }

  const artifact = await bigArtifact(db.url);
  const uri = `r3://artifacts/${artifact.id}`;
  await checkRead(r3.url, token, uri, artifact.content);
  const readOptions = { method: 'POST', headers: { ...auth, ...MCP_HEADERS }, body: readBody(uri) };
  await load('warm-up resources/read', mcpUrl, 1, { ...readOptions, duration: 2 });
  const contentUrl = `${r3.url}/api/v1/artifacts/${artifact.id}/content`;
  const reads: LoadResult[] = [];
  for (const connections of [1, 4]) {
    // The same bytes from REST (raw, 1 MiB) beside it: what the machine allows at the time.
    reads.push(
      await load(`REST artifact content, ${connections} conn`, contentUrl, connections, { headers: auth }),
    );
    reads.push(await load(`MCP resources/read blob, ${connections} conn`, mcpUrl, connections, readOptions));
  }
  printTable(
    `resources/read of a 1 MiB binary artifact — ${DURATION_S}s per row (goal: p99 < 50 ms)`,
    reads,
    (row) => (row.label.startsWith('MCP') ? reads[reads.indexOf(row) - 1] : undefined),
  );

  console.log('\nper-request MCP server, in-process tools/list exchanges (no HTTP, no database):');
  for (const row of await constructionCost()) {
    console.log(
      `  ${row.label.padEnd(42)} ${String(row.perSecond).padStart(7)}/s  ${row.microseconds.toFixed(0)} µs each`,
    );
  }
} finally {
  await r3?.stop();
  await db.drop();
}
