/**
 * Shared benchmark plumbing: a throwaway database, r3 (and baselines) as separate processes, a load
 * generator (autocannon) in this process, and result tables. Benchmarks print figures; they assert
 * nothing.
 */

import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { createR3Client, type R3Client } from '../client/index.js';
import { createNamespace } from '../src/platform/bus/namespace.js';
import { type LoadStats, runLoad, runOpenLoad } from './loadgen.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const R3_BIN = path.join(ROOT, 'bin/r3.js');
export const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);

export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh database on BENCH_DATABASE_URL's server (default: the local PostgreSQL on 5432). */
export async function createBenchDatabase(label: string): Promise<BenchDatabase> {
  const admin = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `r3_bench_${label}_${randomBytes(3).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface Child {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Spawns a server process and resolves when a stdout line matches `ready` (group 1 = its URL). `node`
 * is the Node.js binary to run it on (default: this one).
 */
export function spawnServer(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  node: string = process.execPath,
): Promise<Child> {
  // BENCH_NODE_ARGS go to the servers' node only (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(node, [...nodeArgs, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${out}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = ready.exec(out);
      if (match) {
        resolve({
          url: match[1] as string,
          child,
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
  });
}

/**
 * `r3 serve` on `databaseUrl` with extra env, on `node` (default: this Node); access logs off unless
 * BENCH_LOG_LEVEL says otherwise.
 */
export function spawnR3(
  databaseUrl: string,
  env: Record<string, string> = {},
  node?: string,
): Promise<Child> {
  return spawnServer(
    [R3_BIN, 'serve'],
    { DATABASE_URL: databaseUrl, PORT: '0', R3_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn', ...env },
    /r3 listening on (http:\/\/\S+)/,
    node,
  );
}

/** A Node.js binary of another major version (from the npm `node` package, cached in .cache/), or null. */
export function nodeBinary(major: number): string | null {
  try {
    return execFileSync('bash', [path.join(ROOT, 'ops/ci/node-bin.sh'), String(major)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
  } catch {
    return null;
  }
}

/** Runs the r3 CLI and returns stdout. */
export function r3Cli(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [R3_BIN, ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env } },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
    );
  });
}

/**
 * `r3 token create` for user `bench`, owner of org `org` (default `bench`; created on first use); the
 * plaintext token. Without `scopes`, the CLI's default scopes.
 */
export async function createBenchToken(
  databaseUrl: string,
  scopes?: readonly string[],
  org = 'bench',
): Promise<string> {
  const args = ['token', 'create', '--org', org, '--user', 'bench', '--role', 'owner', '--name', 'bench'];
  if (scopes) args.push('--scope', scopes.join(','));
  const created = JSON.parse(await r3Cli([...args, '--json'], { DATABASE_URL: databaseUrl })) as {
    token: string;
  };
  return created.token;
}

/**
 * One API call the way a client makes it (fetch, JSON); throws on a status of 300 or more. Answers
 * the parsed body (null when empty).
 */
export async function api(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** A typed r3 client (client/) for a benchmark's setup calls; throws on an error answer. */
export function benchClient(base: string, token: string): R3Client {
  const client = createR3Client({ baseUrl: base, token });
  client.use({
    async onResponse({ request, response }) {
      if (response.status >= 300) {
        throw new Error(
          `${request.method} ${new URL(request.url).pathname}: ${response.status} ${await response.clone().text()}`,
        );
      }
    },
  });
  return client;
}

/** Creates prompt skill `slug` (input `{text}`, echo provider) through the API. */
export async function createBenchSkill(base: string, token: string, slug: string): Promise<void> {
  await benchClient(base, token).POST('/api/v1/skills', {
    body: {
      manifest: {
        slug,
        name: slug,
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      },
      promptMd: 'Summarize: {{input.text}}',
    },
  });
}

/** Runs skill `slug` once and waits until the run is completed; its id. */
export async function completedRun(base: string, token: string, slug: string): Promise<number> {
  const r3 = benchClient(base, token);
  const { data } = await r3.POST('/api/v1/skills/{slug}/runs', {
    params: { path: { slug } },
    body: { input: { text: 'benchmark' } },
  });
  const runId = data?.runId as number;
  for (let i = 0; i < 200; i++) {
    const run = await r3.GET('/api/v1/runs/{id}', { params: { path: { id: String(runId) } } });
    if (run.data?.status === 'completed') return runId;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`run ${runId} of ${slug} did not complete`);
}

/**
 * `CHECKPOINT` on the database server of `url` (the benchmark's user is a superuser). A row that
 * starts right after one is not hit by a checkpoint that the WAL of earlier rows started: that
 * checkpoint would make the row's first writes of every page carry a full-page image, a cost that
 * lands on whichever row it happens to overlap.
 */
export async function checkpoint(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('checkpoint');
  } finally {
    await client.end();
  }
}

/** Lifts the rate limit of org `org` (`r3 org limits --unlimited`). */
export async function unlimitOrg(databaseUrl: string, org = 'bench'): Promise<void> {
  await r3Cli(['org', 'limits', '--org', org, '--unlimited'], { DATABASE_URL: databaseUrl });
}

export interface LoadResult {
  label: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  statuses: Record<number, number>;
}

/** What a load row sends: headers, method, body (or one per request), and seconds (default DURATION_S). */
export interface LoadRequest {
  headers?: Record<string, string>;
  method?: string;
  body?: string | (() => string);
  duration?: number;
}

/** The load generators' options for `url` and `request`. */
function generatorOptions(url: string, request: LoadRequest) {
  return {
    url,
    durationMs: (request.duration ?? DURATION_S) * 1000,
    ...(request.method ? { method: request.method } : {}),
    ...(request.headers ? { headers: request.headers } : {}),
    ...(request.body !== undefined ? { body: request.body } : {}),
  };
}

/** A table row of `label` from a load generator's figures. */
function resultOf(label: string, connections: number, stats: LoadStats): LoadResult {
  const ok = Object.entries(stats.statuses)
    .filter(([status]) => Number(status) < 300)
    .reduce((sum, [, n]) => sum + n, 0);
  return {
    label,
    connections,
    rps: stats.rps,
    p50: stats.p50,
    p99: stats.p99,
    errors: stats.errors,
    non2xx: stats.requests - ok,
    statuses: stats.statuses,
  };
}

/** Drives `url` with the closed-loop load generator for DURATION_S seconds. */
export async function load(
  label: string,
  url: string,
  connections: number,
  request: LoadRequest = {},
): Promise<LoadResult> {
  return resultOf(label, connections, await runLoad({ ...generatorOptions(url, request), connections }));
}

// The kernel's clock ticks per second (USER_HZ): 100 on Linux.
const TICKS_PER_S = 100;

/** The CPU time (ms) of process `pid` so far, all its threads — and of its thread `tid`; null off Linux. */
export function cpuMs(pid: number, tid?: number): number | null {
  const file = tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`;
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const fields = readFileSync(file, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S;
  } catch {
    return null;
  }
}

/**
 * The CPU time (ms) so far of the PostgreSQL backends connected to the database of `url` now (the
 * server on this machine; null when its processes cannot be read): what the statements of a
 * benchmark's r3 cost the server, apart from other databases' work. Read it at both ends of a
 * window in which the same connections stay open (a pool's).
 */
export async function databaseCpuMs(url: string): Promise<number | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    let total = 0;
    for (const { pid } of rows) {
      const ms = cpuMs(pid);
      if (ms === null) return null;
      total += ms;
    }
    return total;
  } finally {
    await client.end();
  }
}

/** What an open-loop row adds: the requests offered and the most connections it needed. */
export interface OpenLoadResult extends LoadResult {
  offered: number;
  rate: number;
}

/**
 * Offers requests to `url` at `rate` a second for DURATION_S seconds (open loop: latency from each
 * request's due time, see loadgen.ts); `connections` of the result is the most it had open.
 */
export async function openLoad(
  label: string,
  url: string,
  rate: number,
  request: LoadRequest = {},
): Promise<OpenLoadResult> {
  const stats = await runOpenLoad({ ...generatorOptions(url, request), rate });
  return { ...resultOf(label, stats.connections, stats), offered: stats.offered, rate };
}

/**
 * A headline figure of a benchmark, as `npm run bench:summary` records it in docs/performance.md's
 * opening table: what was measured (the row's key there), the goal, the value compared with the
 * record (`better`: which way is an improvement) and the figure as the table shows it.
 */
export interface Headline {
  what: string;
  goal: string;
  value: number;
  better: 'higher' | 'lower';
  /** The best a value can mean (a ratio of 1 where below 1 is no better): compared as it, if past it. */
  ideal?: number;
  /** The table's figure: starts with `value` as written, then what it was computed from. */
  figure: string;
}

/** Adds `headlines` to the JSON array in the file BENCH_JSON names (nothing without it). */
export function reportHeadlines(headlines: readonly Headline[]): void {
  const file = process.env.BENCH_JSON;
  if (!file) return;
  const earlier: Headline[] = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : [];
  writeFileSync(file, JSON.stringify([...earlier, ...headlines], null, 2));
}

/**
 * A share (0–1) with two decimals, for a headline's figure: rounded down, so a share just short of a
 * goal never reads as the goal (0.296 of INSERT is 0.29, not 0.30).
 */
export const share = (value: number): string => (Math.floor(value * 100 + 1e-9) / 100).toFixed(2);

/** Prints results as an aligned table, with each row's throughput as a share of `baseline`'s. */
export function printTable(
  title: string,
  rows: LoadResult[],
  baseline?: (row: LoadResult) => LoadResult | undefined,
): void {
  console.log(`\n${title}`);
  console.log(
    'label'.padEnd(34),
    'conns'.padStart(5),
    'req/s'.padStart(9),
    'p50 ms'.padStart(8),
    'p99 ms'.padStart(8),
    'non2xx'.padStart(7),
    ' vs baseline',
  );
  for (const row of rows) {
    const base = baseline?.(row);
    const ratio = base && base !== row ? `${((row.rps / base.rps) * 100).toFixed(1)}%` : '';
    console.log(
      row.label.padEnd(34),
      String(row.connections).padStart(5),
      String(row.rps).padStart(9),
      row.p50.toFixed(2).padStart(8),
      row.p99.toFixed(2).padStart(8),
      String(row.non2xx + row.errors).padStart(7),
      ` ${ratio}`,
      row.non2xx ? ` statuses ${JSON.stringify(row.statuses)}` : '',
    );
  }
}

export { percentiles } from './stats.js';

/** The NATS the NATS rows use (`BENCH_NATS_URL`). */
export const BENCH_NATS_URL = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';

/** Whether something accepts connections at `url` (NATS rows run only then). */
export async function natsAnswers(url: string = BENCH_NATS_URL): Promise<boolean> {
  const target = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(target.port || 4222), target.hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A bus prefix of its own for a benchmark's r3 on NATS; `drop()` deletes its stream afterwards. */
export function benchBusPrefix(label: string): { prefix: string; drop(): Promise<void> } {
  const prefix = `bench_${label}_${randomBytes(3).toString('hex')}`;
  return {
    prefix,
    async drop() {
      const nc = await connect({ servers: BENCH_NATS_URL });
      try {
        const jsm = await jetstreamManager(nc);
        await jsm.streams.delete(createNamespace(prefix).streamName).catch(() => undefined);
      } finally {
        await nc.close();
      }
    },
  };
}
