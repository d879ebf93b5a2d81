/**
 * The choke point of decisions (decisions.md §15), through the socket: a decision bound to the
 * revision the reviewer saw — in the body or `If-Match` — on every path (`POST /reviews/decide`,
 * `POST /runs/:id/approve|reject`, MCP `runtime_approve_draft`, `runtime_reject_draft`,
 * `mission_approve`), for each kind; a stale one is 409 `{reason: "stale", revision: <current>}` and
 * changes nothing; two reviewers racing on one item: exactly one decision, the other told it is stale.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { connectHttp, fails, ok } from '../../helpers/mcp.js';
import {
  currentRevision,
  footprint,
  itemsOf,
  missionAwaitingPlan,
  outboxDrained,
  pausedWorkflowRun,
  pendingProposal,
  pendingSkillRun,
  setupReviewOrg,
} from '../../helpers/reviews.js';

let t: TestApp;
let owner: CreatedToken;
let foreign: CreatedToken;
let client: Client;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  owner = (await setupReviewOrg(t, 'acme')).owner;
  foreign = (await setupReviewOrg(t, 'other')).owner;
  client = await connectHttp(t.url, owner.token);
});
afterAll(async () => {
  await client?.close();
  await t.close();
});

const post = (path: string, body: unknown, token = owner.token, headers?: Record<string, string>) =>
  t.request('POST', `/api/v1${path}`, { token, body, ...(headers ? { headers } : {}) });

/** The current revision of item `{kind, id}`. */
/** A skill run whose draft is in, and a revision of its item that is no longer current (assigned since). */
async function staleSkillItem(): Promise<{ id: number; old: string; current: string }> {
  const id = await pendingSkillRun(t, owner.token);
  await t.app.jobs.drain();
  const old = await currentRevision(t, owner.token, 'skill', id);
  expect((await post('/reviews/assign', { kind: 'skill', id, assignedTo: null, note: 'look' })).status).toBe(
    200,
  );
  // The outbox relay has sent the assignment's event: what a refused call leaves is then steady.
  await outboxDrained(t);
  return { id, old, current: await currentRevision(t, owner.token, 'skill', id) };
}

describe('POST /reviews/decide with a revision', () => {
  it('decides with the current revision, in the body or If-Match', async () => {
    const a = await pendingSkillRun(t, owner.token);
    const res = await post('/reviews/decide', {
      kind: 'skill',
      id: a,
      action: 'approve',
      revision: await currentRevision(t, owner.token, 'skill', a),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await itemsOf(t, a))[0]).toMatchObject({ status: 'decided', open: false });

    const b = await pendingSkillRun(t, owner.token);
    const etag = (await t.request('GET', `/api/v1/reviews/skill/${b}`, { token: owner.token })).headers.get(
      'etag',
    );
    const viaHeader = await post('/reviews/decide', { kind: 'skill', id: b, action: 'reject' }, owner.token, {
      'If-Match': String(etag),
    });
    expect(viaHeader.status, JSON.stringify(viaHeader.body)).toBe(200);
    expect((await t.request('GET', `/api/v1/runs/${b}`, { token: owner.token })).body.status).toBe(
      'rejected',
    );
  });

  it('refuses a stale revision with the current one, and changes nothing', async () => {
    const { id, old, current } = await staleSkillItem();
    const before = await footprint(t, owner.token, id);
    const res = await post('/reviews/decide', { kind: 'skill', id, action: 'approve', revision: old });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: 'CONFLICT',
      details: { reason: 'stale', revision: current },
    });
    const viaHeader = await post('/reviews/decide', { kind: 'skill', id, action: 'approve' }, owner.token, {
      'If-Match': `"${old}"`,
    });
    expect(viaHeader.status).toBe(409);
    expect(viaHeader.body.error.details).toEqual({ reason: 'stale', revision: current });
    expect(await footprint(t, owner.token, id)).toEqual(before);
  });

  it('answers a closed item’s revision as stale, with no current one', async () => {
    const id = await pendingSkillRun(t, owner.token);
    const seen = await currentRevision(t, owner.token, 'skill', id);
    expect((await post('/reviews/decide', { kind: 'skill', id, action: 'approve' })).status).toBe(200);
    const again = await post('/reviews/decide', { kind: 'skill', id, action: 'reject', revision: seen });
    expect(again.status).toBe(409);
    expect(again.body.error.details).toEqual({ reason: 'stale', revision: null });
  });

  it('decides each kind with its revision: a workflow gate, a mission plan, a proposal', async () => {
    const workflow = await pausedWorkflowRun(t, owner.token);
    const mission = await missionAwaitingPlan(t, owner.token);
    const proposal = await pendingProposal(t, 'acme');
    for (const [kind, id, action] of [
      ['workflow', workflow, 'reject'],
      ['mission', mission, 'reject'],
      ['action', proposal, 'reject'],
    ] as const) {
      const revision = await currentRevision(t, owner.token, kind, id);
      expect((await post('/reviews/assign', { kind, id, assignedTo: null })).status).toBe(200);
      const stale = await post('/reviews/decide', { kind, id, action, revision });
      expect(stale.status, kind).toBe(409);
      expect(stale.body.error.details).toEqual({
        reason: 'stale',
        revision: await currentRevision(t, owner.token, kind, id),
      });
      const res = await post('/reviews/decide', {
        kind,
        id,
        action,
        revision: await currentRevision(t, owner.token, kind, id),
      });
      expect(res.status, `${kind}: ${JSON.stringify(res.body)}`).toBe(200);
      expect((await itemsOf(t, id, kind)).at(-1)).toMatchObject({ status: 'decided', open: false });
    }
  });

  it('two reviewers racing on one item: exactly one decision, the other told it is stale', async () => {
    for (let round = 0; round < 3; round++) {
      const id = await pendingSkillRun(t, owner.token);
      const revision = await currentRevision(t, owner.token, 'skill', id);
      const answers = await Promise.all([
        post('/reviews/decide', { kind: 'skill', id, action: 'approve', revision }),
        post('/reviews/decide', { kind: 'skill', id, action: 'reject', revision }),
      ]);
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).toEqual([200, 409]);
      const loser = answers.find((a) => a.status === 409);
      expect(loser?.body.error.details).toEqual({ reason: 'stale', revision: null });
      const items = await itemsOf(t, id);
      expect(items).toHaveLength(1);
      expect(items[0]).toMatchObject({ status: 'decided' });
      const log = await t.request('GET', `/api/v1/runs/${id}/transitions`, { token: owner.token });
      const decisions = log.body.transitions.filter((row: { event: { type: string } }) =>
        ['APPROVE', 'REJECT', 'DECIDE'].includes(row.event.type),
      );
      expect(decisions).toHaveLength(2); // the run's decision and its item's, once
    }
  });

  it('is 404 for another org’s item, 403 without the approve capability, 400 for an empty revision', async () => {
    const id = await pendingSkillRun(t, owner.token);
    const revision = await currentRevision(t, owner.token, 'skill', id);
    const other = await post(
      '/reviews/decide',
      { kind: 'skill', id, action: 'approve', revision },
      foreign.token,
    );
    expect(other.status).toBe(404);
    const reader = await t.token({ org: 'acme', user: 'reader', role: 'pm', scopes: ['read:all'] });
    const denied = await post(
      '/reviews/decide',
      { kind: 'skill', id, action: 'approve', revision },
      reader.token,
    );
    expect(denied.status).toBe(403);
    const empty = await post('/reviews/decide', { kind: 'skill', id, action: 'approve', revision: '' });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details.issues[0].field).toBe('body.revision');
    expect((await itemsOf(t, id))[0]).toMatchObject({ open: true });
  });
});

describe('POST /runs/:id/approve|reject through the choke point', () => {
  it('refuses a stale revision (body or If-Match) and decides with the current one', async () => {
    const { id, old, current } = await staleSkillItem();
    const before = await footprint(t, owner.token, id);
    const stale = await post(`/runs/${id}/approve`, { revision: old });
    expect(stale.status).toBe(409);
    expect(stale.body.error.details).toEqual({ reason: 'stale', revision: current });
    const staleHeader = await post(`/runs/${id}/reject`, {}, owner.token, { 'If-Match': `"${old}"` });
    expect(staleHeader.status).toBe(409);
    expect(await footprint(t, owner.token, id)).toEqual(before);
    const res = await post(`/runs/${id}/approve`, { revision: current, note: 'fine' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id,
      status: 'approved',
      review: { decision: 'approved', note: 'fine' },
    });
  });

  it('keeps its own 409 for a run that is not waiting, and 404 for another org’s run', async () => {
    const id = await pendingSkillRun(t, owner.token);
    expect((await post(`/runs/${id}/approve`, {})).status).toBe(200);
    const again = await post(`/runs/${id}/reject`, {});
    expect(again.status).toBe(409);
    expect(again.body.error.details).toEqual({ runId: id, status: 'approved', action: 'reject' });
    expect((await post(`/runs/${id}/approve`, {}, foreign.token)).status).toBe(404);
  });
});

describe('MCP decide tools with a revision', () => {
  it('runtime_approve_draft and runtime_reject_draft pass the revision', async () => {
    const { id, old, current } = await staleSkillItem();
    const stale = await fails(client, 'runtime_approve_draft', { runId: id, revision: old }, 'CONFLICT');
    expect(stale.details).toEqual({ reason: 'stale', revision: current });
    const rejectStale = await fails(client, 'runtime_reject_draft', { runId: id, revision: old }, 'CONFLICT');
    expect(rejectStale.details).toEqual({ reason: 'stale', revision: current });
    const run = await ok(client, 'runtime_approve_draft', { runId: id, revision: current });
    expect(run).toMatchObject({ id, status: 'approved' });
  });

  it('mission_approve passes the revision', async () => {
    const id = await missionAwaitingPlan(t, owner.token);
    const seen = await currentRevision(t, owner.token, 'mission', id);
    expect((await post('/reviews/assign', { kind: 'mission', id, assignedTo: null })).status).toBe(200);
    const stale = await fails(client, 'mission_approve', { missionRunId: id, revision: seen }, 'CONFLICT');
    expect(stale.details).toEqual({
      reason: 'stale',
      revision: await currentRevision(t, owner.token, 'mission', id),
    });
    const run = await ok(client, 'mission_approve', {
      missionRunId: id,
      revision: await currentRevision(t, owner.token, 'mission', id),
    });
    expect(run).toMatchObject({ id, status: 'executing' });
  });
});
