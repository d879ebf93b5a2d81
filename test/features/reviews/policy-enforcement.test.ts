/**
 * Review policies enforced at the one choke point (decisions.md §16), through the socket, on every
 * entry point that decides — `POST /reviews/decide`, `POST /runs/:id/approve|reject`,
 * `POST /reviews/decide-batch`, MCP `runtime_approve_draft` / `runtime_reject_draft`,
 * `mission_approve`, `review_decide_batch` — for each kind of item: a non-approver is refused (403
 * `not_an_approver`), the run's starter may not approve under `selfApproval: false` (403
 * `self_approval`, owners too), quorum (`required: 2`: the first approval is recorded on the item —
 * `approvals`, a new revision, the ledger's `approval` — the same user again is 409, the second
 * distinct approver decides; one reject rejects); assigning a non-approver is 400. A refusal changes
 * nothing.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { orgIdOf } from '../../helpers/api.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { connectHttp, fails, ok } from '../../helpers/mcp.js';
import { createMission, createTeam } from '../../helpers/missions.js';
import { createAgent, createSkill, createWorkflow } from '../../helpers/resources.js';
import {
  currentRevision,
  footprint,
  outboxDrained,
  pausedWorkflowRun,
  pendingSkillRun,
} from '../../helpers/reviews.js';
import { waitFor } from '../../helpers/wait.js';

let t: TestApp;
/** Owner, not an approver of `finance` (roles pm and client_reviewer). */
let olga: CreatedToken;
let fin1: CreatedToken;
let fin2: CreatedToken;
let fin3: CreatedToken;
const clients: Client[] = [];

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0', R3_MCP_HTTP_AUTHORING: 'true' });
  olga = await t.token({ org: 'acme', user: 'olga', role: 'owner', scopes: ALL_SCOPES });
  fin1 = await t.token({ org: 'acme', user: 'fin1', role: 'pm', scopes: ALL_SCOPES });
  fin2 = await t.token({ org: 'acme', user: 'fin2', role: 'client_reviewer', scopes: ALL_SCOPES });
  fin3 = await t.token({ org: 'acme', user: 'fin3', role: 'pm', scopes: ALL_SCOPES });
  const policy = async (body: Record<string, unknown>) => {
    const res = await t.request('POST', '/api/v1/review-policies', { token: olga.token, body });
    expect(res.status, res.text).toBe(201);
  };
  await policy({
    slug: 'finance',
    name: 'Finance',
    approvers: { roles: ['pm', 'client_reviewer'] },
    required: 2,
    selfApproval: false,
  });
  await policy({ slug: 'four-eyes', name: 'Four eyes', selfApproval: false });
  await createSkill(t, olga.token, {
    slug: 'invoice',
    name: 'Invoice',
    requiresApproval: true,
    reviewPolicy: 'finance',
  });
  await createSkill(t, olga.token, {
    slug: 'memo',
    name: 'Memo',
    requiresApproval: true,
    reviewPolicy: 'four-eyes',
  });
  await createWorkflow(t, olga.token, {
    slug: 'payout',
    name: 'Payout',
    steps: [{ name: 'sign', type: 'approve', reviewPolicy: 'finance' }],
  });
  await createTeam(t, olga.token, ['writer', 'editor']);
  await createMission(t, olga.token, 'launch', ['writer', 'editor'], {
    review: 'plan',
    reviewPolicy: 'finance',
  });
  await createAgent(t, olga.token, { slug: 'clerk', name: 'Clerk', reviewPolicy: 'finance' });
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await t?.close();
});

const post = (path: string, token: CreatedToken, body: unknown = {}) =>
  t.request('POST', `/api/v1${path}`, { token: token.token, body });

async function mcp(token: CreatedToken): Promise<Client> {
  const client = await connectHttp(t.url, token.token);
  clients.push(client);
  return client;
}

/** An invoice run started by `by`, waiting for review. */
const invoiceBy = (by: CreatedToken) => pendingSkillRun(t, by.token, 'invoice');

/** A proposal of agent `clerk` proposed by `by` (as its `propose_action` would). */
async function proposalBy(by: CreatedToken): Promise<number> {
  const { proposalId } = await t.app.proposals.create({
    orgId: await orgIdOf(t, 'acme'),
    action: { action: 'crm.create_note', params: { body: 'Signed.' } } as never,
    source: 'hubspot',
    agentSlug: 'clerk',
    rationale: 'The customer signed.',
    runId: null,
    callKey: null,
    actingAs: { actor: `token:${by.id}`, apiTokenId: by.id },
    requestId: null,
  });
  return proposalId;
}

/** A launch mission run started by `by`, awaiting review of its plan. */
async function missionBy(by: CreatedToken): Promise<number> {
  const res = await post('/mission-runs', by, { missionSlug: 'launch', input: { product: 'r3' } });
  expect(res.status, res.text).toBe(202);
  const id = res.body.missionRunId as number;
  await waitFor(async () => {
    await t.app.jobs.drain();
    return (
      (await t.request('GET', `/api/v1/mission-runs/${id}`, { token: olga.token })).body.status ===
      'awaiting_review'
    );
  }, `mission run ${id} to await review`);
  return id;
}

const review = async (kind: string, id: number) =>
  (await t.request('GET', `/api/v1/reviews/${kind}/${id}`, { token: olga.token })).body;

const ledgerOf = async (kind: string, id: number) =>
  (await t.request('GET', `/api/v1/audit/reviews?kind=${kind}&id=${id}`, { token: olga.token })).body
    .entries as Array<{
    event: string;
    details: Record<string, unknown>;
  }>;

/** Expects a 403 of the policy with `reason`. */
function refusedWith(res: { status: number; body: any; text: string }, reason: string) {
  expect(res.status, res.text).toBe(403);
  expect(res.body.error.code).toBe('FORBIDDEN');
  expect(res.body.error.details.reason).toBe(reason);
}

describe('approvers and self-approval through POST /reviews/decide', () => {
  it('refuses a non-approver, owners included (403 not_an_approver), changing nothing', async () => {
    const id = await invoiceBy(fin3);
    await outboxDrained(t);
    const before = await footprint(t, olga.token, id);
    for (const action of ['approve', 'reject']) {
      const res = await post('/reviews/decide', olga, { kind: 'skill', id, action });
      refusedWith(res, 'not_an_approver');
      expect(res.body.error.message).toContain('approvers: pm, client_reviewer');
      expect(res.body.error.details).toMatchObject({
        policy: 'finance',
        approvers: { roles: ['pm', 'client_reviewer'] },
      });
    }
    expect(await footprint(t, olga.token, id)).toEqual(before);
  });

  it('refuses the run’s starter (403 self_approval) — an owner too — but lets them reject', async () => {
    const id = await invoiceBy(fin1);
    const res = await post('/reviews/decide', fin1, { kind: 'skill', id, action: 'approve' });
    refusedWith(res, 'self_approval');
    expect(res.body.error.message).toContain('You started this run');
    expect((await review('skill', id)).review.approvals).toEqual([]);

    const memo = await pendingSkillRun(t, olga.token, 'memo');
    refusedWith(
      await post('/reviews/decide', olga, { kind: 'skill', id: memo, action: 'approve' }),
      'self_approval',
    );
    expect((await post('/reviews/decide', fin3, { kind: 'skill', id: memo, action: 'approve' })).status).toBe(
      200,
    );
    const own = await pendingSkillRun(t, olga.token, 'memo');
    expect(
      (await post('/reviews/decide', olga, { kind: 'skill', id: own, action: 'reject', reason: 'mine' }))
        .status,
    ).toBe(200);
    expect((await t.request('GET', `/api/v1/runs/${own}`, { token: olga.token })).body.status).toBe(
      'rejected',
    );
  });
});

describe('what the caller may do, known before deciding (GET /reviews/:kind/:id policy)', () => {
  const policyFor = async (token: CreatedToken, kind: string, id: number) => {
    const res = await t.request('GET', `/api/v1/reviews/${kind}/${id}`, { token: token.token });
    expect(res.status, res.text).toBe(200);
    return res.body.policy as { canDecide: boolean; canApprove: boolean; refusal: any };
  };

  it('says who may approve and, for whoever may not, the words the refusal would carry', async () => {
    const id = await invoiceBy(fin1);
    // A non-approver (an owner): may not decide at all, for the reason the 403 gives.
    const owner = await policyFor(olga, 'skill', id);
    const refused = await post('/reviews/decide', olga, { kind: 'skill', id, action: 'reject' });
    refusedWith(refused, 'not_an_approver');
    expect(owner).toMatchObject({
      canDecide: false,
      canApprove: false,
      refusal: { reason: 'not_an_approver', message: refused.body.error.message },
    });
    expect(owner.refusal.message).toContain('approvers: pm, client_reviewer');
    // The run's starter: may decide (reject) but not approve.
    const starter = await policyFor(fin1, 'skill', id);
    const own = await post('/reviews/decide', fin1, { kind: 'skill', id, action: 'approve' });
    refusedWith(own, 'self_approval');
    expect(starter).toMatchObject({
      canDecide: true,
      canApprove: false,
      refusal: { reason: 'self_approval', message: own.body.error.message },
    });
    expect(starter.refusal.message).toMatch(/^You started this run/);
    // Another approver may approve; once they did, they may not again (409), a third still may.
    expect(await policyFor(fin2, 'skill', id)).toEqual(
      expect.objectContaining({ canDecide: true, canApprove: true, refusal: null }),
    );
    expect((await post('/reviews/decide', fin2, { kind: 'skill', id, action: 'approve' })).status).toBe(200);
    expect(await policyFor(fin2, 'skill', id)).toMatchObject({
      canDecide: true,
      canApprove: false,
      refusal: { reason: 'already_approved' },
    });
    expect((await post('/reviews/decide', fin2, { kind: 'skill', id, action: 'approve' })).status).toBe(409);
    expect(await policyFor(fin3, 'skill', id)).toMatchObject({ canApprove: true, refusal: null });
  });

  it('tells a reader without the approve capability so, and answers 404 for another org, 403 without read:all', async () => {
    const id = await invoiceBy(fin1);
    const reader = await t.token({ org: 'acme', user: 'rita', role: 'specialist', scopes: ['read:all'] });
    expect(await policyFor(reader, 'skill', id)).toMatchObject({
      canDecide: false,
      canApprove: false,
      refusal: { reason: 'no_approve_capability', message: expect.stringContaining('run:approve') },
    });
    const stranger = await t.token({ org: 'elsewhere', user: 'sam', role: 'owner', scopes: ALL_SCOPES });
    const other = await t.request('GET', `/api/v1/reviews/skill/${id}`, { token: stranger.token });
    expect(other.status).toBe(404);
    const noScope = await t.token({ org: 'acme', user: 'ivy', role: 'pm', scopes: ['run:invoke'] });
    const scoped = await t.request('GET', `/api/v1/reviews/skill/${id}`, { token: noScope.token });
    expect(scoped.status).toBe(403);
    expect((await t.request('GET', '/api/v1/reviews/skill/x1', { token: olga.token })).status).toBe(404);
  });
});

describe('quorum', () => {
  it('records each approval but the last on the item, refuses the same user twice, decides on the second', async () => {
    const id = await invoiceBy(olga);
    const opened = await review('skill', id);
    expect(opened.review).toMatchObject({ required: 2, approvals: [] });
    expect(opened.policy).toMatchObject({
      slug: 'finance',
      source: 'named',
      namedBy: { kind: 'skill', slug: 'invoice', field: 'reviewPolicy' },
      required: 2,
      selfApproval: false,
      approvers: { roles: ['pm', 'client_reviewer'], users: [] },
    });

    const first = await post('/reviews/decide', fin1, {
      kind: 'skill',
      id,
      action: 'approve',
      revision: opened.review.revision,
    });
    expect(first.status, first.text).toBe(200);
    const after = await review('skill', id);
    expect(after.review.status).toBe('pending');
    expect(after.review.approvals).toEqual([{ by: 'fin1', at: expect.any(String) }]);
    expect(after.review.revision).not.toBe(opened.review.revision);
    expect(after.subject.status).toBe('pending');
    // The queue lists it with its approvals.
    const queue = await t.request('GET', '/api/v1/reviews?limit=200', { token: olga.token });
    expect(
      queue.body.reviews.find((r: { id: number; kind: string }) => r.kind === 'skill' && r.id === id),
    ).toMatchObject({
      required: 2,
      approvals: [{ by: 'fin1' }],
    });

    const again = await post('/reviews/decide', fin1, { kind: 'skill', id, action: 'approve' });
    expect(again.status).toBe(409);
    expect(again.body.error.details).toMatchObject({ reason: 'already_approved', by: 'fin1' });
    // The revision fin1 saw before its approval is stale now.
    const stale = await post('/reviews/decide', fin2, {
      kind: 'skill',
      id,
      action: 'approve',
      revision: opened.review.revision,
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.details.reason).toBe('stale');

    const second = await post('/reviews/decide', fin2, { kind: 'skill', id, action: 'approve' });
    expect(second.status, second.text).toBe(200);
    const run = await t.request('GET', `/api/v1/runs/${id}`, { token: olga.token });
    expect(run.body.status).toBe('approved');
    const events = (await ledgerOf('skill', id)).map((e) => e.event);
    expect(events).toEqual(['opened', 'approval', 'decided']);
    const approval = (await ledgerOf('skill', id))[1];
    expect(approval?.details).toMatchObject({ approvals: [{ by: 'fin1' }], required: 2 });
  });

  it('records an approval that does not decide at once, even with a delay (nothing to hold)', async () => {
    const id = await invoiceBy(olga);
    const res = await post('/reviews/decide', fin1, {
      kind: 'skill',
      id,
      action: 'approve',
      delaySeconds: 8,
    });
    expect(res.status, res.text).toBe(200);
    const after = await review('skill', id);
    expect(after.review).toMatchObject({ status: 'pending', approvals: [{ by: 'fin1' }] });
    // The deciding approval with a delay is held until effectiveAt.
    const last = await post('/reviews/decide', fin2, {
      kind: 'skill',
      id,
      action: 'approve',
      delaySeconds: 8,
    });
    expect(last.status, last.text).toBe(200);
    expect((await review('skill', id)).review.status).toBe('deciding');
  });

  it('lets one reject reject, after an approval', async () => {
    const id = await invoiceBy(olga);
    expect((await post('/reviews/decide', fin1, { kind: 'skill', id, action: 'approve' })).status).toBe(200);
    const res = await post('/reviews/decide', fin2, {
      kind: 'skill',
      id,
      action: 'reject',
      reason: 'wrong amount',
    });
    expect(res.status).toBe(200);
    expect((await t.request('GET', `/api/v1/runs/${id}`, { token: olga.token })).body.status).toBe(
      'rejected',
    );
  });

  it('refuses edits with an approval that does not decide (400), nothing recorded', async () => {
    const id = await invoiceBy(olga);
    await t.app.jobs.drain();
    const res = await post('/reviews/decide', fin1, {
      kind: 'skill',
      id,
      action: 'approve',
      edits: { output: { text: 'edited' } },
    });
    expect(res.status).toBe(400);
    expect((await review('skill', id)).review.approvals).toEqual([]);
  });

  it('counts two approvers racing as two approvals: the item is decided', async () => {
    const id = await invoiceBy(olga);
    const answers = await Promise.all([
      post('/reviews/decide', fin1, { kind: 'skill', id, action: 'approve' }),
      post('/reviews/decide', fin2, { kind: 'skill', id, action: 'approve' }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect((await t.request('GET', `/api/v1/runs/${id}`, { token: olga.token })).body.status).toBe(
      'approved',
    );
  });
});

describe('POST /runs/:id/approve and /reject', () => {
  it('enforce approvers, self-approval and quorum', async () => {
    const id = await invoiceBy(fin1);
    refusedWith(await post(`/runs/${id}/approve`, olga), 'not_an_approver');
    refusedWith(await post(`/runs/${id}/reject`, olga, { reason: 'no' }), 'not_an_approver');
    refusedWith(await post(`/runs/${id}/approve`, fin1), 'self_approval');
    const first = await post(`/runs/${id}/approve`, fin2);
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('pending');
    expect((await post(`/runs/${id}/approve`, fin2)).status).toBe(409);
    const second = await post(`/runs/${id}/approve`, fin3);
    expect(second.body.status).toBe('approved');
  });

  it('enforce the gate’s policy on a workflow run', async () => {
    const id = await pausedWorkflowRun(t, fin1.token, 'payout');
    refusedWith(await post(`/runs/${id}/approve`, olga), 'not_an_approver');
    refusedWith(await post(`/runs/${id}/approve`, fin1), 'self_approval');
    expect((await post('/reviews/decide', fin2, { kind: 'workflow', id, action: 'approve' })).status).toBe(
      200,
    );
    expect((await review('workflow', id)).review.approvals).toEqual([{ by: 'fin2', at: expect.any(String) }]);
    expect((await post(`/runs/${id}/approve`, fin3)).status).toBe(200);
    await t.app.jobs.drain();
    expect((await t.request('GET', `/api/v1/runs/${id}`, { token: olga.token })).body.status).not.toBe(
      'paused',
    );
  });
});

describe('POST /reviews/decide-batch', () => {
  it('refuses the whole batch when the policy refuses one item, and records approvals of a quorum', async () => {
    const mine = await invoiceBy(fin1);
    const other = await invoiceBy(olga);
    const memo = await pendingSkillRun(t, fin3.token, 'memo');
    const items = [
      { kind: 'skill', id: memo },
      { kind: 'skill', id: mine },
    ];
    refusedWith(await post('/reviews/decide-batch', fin1, { items, action: 'approve' }), 'self_approval');
    refusedWith(
      await post('/reviews/decide-batch', olga, { items: [{ kind: 'skill', id: other }], action: 'reject' }),
      'not_an_approver',
    );
    expect((await t.request('GET', `/api/v1/runs/${memo}`, { token: olga.token })).body.status).toBe(
      'pending',
    );
    const batch = await post('/reviews/decide-batch', fin2, {
      items: [...items, { kind: 'skill', id: other }],
      action: 'approve',
    });
    expect(batch.status, batch.text).toBe(200);
    // memo needs one approval: decided; the invoices need two: recorded.
    expect((await t.request('GET', `/api/v1/runs/${memo}`, { token: olga.token })).body.status).toBe(
      'approved',
    );
    expect((await review('skill', mine)).review.approvals).toEqual([{ by: 'fin2', at: expect.any(String) }]);
    const again = await post('/reviews/decide-batch', fin2, {
      items: [{ kind: 'skill', id: other }],
      action: 'approve',
    });
    expect(again.status).toBe(409);
    expect(again.body.error.details.reason).toBe('already_approved');
  });
});

describe('MCP', () => {
  it('runtime_approve_draft and runtime_reject_draft go through the policy', async () => {
    const id = await invoiceBy(fin1);
    const asOlga = await mcp(olga);
    const asFin1 = await mcp(fin1);
    expect((await fails(asOlga, 'runtime_approve_draft', { runId: id }, 'FORBIDDEN')).details.reason).toBe(
      'not_an_approver',
    );
    expect((await fails(asOlga, 'runtime_reject_draft', { runId: id }, 'FORBIDDEN')).details.reason).toBe(
      'not_an_approver',
    );
    expect((await fails(asFin1, 'runtime_approve_draft', { runId: id }, 'FORBIDDEN')).details.reason).toBe(
      'self_approval',
    );
    const asFin2 = await mcp(fin2);
    expect(await ok(asFin2, 'runtime_approve_draft', { runId: id })).toMatchObject({ status: 'pending' });
    expect((await fails(asFin2, 'runtime_approve_draft', { runId: id }, 'CONFLICT')).details.reason).toBe(
      'already_approved',
    );
    expect(await ok(await mcp(fin3), 'runtime_approve_draft', { runId: id })).toMatchObject({
      status: 'approved',
    });
  });

  it('mission_approve goes through the mission’s policy', async () => {
    const id = await missionBy(fin1);
    expect(
      (await fails(await mcp(olga), 'mission_approve', { missionRunId: id }, 'FORBIDDEN')).details.reason,
    ).toBe('not_an_approver');
    const asFin1 = await mcp(fin1);
    expect((await fails(asFin1, 'mission_approve', { missionRunId: id }, 'FORBIDDEN')).details.reason).toBe(
      'self_approval',
    );
    await ok(await mcp(fin2), 'mission_approve', { missionRunId: id });
    expect((await review('mission', id)).review).toMatchObject({
      status: 'awaiting_review',
      approvals: [{ by: 'fin2' }],
    });
    await ok(await mcp(fin3), 'mission_approve', { missionRunId: id });
    expect((await review('mission', id)).review.status).toBe('decided');
  });

  it('review_decide_batch goes through the policy of each item', async () => {
    const proposal = await proposalBy(fin1);
    const asFin1 = await mcp(fin1);
    const refused = await fails(
      asFin1,
      'review_decide_batch',
      { items: [{ kind: 'action', id: proposal }], action: 'approve' },
      'FORBIDDEN',
    );
    expect(refused.details.reason).toBe('self_approval');
    const asOlga = await mcp(olga);
    const other = await fails(
      asOlga,
      'review_decide_batch',
      { items: [{ kind: 'action', id: proposal }], action: 'reject' },
      'FORBIDDEN',
    );
    expect(other.details.reason).toBe('not_an_approver');
    expect(
      await ok(await mcp(fin2), 'review_decide_batch', {
        items: [{ kind: 'action', id: proposal }],
        action: 'approve',
      }),
    ).toEqual({
      ok: true,
      decided: 1,
    });
    expect((await review('action', proposal)).review.approvals).toEqual([
      { by: 'fin2', at: expect.any(String) },
    ]);
    const policy = (await review('action', proposal)).policy;
    expect(policy).toMatchObject({ slug: 'finance', namedBy: { kind: 'agent', slug: 'clerk' } });
  });
});

describe('POST /reviews/assign', () => {
  it('refuses to assign a non-approver (400) and assigns an approver', async () => {
    const id = await invoiceBy(olga);
    const res = await post('/reviews/assign', fin1, { kind: 'skill', id, assignedTo: 'olga' });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues[0]).toMatchObject({ field: 'body.assignedTo' });
    expect(res.body.error.details.issues[0].message).toContain('not an approver');
    expect((await post('/reviews/assign', fin1, { kind: 'skill', id, assignedTo: 'fin2' })).status).toBe(200);
    expect((await post('/reviews/assign', fin1, { kind: 'skill', id, assignedTo: null })).status).toBe(200);
    // Where the policy names no approvers, anyone of the org may be assigned.
    const memo = await pendingSkillRun(t, fin3.token, 'memo');
    expect(
      (await post('/reviews/assign', fin1, { kind: 'skill', id: memo, assignedTo: 'olga' })).status,
    ).toBe(200);
    expect(await currentRevision(t, olga.token, 'skill', memo)).toBeTruthy();
  });
});
