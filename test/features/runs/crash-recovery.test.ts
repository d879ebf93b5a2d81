/**
 * kill -9 of a worker process in the middle of its work, with real `r3 serve` processes on one
 * database and one NATS: how long until its work runs again. Two nodes: the survivor resumes a run
 * whose model call the dead node had in flight within 10 s, with no restart. One node killed mid
 * webhook attempt and restarted: the delivery is attempted again within 5 s of the restart — not
 * after the 5-minute lease.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../../../fakes/openai-server.js';
import { type Receiver, startReceiver } from '../../../fakes/webhook-receiver.js';
import { request } from '../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { deleteTestStreams, probeNats, randomTestPrefix, requireNats } from '../../helpers/nats.js';
import { createCliToken, type ServeProcess, spawnServe } from '../../helpers/process.js';
import { waitFor } from '../../helpers/wait.js';

const nats = await probeNats();

describe.skipIf(nats.skip)('kill -9 of a worker process (two processes, NATS)', () => {
  let database: TestDatabase;
  let fake: FakeOpenAI;
  let receiver: Receiver;
  let env: Record<string, string>;
  const nodes: ServeProcess[] = [];
  let token: string;
  const prefix = randomTestPrefix('crash');

  beforeAll(async () => {
    requireNats(nats);
    database = await createTestDatabase();
    fake = await startFakeOpenAI();
    receiver = await startReceiver();
    env = {
      DATABASE_URL: database.url,
      NATS_URL: nats.url,
      R3_BUS_PREFIX: prefix,
      R3_RATE_LIMIT_PER_MIN: '0',
      R3_MODEL_PROVIDER: 'openai',
      OPENAI_BASE_URL: fake.baseUrl,
      OPENAI_API_KEY: 'sk-test',
      R3_WEBHOOK_ALLOW_PRIVATE: 'true',
    };
    nodes.push(...(await Promise.all([spawnServe(env), spawnServe(env)])));
    token = (await createCliToken(database.url, 'crash')).token;
    const url = nodes[0]?.url as string;
    const skill = await request(url, 'POST', '/api/v1/skills', {
      token,
      body: { manifest: { slug: 'draft', name: 'Draft' }, promptMd: 'Draft {{input.topic}}' },
    });
    expect(skill.status, skill.text).toBe(201);
  });

  afterAll(async () => {
    for (const node of nodes) {
      if (node.child.exitCode === null && node.child.signalCode === null) await node.stop();
    }
    await receiver?.close();
    await fake?.close();
    await database?.drop();
    await deleteTestStreams(nats, [prefix]);
  });

  const alive = () => nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);

  /** The node whose worker holds the job of `kind`: worker ids are `host:pid:suffix`. */
  async function holderOf(kind: string): Promise<ServeProcess> {
    let holder: ServeProcess | undefined;
    await waitFor(async () => {
      const res = await runSql(`select locked_by from jobs where kind = '${kind}' and locked_by is not null`);
      const pid = Number(res[0]?.split(':')[1]);
      holder = alive().find((n) => n.child.pid === pid);
      return holder !== undefined;
    }, `a live node to hold a ${kind} job`);
    return holder as ServeProcess;
  }

  async function runSql(text: string): Promise<string[]> {
    const pg = await import('pg');
    const client = new pg.default.Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query(text)).rows.map((row) => String(Object.values(row)[0]));
    } finally {
      await client.end();
    }
  }

  async function kill(node: ServeProcess): Promise<void> {
    const exited = new Promise((resolve) => node.child.once('exit', resolve));
    node.child.kill('SIGKILL');
    await exited;
  }

  it('the other node resumes a run whose model call the dead node had in flight, within 10 s', async () => {
    // The first model call never answers: the node running it is killed while it waits.
    fake.enqueue({ hang: true });
    const url = nodes[0]?.url as string;
    const created = await request(url, 'POST', '/api/v1/skills/draft/runs', {
      token,
      body: { input: { topic: 'x' } },
    });
    expect(created.status, created.text).toBe(202);
    await fake.waitForRequests(1);
    const holder = await holderOf('execute_step');
    await kill(holder);
    const killedAt = Date.now();
    await waitFor(() => fake.requests.length >= 2, 'the surviving node to call the model again', 15_000);
    const resumedMs = Date.now() - killedAt;
    const survivor = alive()[0] as ServeProcess;
    await waitFor(
      async () =>
        (await request(survivor.url, 'GET', `/api/v1/runs/${created.body.runId}`, { token })).body.status ===
        'completed',
      'the run to complete on the survivor',
    );
    console.log(`crash-recovery: survivor resumed the run ${resumedMs} ms after kill -9`);
    expect(resumedMs).toBeLessThan(10_000);
  });

  it('a delivery in flight when its only node dies is attempted again within 5 s of the restart', async () => {
    const survivor = alive()[0] as ServeProcess;
    const hook = await request(survivor.url, 'POST', '/api/v1/webhooks', {
      token,
      body: {
        url: `${receiver.url}/hook`,
        events: ['run.completed'],
        secret: 'whsec_crash_test_secret_0123456789',
      },
    });
    expect(hook.status, hook.text).toBe(201);
    const release = receiver.hold();
    const before = receiver.received.items.length;
    const created = await request(survivor.url, 'POST', '/api/v1/skills/draft/runs', {
      token,
      body: { input: { topic: 'y' } },
    });
    expect(created.status, created.text).toBe(202);
    await receiver.received.untilCount(before + 1, 'the first delivery attempt', 15_000);
    expect(receiver.held).toBe(1);
    await kill(survivor);
    release();
    const restarted = await spawnServe(env);
    nodes.push(restarted);
    const readyAt = Date.now();
    await receiver.received.untilCount(before + 2, 'the delivery to be attempted again', 15_000);
    const resumedMs = Date.now() - readyAt;
    console.log(
      `crash-recovery: restarted node re-attempted the delivery ${resumedMs} ms after it was ready`,
    );
    expect(resumedMs).toBeLessThan(5_000);
  });
});
