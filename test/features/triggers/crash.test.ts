/**
 * `object.created` across a crash: the instance's run is queued in the transaction that ingests it,
 * so a process killed (SIGKILL) right after it answered 201 — before any worker ran the job — loses
 * nothing: the next process with workers starts the run, once.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { createCliToken, type ServeProcess, spawnServe } from '../../helpers/process.js';
import { waitFor } from '../../helpers/wait.js';

let database: TestDatabase;
let db: pg.Client;
let token: string;
const nodes: ServeProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
  token = (await createCliToken(database.url, 'crash-org')).token;
});

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  await db?.end();
  await database?.drop();
});

const count = async (text: string) => Number((await db.query(text)).rows[0]?.n ?? 0);

describe('object.created and a crash', () => {
  it('a run queued by a process killed right after the ingest is started by the next process, once', async () => {
    // No job workers on the ingesting process: the job can only be run by another one.
    const ingester = await spawnServe({ DATABASE_URL: database.url, R3_WORKER_CONCURRENCY: '0' });
    nodes.push(ingester);
    const post = (path: string, body: unknown) => request(ingester.url, 'POST', path, { token, body });
    expect((await post('/api/v1/objects/types', { slug: 'ticket', name: 'Ticket' })).status).toBe(201);
    const workflow = await post('/api/v1/workflows', {
      slug: 'triage',
      name: 'Triage',
      trigger: { type: 'object.created', objectType: 'ticket' },
      steps: [{ name: 'gate', type: 'approve' }],
    });
    expect(workflow.status, workflow.text).toBe(201);
    const ingested = await post('/api/v1/objects/ticket/instances', {
      title: 'Killed right after',
      metadata: { n: 1 },
      content: '',
    });
    expect(ingested.status, ingested.text).toBe(201);
    const exited = new Promise((resolve) => ingester.child.once('exit', resolve));
    ingester.child.kill('SIGKILL');
    await exited;

    expect(await count(`select count(*) as n from jobs where kind = 'workflow-object-created'`)).toBe(1);
    expect(await count(`select count(*) as n from runs`)).toBe(0);

    const worker = await spawnServe({ DATABASE_URL: database.url });
    nodes.push(worker);
    await waitFor(
      async () => (await count(`select count(*) as n from runs where slug = 'triage'`)) === 1,
      'the run of the ingested instance',
      30_000,
      100,
    );
    const runs = await request(worker.url, 'GET', '/api/v1/runs?workflowSlug=triage', { token });
    expect(runs.body.runs).toHaveLength(1);
    expect(runs.body.runs[0]).toMatchObject({
      createdBy: 'trigger:object.created',
      input: {
        object: { id: ingested.body.id, slug: 'ticket', title: 'Killed right after', metadata: { n: 1 } },
      },
    });
    expect(await count(`select count(*) as n from jobs where kind = 'workflow-object-created'`)).toBe(0);
  });
});
