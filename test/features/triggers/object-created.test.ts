/**
 * `object.created` workflow triggers (docs/api.md "Workflow triggers"): each new instance of the trigger's type starts
 * one run with input `{object: {id, slug, title, metadata}}` — instances ingested through the API and
 * instances a connector's sync creates (the HubSpot-shaped fake) alike. The run's job is written in
 * the transaction that creates the instance (nothing is lost if the process dies after the commit),
 * and a job that runs again starts nothing twice; instances a sync only updates start nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeHubspot, startFakeHubspot } from '../../../fakes/hubspot-server.js';
import { type Callers, callers, orgIdOf } from '../../helpers/api.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createWorkflow } from '../../helpers/resources.js';

let t: TestApp;
let c: Callers;
let orgId: number;
let hub: FakeHubspot;

const gate = [{ name: 'gate', type: 'approve' }];

beforeAll(async () => {
  hub = await startFakeHubspot();
  // No background workers: the test runs the queued jobs itself (jobs.drain).
  t = await startTestApp({
    R3_WORKER_CONCURRENCY: '0',
    R3_CONNECTORS_ALLOW_PRIVATE: 'true',
    R3_CONNECTOR_RETRY_BASE: '5ms',
  });
  c = await callers(t, 'obj-org');
  orgId = await orgIdOf(t, 'obj-org');
  for (const body of [
    {
      slug: 'ticket',
      name: 'Ticket',
      schema: { type: 'object', properties: { priority: { type: 'string' } } },
    },
    { slug: 'note', name: 'Note' },
    { slug: 'deal', name: 'Deal' },
  ]) {
    expect((await t.request('POST', '/api/v1/objects/types', { token: c.writer, body })).status).toBe(201);
  }
  await createWorkflow(t, c.writer, {
    slug: 'triage',
    trigger: { type: 'object.created', objectType: 'ticket' },
    inputSchema: { type: 'object', required: ['object'] },
    steps: gate,
  });
});
afterAll(async () => {
  await t?.close();
  await hub?.close();
});

async function runsOf(slug: string, token = c.reader) {
  const res = await t.request('GET', `/api/v1/runs?workflowSlug=${slug}&limit=200`, { token });
  expect(res.status).toBe(200);
  return (res.body.runs as Array<{ id: number; createdBy: string; input: any; status: string }>).reverse();
}

async function ingest(type: string, body: Record<string, unknown>, token = c.writer) {
  const res = await t.request('POST', `/api/v1/objects/${type}/instances`, { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: number; slug: string; title: string };
}

const triggerJobs = () =>
  t.app.db.sql.query<{ id: number; payload: { workflow: string; objectIds: number[] } }>(
    `select id, payload from jobs where kind = 'workflow-object-created' and org_id = $1 order by id`,
    [orgId],
  );

describe('object.created through the API', () => {
  it('queues the run in the ingest transaction and starts one run with the instance as input', async () => {
    const created = await ingest('ticket', {
      title: 'Printer on fire',
      metadata: { priority: 'high' },
      content: 'It smokes.',
    });
    // Committed with the instance: a process that died now would leave the job for any other.
    expect((await triggerJobs()).map((j) => j.payload)).toEqual([
      { workflow: 'triage', objectIds: [created.id] },
    ]);
    await t.app.jobs.drain();
    const runs = await runsOf('triage');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      createdBy: 'trigger:object.created',
      status: 'paused',
      input: {
        object: { id: created.id, slug: 'ticket', title: 'Printer on fire', metadata: { priority: 'high' } },
      },
    });
    const [audit] = await t.app.db.sql.query<{ actor: string; details: unknown }>(
      `select actor, details from audit_log where org_id = $1 and action = 'run.create' and target_id = $2`,
      [orgId, String(runs[0]?.id)],
    );
    expect(audit).toEqual({
      actor: 'trigger:object.created',
      details: {
        kind: 'workflow',
        slug: 'triage',
        trigger: { type: 'object.created', objectType: 'ticket', objectId: created.id },
      },
    });
    expect(await triggerJobs()).toEqual([]);
  });

  it('each new instance starts exactly one run; other types start none', async () => {
    const a = await ingest('ticket', { title: 'A', metadata: {}, content: '' });
    const b = await ingest('ticket', { title: 'B', metadata: {}, content: '' });
    await ingest('note', { title: 'not a ticket', metadata: {}, content: '' });
    await t.app.jobs.drain();
    await t.app.jobs.drain();
    const runs = await runsOf('triage');
    expect(runs.map((r) => r.input.object.id)).toEqual([expect.any(Number), a.id, b.id]);
  });

  it('a job that runs again (a worker that lost its lease) starts nothing twice', async () => {
    const d = await ingest('ticket', { title: 'D', metadata: {}, content: '' });
    const [job] = await triggerJobs();
    await t.app.jobs.drain();
    expect((await runsOf('triage')).filter((r) => r.input.object.id === d.id)).toHaveLength(1);
    await t.app.db.sql.query(
      `insert into jobs (org_id, kind, payload, run_at, max_attempts, created_at)
       values ($1, 'workflow-object-created', $2::jsonb, now(), 5, now())`,
      [orgId, JSON.stringify(job?.payload)],
    );
    await t.app.jobs.drain();
    expect((await runsOf('triage')).filter((r) => r.input.object.id === d.id)).toHaveLength(1);
    const fires = await t.app.db.sql.query<{ fire_key: string }>(
      `select fire_key from workflow_trigger_fires where org_id = $1 and workflow_slug = 'triage' and fire_key = $2`,
      [orgId, `object:${d.id}`],
    );
    expect(fires).toHaveLength(1);
  });

  it('a workflow whose trigger moved to another type starts nothing for the old type', async () => {
    const patch = await t.request('PATCH', '/api/v1/workflows/triage', {
      token: c.writer,
      body: { trigger: { type: 'object.created', objectType: 'note' } },
    });
    expect(patch.status).toBe(200);
    const before = (await runsOf('triage')).length;
    await ingest('ticket', { title: 'ignored now', metadata: {}, content: '' });
    const note = await ingest('note', { title: 'a note', metadata: {}, content: '' });
    await t.app.jobs.drain();
    const runs = await runsOf('triage');
    expect(runs).toHaveLength(before + 1);
    expect(runs.at(-1)?.input.object).toMatchObject({ id: note.id, slug: 'note' });
    const back = await t.request('PATCH', '/api/v1/workflows/triage', {
      token: c.writer,
      body: { trigger: { type: 'object.created', objectType: 'ticket' } },
    });
    expect(back.status).toBe(200);
  });

  it("another org's instances of a type with the same slug start nothing here", async () => {
    await t.request('POST', '/api/v1/objects/types', {
      token: c.stranger,
      body: { slug: 'ticket', name: 'Ticket' },
    });
    const before = (await runsOf('triage')).length;
    await ingest('ticket', { title: 'elsewhere', metadata: {}, content: '' }, c.stranger);
    await t.app.jobs.drain();
    expect(await runsOf('triage')).toHaveLength(before);
    expect(await runsOf('triage', c.stranger)).toEqual([]);
  });
});

describe('object.created through a connector sync', () => {
  it('starts one run per instance a sync creates, none for instances a later sync updates', async () => {
    await createWorkflow(t, c.writer, {
      slug: 'new-deal',
      trigger: { type: 'object.created', objectType: 'deal' },
      steps: gate,
    });
    const source = {
      slug: 'hubspot',
      name: 'HubSpot',
      kind: 'crm',
      connection: { baseUrl: hub.url, pageSize: 2 },
      sync: { objectTypes: { deal: 'deal' } },
    };
    expect((await t.request('POST', '/api/v1/sources', { token: c.writer, body: source })).status).toBe(201);
    const put = await t.request('PUT', '/api/v1/sources/hubspot/credentials', {
      token: c.writer,
      body: { accessToken: hub.token },
    });
    expect(put.status).toBe(200);
    for (const name of ['Acme renewal', 'Globex expansion', 'Initech pilot']) {
      hub.add('deals', { dealname: name, amount: '1000', dealstage: 'appointmentscheduled' });
    }
    const sync = async () => {
      const res = await t.request('POST', '/api/v1/sources/hubspot/sync', {
        token: c.writer,
        body: { full: true },
      });
      expect(res.status).toBe(202);
      await t.app.jobs.drain();
      const done = await t.request('GET', `/api/v1/sources/hubspot/syncs/${res.body.syncId}`, {
        token: c.reader,
      });
      expect(done.body.status).toBe('completed');
      return done.body as { created: number; updated: number };
    };
    expect(await sync()).toMatchObject({ created: 3 });
    await t.app.jobs.drain();
    const instances = await t.app.db.sql.query<{ id: number; title: string; metadata: unknown }>(
      `select id, title, metadata from object_instances where org_id = $1 and type_slug = 'deal' order by id`,
      [orgId],
    );
    expect(instances).toHaveLength(3);
    const runs = await runsOf('new-deal');
    expect(runs.map((r) => r.input)).toEqual(
      instances.map((i) => ({ object: { id: i.id, slug: 'deal', title: i.title, metadata: i.metadata } })),
    );
    expect(runs.every((r) => r.createdBy === 'trigger:object.created')).toBe(true);

    // A changed upstream deal is updated, not created: no run. A new one starts one.
    const first = [...(hub.objects.get('deals')?.values() ?? [])][0] as { id: string };
    hub.add('deals', { dealname: 'Acme renewal (v2)', amount: '2000' }, { id: first.id });
    hub.add('deals', { dealname: 'Umbrella', amount: '5' });
    expect(await sync()).toMatchObject({ created: 1, updated: 1 });
    await t.app.jobs.drain();
    const after = await runsOf('new-deal');
    expect(after).toHaveLength(4);
    expect(after.at(-1)?.input.object.title).toBe('Umbrella');
  });
});
