/**
 * What needs review is changed only by who may decide reviews: a `specialist` (write:resources, no
 * approve capability) can edit a skill or workflow but not switch review off or on, move or remove
 * an approve step, or delete a resource under review (then re-create it without review) — 403 naming
 * the resource, nothing written. An owner with run:approve can; the MCP authoring tools follow the
 * same rule. Through HTTP, against the real database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let owner: string;
let specialist: string;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0', R3_MCP_HTTP_AUTHORING: 'true' });
  owner = (await t.token({ scopes: ALL_SCOPES })).token;
  specialist = (
    await t.token({
      role: 'specialist',
      scopes: ['read:all', 'write:resources', 'run:invoke', 'run:approve'],
    })
  ).token;
  const skill = await t.request('POST', '/api/v1/skills', {
    token: owner,
    body: {
      manifest: { slug: 'gated', name: 'Gated', requiresApproval: true },
      promptMd: 'Draft {{input.x}}',
    },
  });
  expect(skill.status, skill.text).toBe(201);
  const flow = await t.request('POST', '/api/v1/workflows', {
    token: owner,
    body: {
      slug: 'flow',
      name: 'Flow',
      steps: [
        { name: 'draft', type: 'skill', skill: 'gated', input: { x: '{{input.x}}' } },
        { name: 'check', type: 'approve' },
      ],
    },
  });
  expect(flow.status, flow.text).toBe(201);
});
afterAll(async () => {
  await t.close();
});

async function mcpCall(token: string, name: string, args: Record<string, unknown>) {
  const res = await t.request('POST', '/api/mcp', {
    token,
    headers: { accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  });
  expect(res.status).toBe(200);
  return res.body.result;
}

const skill = async () => (await t.request('GET', '/api/v1/skills/gated', { token: owner })).body;
const workflow = async () => (await t.request('GET', '/api/v1/workflows/flow', { token: owner })).body;

describe('changing what needs review', () => {
  it('a specialist may edit a reviewed skill’s prompt and description', async () => {
    const res = await t.request('PATCH', '/api/v1/skills/gated', {
      token: specialist,
      body: { manifest: { description: 'edited' }, promptMd: 'Draft better {{input.x}}' },
    });
    expect(res.status, res.text).toBe(200);
  });

  it('a specialist may not switch a skill’s review off: 403 naming it, nothing written', async () => {
    const before = await skill();
    const res = await t.request('PATCH', '/api/v1/skills/gated', {
      token: specialist,
      body: { manifest: { requiresApproval: false } },
    });
    expect(res.status, res.text).toBe(403);
    expect(res.body.error).toMatchObject({
      code: 'FORBIDDEN',
      details: { resources: ['skill:gated'], requiredScope: ['run:approve'] },
    });
    expect(await skill()).toEqual(before);
  });

  it('nor delete a reviewed skill (re-creating it without review would switch review off)', async () => {
    const solo = await t.request('POST', '/api/v1/skills', {
      token: owner,
      body: { manifest: { slug: 'solo', name: 'Solo', requiresApproval: true }, promptMd: 'x' },
    });
    expect(solo.status).toBe(201);
    const res = await mcpCall(specialist, 'workspace_delete', { kind: 'skill', slug: 'solo' });
    expect(res.isError, JSON.stringify(res)).toBe(true);
    expect(JSON.parse(res.content[0].text).error.code).toBe('FORBIDDEN');
    expect((await t.request('GET', '/api/v1/skills/solo', { token: owner })).status).toBe(200);
  });

  it('nor remove, move or re-assign a workflow’s approve step; editing a step’s input is fine', async () => {
    const { steps } = await workflow();
    const variants = [[steps[0]], [steps[1], steps[0]], [steps[0], { ...steps[1], assignTo: 'someone' }]];
    for (const next of variants) {
      const res = await t.request('PATCH', '/api/v1/workflows/flow', {
        token: specialist,
        body: { steps: next },
      });
      expect(res.status, JSON.stringify(next)).toBe(403);
    }
    const edit = await t.request('PATCH', '/api/v1/workflows/flow', {
      token: specialist,
      body: { steps: [{ ...steps[0], input: { x: 'fixed' } }, steps[1]] },
    });
    expect(edit.status, edit.text).toBe(200);
  });

  it('nor turn review on for a skill that had none; but creating a skill with or without review is fine', async () => {
    const created = await t.request('POST', '/api/v1/skills', {
      token: specialist,
      body: { manifest: { slug: 'open', name: 'Open' }, promptMd: 'x' },
    });
    expect(created.status, created.text).toBe(201);
    const on = await t.request('PATCH', '/api/v1/skills/open', {
      token: specialist,
      body: { manifest: { requiresApproval: true } },
    });
    expect(on.status).toBe(403);
    const gatedNew = await t.request('POST', '/api/v1/skills', {
      token: specialist,
      body: { manifest: { slug: 'gated-new', name: 'Gated new', requiresApproval: true }, promptMd: 'x' },
    });
    expect(gatedNew.status, gatedNew.text).toBe(201);
  });

  it('the MCP authoring tools follow the same rule', async () => {
    const res = await mcpCall(specialist, 'workspace_write_skill', {
      manifest: { slug: 'gated', name: 'Gated', requiresApproval: false },
    });
    expect(res.isError, JSON.stringify(res)).toBe(true);
    expect(JSON.parse(res.content[0].text).error.code).toBe('FORBIDDEN');
    expect((await skill()).requiresApproval).toBe(true);
  });

  it('an owner with run:approve may switch review off, and the next run skips the queue', async () => {
    const res = await t.request('PATCH', '/api/v1/skills/gated', {
      token: owner,
      body: { manifest: { requiresApproval: false } },
    });
    expect(res.status, res.text).toBe(200);
    expect((await skill()).requiresApproval).toBe(false);
    const run = await t.request('POST', '/api/v1/skills/gated/runs', {
      token: owner,
      body: { input: { x: 'y' } },
    });
    expect(run.status).toBe(202);
    await t.app.jobs.drain();
    expect((await t.request('GET', `/api/v1/runs/${run.body.runId}`, { token: owner })).body.status).toBe(
      'completed',
    );
  });
});
