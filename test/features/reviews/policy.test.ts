/**
 * Review policies (decisions.md §16) as authored resources, through the socket: `/review-policies`
 * (create, list, detail with `usedBy`, patch, delete — 409 while named), validation at write time
 * (unknown role or user, required outside 1–5, remindBefore longer than dueIn, escalate without
 * escalateTo: 400, nothing written), who may write one or change which one a resource names (403 for
 * a specialist or a token without the approve capability), and the policy in force for an item
 * (`reviews.policies.inForce`): named by the skill, the workflow gate, the mission, the agent; the
 * org's `default`; built-in; as of the version the run started on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fields, orgIdOf } from '../../helpers/api.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { createAgent, createSkill, createWorkflow, workspaceFileCount } from '../../helpers/resources.js';
import { pausedWorkflowRun, pendingSkillRun, proposalOf } from '../../helpers/reviews.js';

let t: TestApp;
let owner: string;
let orgId: number;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  owner = (await t.token({ org: 'acme', user: 'olga', role: 'owner', scopes: ALL_SCOPES })).token;
  // Users a policy may name.
  await t.token({ org: 'acme', user: 'fin-1', role: 'pm', scopes: ALL_SCOPES });
  await t.token({ org: 'acme', user: 'fin-2', role: 'client_reviewer', scopes: ALL_SCOPES });
  orgId = await orgIdOf(t, 'acme');
});
afterAll(async () => {
  await t?.close();
});

const api = (method: string, path: string, body?: unknown, token = owner) =>
  t.request(method, `/api/v1${path}`, { token, ...(body === undefined ? {} : { body }) });

const policyCount = () => workspaceFileCount(t, 'review-policies/');

describe('/review-policies', () => {
  it('creates a policy with its defaults, lists it, shows it with what names it, and updates it', async () => {
    const created = await api('POST', '/review-policies', {
      slug: 'finance',
      name: 'Finance',
      approvers: { roles: ['pm'], users: ['fin-2'] },
      required: 2,
      selfApproval: false,
      dueIn: '4h',
      remindBefore: '30m',
      escalateTo: { users: ['olga'] },
      onTimeout: 'escalate',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      slug: 'finance',
      name: 'Finance',
      description: '',
      approvers: { roles: ['pm'], users: ['fin-2'] },
      required: 2,
      selfApproval: false,
      dueIn: '4h',
      remindBefore: '30m',
      escalateTo: { users: ['olga'] },
      onTimeout: 'escalate',
      isDefault: false,
      usedBy: [],
    });
    const minimal = await api('POST', '/review-policies', { slug: 'default', name: 'Default' });
    expect(minimal.status).toBe(201);
    expect(minimal.body).toMatchObject({
      required: 1,
      selfApproval: true,
      onTimeout: 'none',
      isDefault: true,
    });
    expect(minimal.body.approvers).toBeUndefined();

    await createSkill(t, owner, {
      slug: 'invoice',
      name: 'Invoice',
      requiresApproval: true,
      reviewPolicy: 'finance',
    });
    await createWorkflow(t, owner, {
      slug: 'payout',
      name: 'Payout',
      steps: [
        { name: 'first', type: 'approve' },
        { name: 'second', type: 'approve', reviewPolicy: 'finance' },
      ],
    });
    await createAgent(t, owner, { slug: 'clerk', name: 'Clerk', reviewPolicy: 'finance' });
    const detail = await api('GET', '/review-policies/finance');
    expect(detail.status).toBe(200);
    expect(detail.body.usedBy).toEqual([
      { kind: 'agent', slug: 'clerk', name: 'Clerk', field: 'reviewPolicy' },
      { kind: 'skill', slug: 'invoice', name: 'Invoice', field: 'reviewPolicy' },
      { kind: 'workflow', slug: 'payout', name: 'Payout', field: 'steps.1.reviewPolicy' },
    ]);

    const list = await api('GET', '/review-policies?limit=1');
    expect(list.status).toBe(200);
    expect(list.body.reviewPolicies.map((p: { slug: string }) => p.slug)).toEqual(['default']);
    const next = await api('GET', `/review-policies?limit=1&cursor=${list.body.nextCursor}`);
    expect(next.body.reviewPolicies.map((p: { slug: string }) => p.slug)).toEqual(['finance']);
    expect(next.body.nextCursor).toBeNull();

    const patched = await api('PATCH', '/review-policies/default', { required: 3, dueIn: '1h' });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ slug: 'default', required: 3, dueIn: '1h' });
    const removed = await api('PATCH', '/review-policies/default', { dueIn: null, required: 1 });
    expect(removed.body.dueIn).toBeUndefined();
  });

  it('refuses bad policies with 400 naming the field, writing nothing', async () => {
    const before = await policyCount();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ approvers: { roles: ['finance'] } }, 'body.approvers.roles.0'],
      [{ approvers: { users: ['nobody'] } }, 'body.approvers.users.0'],
      [{ escalateTo: { users: ['ghost'] } }, 'body.escalateTo.users.0'],
      [{ required: 0 }, 'body.required'],
      [{ required: 6 }, 'body.required'],
      [{ dueIn: '1h', remindBefore: '2h' }, 'body.remindBefore'],
      [{ remindBefore: '2h' }, 'body.remindBefore'],
      [{ dueIn: '1h', onTimeout: 'escalate' }, 'body.escalateTo'],
      [{ onTimeout: 'reject' }, 'body.onTimeout'],
      [{ dueIn: '500ms' }, 'body.dueIn'],
      [{ dueIn: 'soon' }, 'body.dueIn'],
      [{ approvers: {} }, 'body.approvers'],
      [{ quorum: 2 }, 'body'],
    ];
    for (const [extra, field] of cases) {
      const res = await api('POST', '/review-policies', { slug: 'bad', name: 'Bad', ...extra });
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(fields(res.body), JSON.stringify(extra)).toContain(field);
    }
    // remindBefore equal to dueIn is allowed (remind as the item opens).
    expect(
      (
        await api('POST', '/review-policies', {
          slug: 'edge',
          name: 'Edge',
          dueIn: '1h',
          remindBefore: '60m',
        })
      ).status,
    ).toBe(201);
    expect(await policyCount()).toBe(before + 1);
    expect((await api('DELETE', '/review-policies/edge')).status).toBe(200);
    // A patch that breaks a rule is refused too.
    const res = await api('PATCH', '/review-policies/finance', { remindBefore: '5h' });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toContain('body.remindBefore');
  });

  it('refuses a resource naming a policy that does not exist', async () => {
    const res = await api('POST', '/skills', {
      manifest: { slug: 'orphan', name: 'Orphan', reviewPolicy: 'nope' },
      promptMd: 'x',
    });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toContain('body.manifest.reviewPolicy');
  });

  it('needs the approve capability to write a policy or change which one a resource names (403)', async () => {
    const specialist = (await t.token({ org: 'acme', user: 'spec', role: 'specialist', scopes: ALL_SCOPES }))
      .token;
    const writer = (
      await t.token({ org: 'acme', user: 'pm-writer', role: 'pm', scopes: ['read:all', 'write:resources'] })
    ).token;
    for (const token of [specialist, writer]) {
      const create = await api('POST', '/review-policies', { slug: 'lax', name: 'Lax' }, token);
      expect(create.status).toBe(403);
      expect(create.body.error.code).toBe('FORBIDDEN');
      expect((await api('PATCH', '/review-policies/finance', { required: 1 }, token)).status).toBe(403);
      expect((await api('DELETE', '/review-policies/default', undefined, token)).status).toBe(403);
      const rename = await api('PATCH', '/skills/invoice', { manifest: { reviewPolicy: 'default' } }, token);
      expect(rename.status).toBe(403);
      const drop = await api('PATCH', '/skills/invoice', { manifest: { reviewPolicy: null } }, token);
      expect(drop.status).toBe(403);
      const named = await api(
        'POST',
        '/agents',
        { slug: 'sneaky', name: 'Sneaky', reviewPolicy: 'default' },
        token,
      );
      expect(named.status).toBe(403);
      // What does not touch a policy stays open to them.
      expect(
        (await api('PATCH', '/skills/invoice', { manifest: { description: 'Invoices' } }, token)).status,
      ).toBe(200);
    }
    expect((await api('GET', '/review-policies/finance')).body.required).toBe(2);
    expect((await api('GET', '/skills/invoice')).body.reviewPolicy).toBe('finance');
  });

  it('answers 404 for another org, 403 without the scope, 409 for an existing slug or while named', async () => {
    const stranger = (await t.token({ org: 'other', role: 'owner', scopes: ALL_SCOPES })).token;
    expect((await api('GET', '/review-policies/finance', undefined, stranger)).status).toBe(404);
    expect((await api('PATCH', '/review-policies/finance', { required: 1 }, stranger)).status).toBe(404);
    expect((await api('DELETE', '/review-policies/finance', undefined, stranger)).status).toBe(404);
    const reader = (await t.token({ org: 'acme', role: 'owner', scopes: ['run:invoke'] })).token;
    expect((await api('GET', '/review-policies', undefined, reader)).status).toBe(403);
    const dup = await api('POST', '/review-policies', { slug: 'finance', name: 'Again' });
    expect(dup.status).toBe(409);
    const del = await api('DELETE', '/review-policies/finance');
    expect(del.status).toBe(409);
    expect(del.body.error.details.referencedBy).toEqual(
      expect.arrayContaining([{ kind: 'skill', slug: 'invoice', field: 'reviewPolicy' }]),
    );
  });
});

describe('the policy in force', () => {
  it('is the one the skill, the gate, the mission or the agent names, as of the run’s version', async () => {
    const skillRun = await pendingSkillRun(t, owner, 'invoice');
    const named = await t.app.reviewPolicies.inForce(orgId, { kind: 'skill', id: skillRun });
    expect(named).toMatchObject({
      slug: 'finance',
      source: 'named',
      namedBy: { kind: 'skill', slug: 'invoice', field: 'reviewPolicy' },
      startedBy: 'olga',
      rules: { required: 2, selfApproval: false, dueInMs: 4 * 3_600_000, remindBeforeMs: 1_800_000 },
    });
    expect(named.rules.approvers).toEqual({ roles: ['pm'], users: ['fin-2'] });

    // A change after the run started does not change the run's policy.
    expect((await api('PATCH', '/review-policies/finance', { required: 3 })).status).toBe(200);
    expect((await t.app.reviewPolicies.inForce(orgId, { kind: 'skill', id: skillRun })).rules.required).toBe(
      2,
    );
    const later = await pendingSkillRun(t, owner, 'invoice');
    expect((await t.app.reviewPolicies.inForce(orgId, { kind: 'skill', id: later })).rules.required).toBe(3);

    // The workflow's first gate names none: the org's default; its second names finance.
    const run = await pausedWorkflowRun(t, owner, 'payout');
    const first = await t.app.reviewPolicies.inForce(orgId, { kind: 'workflow', id: run });
    expect(first).toMatchObject({ slug: 'default', source: 'default', namedBy: null });
    const approve = await api('POST', `/runs/${run}/approve`, {});
    expect(approve.status, JSON.stringify(approve.body)).toBe(200);
    await t.app.jobs.drain();
    await expect
      .poll(async () => (await api('GET', `/runs/${run}`)).body.pausedAt, { timeout: 30_000 })
      .toBe('second');
    const second = await t.app.reviewPolicies.inForce(orgId, { kind: 'workflow', id: run });
    expect(second).toMatchObject({
      slug: 'finance',
      namedBy: { kind: 'workflow', slug: 'payout', field: 'steps.1.reviewPolicy' },
    });

    // A proposal follows its agent's policy.
    const proposal = await proposalOf(t, 'acme', {
      action: 'crm.create_note',
      params: { body: 'hi' },
    } as never);
    await t.app.db.sql.query('update proposals set agent_slug = $1 where id = $2', ['clerk', proposal]);
    expect(await t.app.reviewPolicies.inForce(orgId, { kind: 'action', id: proposal })).toMatchObject({
      slug: 'finance',
      namedBy: { kind: 'agent', slug: 'clerk' },
    });
  });

  it('is built in where neither a resource nor the org names one', async () => {
    const stranger = (await t.token({ org: 'plain', user: 'pat', role: 'owner', scopes: ALL_SCOPES })).token;
    await createSkill(t, stranger, { slug: 'gated', name: 'Gated', requiresApproval: true });
    const id = await pendingSkillRun(t, stranger, 'gated');
    const policy = await t.app.reviewPolicies.inForce(await orgIdOf(t, 'plain'), { kind: 'skill', id });
    expect(policy).toMatchObject({
      slug: null,
      source: 'built_in',
      startedBy: 'pat',
      rules: { approvers: null, required: 1, selfApproval: true, onTimeout: 'none' },
    });
  });
});
