/**
 * Runs ↔ objects through the socket (docs/api.md "Runs", decisions.md §17): a run body's `objects`
 * linked `via: "input"`, the instances a run's `lookup_objects` or `search_knowledge` returned linked
 * `via: "tool"`, both
 * directions (`GET /runs/:id` → objects, `GET /objects/:id` → runs); an unknown, repeated or another
 * org's object refused with nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatBody, type FakeOpenAI, openaiEnv, startFakeOpenAI } from '../../../fakes/openai-server.js';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { createSkill } from '../../helpers/resources.js';
import { createObjectType } from '../../helpers/webhooks.js';

let t: TestApp;
let fake: FakeOpenAI;
let admin: CreatedToken;
let foreign: CreatedToken;
const ids: Record<string, number> = {};

/**
 * The model asks lookup_objects for the `looked` and `input` instances once (search_knowledge for
 * "dispute", when that is its tool), then answers.
 */
function assistant(body: ChatBody) {
  if (body.messages.some((m) => m.role === 'tool')) return { content: JSON.stringify({ done: true }) };
  if (body.tools?.some((tool) => tool.function.name === 'search_knowledge')) {
    return {
      content: null,
      toolCalls: [{ id: 'c1', name: 'search_knowledge', arguments: JSON.stringify({ query: 'dispute' }) }],
    };
  }
  if (!body.tools?.some((tool) => tool.function.name === 'lookup_objects')) return undefined;
  return {
    content: null,
    toolCalls: [
      { id: 'c1', name: 'lookup_objects', arguments: JSON.stringify({ ids: [ids.looked, ids.input] }) },
    ],
  };
}

const post = (path: string, body: unknown, token = admin.token) =>
  t.request('POST', `/api/v1${path}`, { token, body });
const get = (path: string, token = admin.token) => t.request('GET', `/api/v1${path}`, { token });
const count = async () => Number((await t.app.db.sql.one<{ n: string }>('select count(*) as n from runs')).n);

async function ingest(token: string, title: string): Promise<number> {
  const res = await post(
    '/objects/ticket/instances',
    { title, metadata: {}, content: `About ${title}` },
    token,
  );
  expect(res.status, res.text).toBe(201);
  return res.body.id as number;
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-test', assistant });
  t = await startTestApp(openaiEnv(fake, { R3_WORKER_CONCURRENCY: '0' }));
  admin = await t.token({ scopes: ALL_SCOPES });
  foreign = await t.token({ org: 'other', scopes: ALL_SCOPES });
  await createObjectType(t, admin.token);
  await createObjectType(t, foreign.token);
  ids.input = await ingest(admin.token, 'Input ticket');
  ids.looked = await ingest(admin.token, 'Looked-up ticket');
  ids.foreign = await ingest(foreign.token, 'Their ticket');
  ids.dispute = await ingest(admin.token, 'Invoice dispute');
  await ingest(foreign.token, 'Their invoice dispute');
  await createSkill(t, admin.token, { slug: 'plain' }, 'Do {{input.text}}');
  await createSkill(t, admin.token, { slug: 'looker', tools: ['lookup_objects'] }, 'Look {{input.text}}');
  await createSkill(
    t,
    admin.token,
    { slug: 'searcher', tools: ['search_knowledge'] },
    'Search {{input.text}}',
  );
});

afterAll(async () => {
  await t.close();
  await fake.close();
});

describe('runs and the objects they used', () => {
  it('links the objects named in the body (via input), both ways', async () => {
    const res = await post('/skills/plain/runs', { input: { text: 'x' }, objects: [ids.input] });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const run = await get(`/runs/${res.body.runId}`);
    expect(run.body.objects).toEqual([
      { id: ids.input, slug: 'ticket', title: 'Input ticket', via: 'input' },
    ]);
    const object = await get(`/objects/${ids.input}`);
    expect(object.status).toBe(200);
    expect(object.body.runs).toEqual([
      { runId: res.body.runId, kind: 'skill', slug: 'plain', status: 'running', via: 'input' },
    ]);
    // Another org reads neither the object nor the link.
    expect((await get(`/objects/${ids.input}`, foreign.token)).status).toBe(404);
  });

  it('links the instances its lookup_objects returned (via tool); one named in the body stays input', async () => {
    const res = await post('/skills/looker/runs', { input: { text: 'x' }, objects: [ids.input] });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await t.app.jobs.drain();
    const run = (await get(`/runs/${res.body.runId}`)).body;
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    expect(run.toolCalls.map((c: { tool: string; status: string }) => [c.tool, c.status])).toEqual([
      ['lookup_objects', 'ok'],
    ]);
    expect(run.objects).toEqual([
      { id: ids.input, slug: 'ticket', title: 'Input ticket', via: 'input' },
      { id: ids.looked, slug: 'ticket', title: 'Looked-up ticket', via: 'tool' },
    ]);
    const looked = (await get(`/objects/${ids.looked}`)).body;
    expect(looked.runs).toEqual([
      { runId: res.body.runId, kind: 'skill', slug: 'looker', status: 'completed', via: 'tool' },
    ]);
    expect((await get(`/objects/${ids.input}`)).body.runs.map((r: { runId: number }) => r.runId)).toContain(
      res.body.runId,
    );
  });

  it('links the instances its search_knowledge found (via tool), of its own org only', async () => {
    const res = await post('/skills/searcher/runs', { input: { text: 'x' } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await t.app.jobs.drain();
    const run = (await get(`/runs/${res.body.runId}`)).body;
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    const found = run.toolCalls[0].result.results.map((r: { id: number }) => r.id);
    expect(found).toContain(ids.dispute);
    expect(run.objects).toEqual(
      found.map((id: number) => expect.objectContaining({ id, slug: 'ticket', via: 'tool' })),
    );
    expect(run.objects.map((o: { title: string }) => o.title)).not.toContain('Their invoice dispute');
    expect((await get(`/objects/${ids.dispute}`)).body.runs).toEqual([
      { runId: res.body.runId, kind: 'skill', slug: 'searcher', status: 'completed', via: 'tool' },
    ]);
  });

  it('refuses an unknown, another org’s or a repeated object (400), writing nothing', async () => {
    const before = await count();
    for (const objects of [[999_999], [ids.foreign], [ids.input, ids.input], ['1']]) {
      const res = await post('/skills/plain/runs', { input: { text: 'x' }, objects });
      expect(res.status, JSON.stringify(objects)).toBe(400);
      expect(res.body.error.details.issues[0].field).toMatch(/^body\.objects/);
    }
    expect(await count()).toBe(before);
    const none = await post('/skills/plain/runs', { input: { text: 'x' } });
    expect((await get(`/runs/${none.body.runId}`)).body.objects).toEqual([]);
  });
});
