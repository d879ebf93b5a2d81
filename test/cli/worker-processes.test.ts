/**
 * `r3 serve` with worker processes (R3_WORKER_PROCESSES, issue 37): the serving process answers
 * requests only, its `r3 work` children execute the jobs, relay its outbox and dispatch the webhooks at a lower CPU
 * priority, a child that dies is replaced, and the children go with their parent — by SIGTERM or by
 * `kill -9`. The real binary, on NATS and PostgreSQL.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { deleteTestStreams, probeNats, randomTestPrefix, requireNats } from '../helpers/nats.js';
import {
  createCliToken,
  runCli,
  type ServeProcess,
  spawnServe,
  TEST_SECRET_KEY,
} from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';

/** Creates the `echo` skill the runs of these tests use. */
async function createEchoSkill(url: string, token: string): Promise<void> {
  const skill = await request(url, 'POST', '/api/v1/skills', {
    token,
    body: { manifest: { slug: 'echo', name: 'Echo' }, promptMd: 'Echo: {{input.text}}' },
  });
  expect(skill.status, skill.text).toBe(201);
}

/** Starts an `echo` run and waits until it completed; its id. */
async function runCompleted(url: string, token: string, text: string): Promise<number> {
  const res = await request(url, 'POST', '/api/v1/skills/echo/runs', { token, body: { input: { text } } });
  expect(res.status, res.text).toBe(202);
  const runId = res.body.runId as number;
  await waitFor(
    async () => (await request(url, 'GET', `/api/v1/runs/${runId}`, { token })).body.status === 'completed',
    `run ${runId} completed`,
    20_000,
  );
  return runId;
}

const nats = await probeNats();
const linux = process.platform === 'linux';

/** The process ids of `pid`'s children (Linux). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** The nice values of every thread of process `pid`, or of its main thread only (Linux). */
function niceOfThreads(pid: number, mainOnly = false): number[] {
  return (mainOnly ? [String(pid)] : readdirSync(`/proc/${pid}/task`)).map((tid) => {
    const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // Field 19 of stat is the nice value: the 17th after the command's closing parenthesis.
    return Number(fields[16]);
  });
}

/** The children of `pid` once there are `count` of them. */
async function children(pid: number, count: number): Promise<number[]> {
  await waitFor(() => childrenOf(pid).length === count, `${count} children of ${pid}`, 15_000);
  return childrenOf(pid);
}

/** The first column of `sql`'s rows, on a connection of its own. */
async function column<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ value: T }>(sql);
    return rows.map((row) => row.value);
  } finally {
    await client.end();
  }
}

/** The process ids named by the `workers` rows (`host:pid:random`). */
async function workerPids(url: string): Promise<number[]> {
  const ids = await column<string>(url, 'select id as value from workers');
  return ids.map((id) => Number(id.split(':')[1]));
}

/** Outbox rows not yet published. */
async function pendingOutbox(url: string): Promise<number> {
  return (await column<number>(url, 'select count(*)::int as value from outbox'))[0] as number;
}

/** How many deliveries the dispatcher has made (one per event and webhook, before any attempt). */
async function deliveries(url: string): Promise<number> {
  return (await column<number>(url, 'select count(*)::int as value from webhook_deliveries'))[0] as number;
}

/** Whether process `pid` is running (an exited child not yet reaped — a zombie — is not). */
function alive(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    return state !== undefined && state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

describe.skipIf(nats.skip)('r3 serve with worker processes (NATS)', () => {
  let database: TestDatabase;
  let server: ServeProcess;
  let token: string;
  let hooks: Server;
  const delivered: Array<{ type: string; runId: number }> = [];
  const prefix = randomTestPrefix('workerprocs');
  let env: Record<string, string>;

  beforeAll(async () => {
    requireNats(nats);
    database = await createTestDatabase();
    hooks = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        const event = JSON.parse(body);
        delivered.push({ type: event.event, runId: Number(event.data?.runId ?? event.data?.objectId) });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
    env = {
      DATABASE_URL: database.url,
      NATS_URL: nats.url,
      R3_BUS_PREFIX: prefix,
      R3_RATE_LIMIT_PER_MIN: '0',
      R3_WEBHOOK_ALLOW_PRIVATE: 'true',
      R3_WORKER_PROCESSES: '2',
      R3_WORKER_CONCURRENCY: '4',
      R3_WORKER_NICE: '5',
      R3_LOG_LEVEL: 'info',
    };
    server = await spawnServe(env);
    token = (await createCliToken(database.url, 'workerprocs')).token;
    await createEchoSkill(server.url, token);
    const port = (hooks.address() as AddressInfo).port;
    const hook = await request(server.url, 'POST', '/api/v1/webhooks', {
      token,
      body: {
        url: `http://127.0.0.1:${port}/hook`,
        events: ['run.completed', 'object.created'],
        secret: 'whsec_test_0123456789abcdef',
      },
    });
    expect(hook.status, hook.text).toBe(201);
  });

  afterAll(async () => {
    await server?.stop();
    await new Promise((resolve) => hooks?.close(resolve));
    await database?.drop();
    await deleteTestStreams(nats, [prefix]);
  });

  /** Starts a run on the serving process and waits until it completed and its webhook arrived. */
  async function runToCompletion(text: string): Promise<number> {
    const runId = await runCompleted(server.url, token, text);
    await waitFor(
      () => delivered.some((d) => d.type === 'run.completed' && d.runId === runId),
      `run.completed of ${runId} delivered`,
      20_000,
    );
    return runId;
  }

  it('executes runs and delivers their webhooks in the children, none in the serving process', async () => {
    await runToCompletion('first');
    const pid = server.child.pid as number;
    // One child may have run the first run before the other finished starting (a busy machine).
    let pids: number[] = [];
    await waitFor(
      async () => {
        pids = await workerPids(database.url);
        return pids.length >= 2;
      },
      'both children registered as workers',
      20_000,
    );
    // Only the children hold worker rows: the serving process runs no workers.
    expect(pids).toHaveLength(2);
    expect(pids).not.toContain(pid);
    if (linux) expect((await children(pid, 2)).toSorted()).toEqual(pids.toSorted());
    await waitFor(
      () => server.output().match(/r3 working \(pid \d+, 4 workers, nice \d+\)/g)?.length === 2,
      "both children's start-up lines",
      5_000,
    );
  });

  it.skipIf(!linux)(
    'neither relays nor dispatches in the serving process: nothing while the children are stopped',
    async () => {
      const pid = server.child.pid as number;
      const type = await request(server.url, 'POST', '/api/v1/objects/types', {
        token,
        body: { slug: 'ticket', name: 'Ticket' },
      });
      expect(type.status, type.text).toBe(201);
      const kids = await children(pid, 2);
      const before = await deliveries(database.url);
      for (const child of kids) process.kill(child, 'SIGSTOP');
      let objectId: number;
      try {
        const created = await request(server.url, 'POST', '/api/v1/objects/ticket/instances', {
          token,
          body: { title: 'while stopped', metadata: {}, content: 'body' },
        });
        expect(created.status, created.text).toBe(201);
        objectId = created.body.id as number;
        // The serving process relays the event at once; a dispatcher there would make its delivery
        // row within milliseconds (the attempt itself is a job: the children's in any case).
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        expect(await deliveries(database.url)).toBe(before);
        // Nor does it relay: the event's outbox row waits for the children's relays.
        expect(await pendingOutbox(database.url)).toBeGreaterThan(0);
      } finally {
        for (const child of kids) process.kill(child, 'SIGCONT');
      }
      await waitFor(
        () => delivered.some((d) => d.type === 'object.created' && d.runId === objectId),
        'object.created delivered once the children run again',
        20_000,
      );
      expect(await deliveries(database.url)).toBe(before + 1);
      await waitFor(async () => (await pendingOutbox(database.url)) === 0, 'the outbox relayed', 10_000);
    },
  );

  it.skipIf(!linux)('lowers every thread of a child by R3_WORKER_NICE', () => {
    const pid = server.child.pid as number;
    const parentNice = niceOfThreads(pid, true)[0] as number;
    for (const child of childrenOf(pid)) {
      const nices = niceOfThreads(child);
      expect(nices.length).toBeGreaterThan(1);
      // The main thread at the parent's + 5; no thread above it (one of Node's own may be lower).
      expect(niceOfThreads(child, true)[0]).toBe(Math.min(19, parentNice + 5));
      expect(nices.filter((nice) => nice < Math.min(19, parentNice + 5))).toEqual([]);
    }
  });

  it.skipIf(!linux)('replaces a child that dies, and runs go on', async () => {
    const pid = server.child.pid as number;
    const [victim, other] = childrenOf(pid) as [number, number];
    process.kill(victim, 'SIGKILL');
    await waitFor(
      () => {
        const now = childrenOf(pid);
        return now.length === 2 && !now.includes(victim) && now.includes(other);
      },
      'a new child in place of the killed one',
      15_000,
    );
    expect(server.output()).toContain('a worker process exited');
    await runToCompletion('after a child died');
  });

  it('on the embedded PostgreSQL (no DATABASE_URL): stops its children before the database, whose last flush then succeeds', async () => {
    // Mode 0755: the cluster (run as the postgres user when r3 is root) lives in the directory.
    const dir = await mkdtemp(path.join(os.tmpdir(), 'r3-workers-embedded-'));
    await chmod(dir, 0o755);
    const embeddedPrefix = randomTestPrefix('workerprocs-embedded');
    try {
      const serve = await spawnServe({
        NATS_URL: nats.url,
        R3_BUS_PREFIX: embeddedPrefix,
        R3_DATA_DIR: dir,
        R3_RATE_LIMIT_PER_MIN: '0',
        R3_WORKER_PROCESSES: '1',
        R3_WORKER_CONCURRENCY: '2',
        R3_LOG_LEVEL: 'info',
      });
      let code: number | null = null;
      try {
        const own = (await createCliToken({ R3_DATA_DIR: dir, R3_SECRET_KEY: TEST_SECRET_KEY }, 'embedded'))
          .token;
        await createEchoSkill(serve.url, own);
        await runCompleted(serve.url, own, 'embedded');
      } finally {
        code = await serve.stop();
      }
      expect({ code, signal: serve.child.signalCode }, serve.output()).toEqual({ code: 0, signal: null });
      // The children stopped while the database was up: their relays' last pass did not fail.
      expect(serve.output()).not.toContain('final outbox flush failed');
      // And the embedded cluster stopped with r3.
      const { port } = JSON.parse(await readFile(path.join(dir, 'pg.json'), 'utf8')) as { port: number };
      const client = new pg.Client({
        host: '127.0.0.1',
        port,
        user: 'postgres',
        connectionTimeoutMillis: 2_000,
      });
      await expect(client.connect()).rejects.toThrow();
    } finally {
      await rm(dir, { recursive: true, force: true });
      await deleteTestStreams(nats, [embeddedPrefix]);
    }
  }, 120_000);

  it.skipIf(!linux)(
    'stops its children on SIGTERM, and they stop by themselves when it is killed',
    async () => {
      const a = await spawnServe({ ...env, R3_WORKER_PROCESSES: '1' });
      const aChildren = await children(a.child.pid as number, 1);
      const code = await a.stop();
      expect({ code, signal: a.child.signalCode }, a.output()).toEqual({ code: 0, signal: null });
      for (const child of aChildren) expect(alive(child)).toBe(false);

      const b = await spawnServe({ ...env, R3_WORKER_PROCESSES: '1' });
      const bChildren = await children(b.child.pid as number, 1);
      b.child.kill('SIGKILL');
      await waitFor(() => bChildren.every((child) => !alive(child)), 'the orphaned child to stop', 15_000);
    },
  );
});

describe('R3_WORKER_PROCESSES without NATS', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('stops r3 serve at start-up with a message naming the variable', async () => {
    const res = await runCli(['serve'], { DATABASE_URL: database.url, PORT: '0', R3_WORKER_PROCESSES: '1' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('R3_WORKER_PROCESSES: needs NATS_URL');
  });
});
