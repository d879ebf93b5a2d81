/**
 * Undo (decisions.md §15) through the socket: `delaySeconds` on every decision path holds the
 * decision in its item (`status: "deciding"`, `effectiveAt`, `decision`) with nothing dispatched
 * until its durable timer fires; `POST /reviews/undo` before `effectiveAt` opens the item again with a
 * new revision, after it (or on an item holding no decision) 409; another org's item 404, bad input
 * 400, a token without the approve capability 403; another decision on a deciding item 409; what the
 * ledger keeps (`undone`, and `decided` only when the decision took effect, with when it was asked).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../../src/features/reviews/ledger.js';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { connectHttp, fails, ok } from '../../helpers/mcp.js';
import { createSkill } from '../../helpers/resources.js';
import {
  currentRevision,
  footprint,
  itemsOf,
  missionAwaitingPlan,
  pausedWorkflowRun,
  pendingSkillRun,
  setupReviewOrg,
} from '../../helpers/reviews.js';

let t: TestApp;
let owner: CreatedToken;
let foreign: CreatedToken;
let reader: CreatedToken;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  // The tests fire the timers themselves (runDue), at the clock they set.
  await t.app.timers.stop();
  // What a refused call leaves is compared (footprint): the outbox relay would empty it meanwhile.
  await t.app.outbox.stop();
  owner = (await setupReviewOrg(t, 'acme')).owner;
  await createSkill(t, owner.token, {
    slug: 'shaped',
    requiresApproval: true,
    outputSchema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
  });
  foreign = (await setupReviewOrg(t, 'other')).owner;
  reader = await t.token({ org: 'acme', user: 'rita', role: 'pm', scopes: ['read:all', 'run:invoke'] });
});
afterAll(() => t.close());

const get = (path: string, token = owner.token) => t.request('GET', `/api/v1${path}`, { token });
const post = (path: string, body: unknown, token = owner.token) =>
  t.request('POST', `/api/v1${path}`, { token, body });
const review = async (kind: string, id: number) => {
  const res = await get(`/reviews/${kind}/${id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.review;
};
const runStatus = async (id: number) => (await get(`/runs/${id}`)).body.status;
/** The ledger's entries of item `kind`/`id`, oldest first. */
async function ledgerOf(kind: string, id: number): Promise<LedgerEntry[]> {
  const res = await get(`/audit/reviews?kind=${kind}&id=${id}&limit=200`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.entries;
}
/** Advances the clock past `effectiveAt` and fires what is due; how many timers fired. */
async function passEffect(effectiveAt: string): Promise<number> {
  t.clock.set(Date.parse(effectiveAt) + 1);
  return t.app.timers.runDue();
}

describe('POST /reviews/decide with delaySeconds', () => {
  it('holds the decision until effectiveAt, then dispatches it once, as the reviewer asked', async () => {
    const id = await pendingSkillRun(t, owner.token);
    const before = await currentRevision(t, owner.token, 'skill', id);
    const now = t.clock.now();
    const res = await post('/reviews/decide', {
      kind: 'skill',
      id,
      action: 'approve',
      reason: 'fine',
      revision: before,
      delaySeconds: 8,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const held = await review('skill', id);
    expect(held).toMatchObject({
      status: 'deciding',
      effectiveAt: new Date(now + 8_000).toISOString(),
      decision: { action: 'approve', edits: null, reason: 'fine', by: `token:${owner.id}` },
    });
    expect(held.revision).not.toBe(before);
    // Listed in the queue as deciding; the run has not moved and nothing was dispatched.
    expect(res.body.reviews.find((r: { id: number }) => r.id === id)).toMatchObject({ status: 'deciding' });
    expect(await runStatus(id)).toBe('pending');
    expect(
      (await get(`/runs/${id}/transitions`)).body.transitions.map((x: { to: string }) => x.to),
    ).not.toContain('approved');
    // Not yet due: nothing fires.
    t.clock.set(now + 7_999);
    expect(await t.app.timers.runDue()).toBe(0);
    expect(await runStatus(id)).toBe('pending');

    expect(await passEffect(held.effectiveAt)).toBe(1);
    expect(await runStatus(id)).toBe('approved');
    const run = (await get(`/runs/${id}`)).body;
    expect(run.review).toMatchObject({ decision: 'approved', by: `token:${owner.id}`, note: 'fine' });
    expect(await review('skill', id)).toMatchObject({ status: 'decided', effectiveAt: null, decision: null });
    // A second firing finds nothing: the decision took effect once.
    expect(await t.app.timers.runDue()).toBe(0);
    const events = (await ledgerOf('skill', id)).map((e) => e.event);
    expect(events).toEqual(['opened', 'decided']);
    const decided = (await ledgerOf('skill', id)).at(-1) as LedgerEntry;
    expect(decided.by).toBe(`token:${owner.id}`);
    expect(decided.details.delayed).toMatchObject({
      action: 'approve',
      by: `token:${owner.id}`,
      decidedAt: new Date(now).toISOString(),
      effectiveAt: held.effectiveAt,
    });
  });

  it('undo before effectiveAt opens the item again with a new revision; nothing is ever dispatched', async () => {
    const id = await pendingSkillRun(t, owner.token);
    expect(
      (await post('/reviews/decide', { kind: 'skill', id, action: 'reject', reason: 'no', delaySeconds: 30 }))
        .status,
    ).toBe(200);
    const held = await review('skill', id);
    t.clock.advance(29_000);
    const res = await post('/reviews/undo', { kind: 'skill', id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.ok).toBe(true);
    const open = await review('skill', id);
    expect(open).toMatchObject({ status: 'pending', effectiveAt: null, decision: null });
    expect(open.revision).not.toBe(held.revision);
    // Its timer is gone: past effectiveAt nothing fires, the run still waits.
    expect(await passEffect(held.effectiveAt)).toBe(0);
    expect(await runStatus(id)).toBe('pending');
    const entries = await ledgerOf('skill', id);
    expect(entries.map((e) => e.event)).toEqual(['opened', 'undone']);
    expect(entries[1]?.details.undone).toMatchObject({
      action: 'reject',
      reason: 'no',
      by: `token:${owner.id}`,
      effectiveAt: held.effectiveAt,
    });
    // Decided again, at once, with the new revision.
    const again = await post('/reviews/decide', {
      kind: 'skill',
      id,
      action: 'approve',
      revision: open.revision,
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(await runStatus(id)).toBe('approved');
  });

  it('undo at or after effectiveAt is 409, whether or not the timer fired', async () => {
    const id = await pendingSkillRun(t, owner.token);
    await post('/reviews/decide', { kind: 'skill', id, action: 'approve', delaySeconds: 2 });
    const held = await review('skill', id);
    t.clock.set(Date.parse(held.effectiveAt));
    const before = await footprint(t, owner.token, id);
    const late = await post('/reviews/undo', { kind: 'skill', id });
    expect(late.status, JSON.stringify(late.body)).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'CONFLICT', details: { effectiveAt: held.effectiveAt } });
    expect(await footprint(t, owner.token, id)).toEqual(before);
    expect(await t.app.timers.runDue()).toBe(1);
    expect(await runStatus(id)).toBe('approved');
    const after = await post('/reviews/undo', { kind: 'skill', id });
    expect(after.status).toBe(409);
    expect(after.body.error.code).toBe('CONFLICT');
  });

  it('undo of an item holding no decision is 409; of another org’s 404; bad body 400; without the scope 403', async () => {
    const id = await pendingSkillRun(t, owner.token);
    const open = await post('/reviews/undo', { kind: 'skill', id });
    expect(open.status).toBe(409);
    expect(open.body.error.details).toMatchObject({ kind: 'skill', id, status: 'unassigned' });

    await post('/reviews/decide', { kind: 'skill', id, action: 'approve', delaySeconds: 10 });
    const before = await footprint(t, owner.token, id);
    const foreignUndo = await post('/reviews/undo', { kind: 'skill', id }, foreign.token);
    expect(foreignUndo.status).toBe(404);
    expect(foreignUndo.body.error.code).toBe('NOT_FOUND');
    for (const body of [
      { kind: 'skill' },
      { kind: 'run', id },
      { kind: 'skill', id: 'x' },
      { kind: 'skill', id, extra: 1 },
    ]) {
      const bad = await post('/reviews/undo', body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.error.code).toBe('VALIDATION_FAILED');
      expect(bad.body.error.details.issues.length).toBeGreaterThan(0);
    }
    const noScope = await post('/reviews/undo', { kind: 'skill', id }, reader.token);
    expect(noScope.status).toBe(403);
    expect(await post('/reviews/undo', { kind: 'skill', id: 999_999 })).toMatchObject({ status: 404 });
    // None of them changed anything: the decision still waits.
    expect(await footprint(t, owner.token, id)).toEqual(before);
    expect((await post('/reviews/undo', { kind: 'skill', id })).status).toBe(200);
  });

  it('delaySeconds outside 0–30 or not whole is 400 naming it, nothing changed; 0 decides at once', async () => {
    const id = await pendingSkillRun(t, owner.token);
    const before = await footprint(t, owner.token, id);
    for (const delaySeconds of [31, -1, 1.5, '8']) {
      const res = await post('/reviews/decide', { kind: 'skill', id, action: 'approve', delaySeconds });
      expect(res.status, JSON.stringify(delaySeconds)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details.issues[0].field).toBe('body.delaySeconds');
      const viaRun = await post(`/runs/${id}/approve`, { delaySeconds });
      expect(viaRun.status).toBe(400);
    }
    const changes = await post('/reviews/decide', {
      kind: 'skill',
      id,
      action: 'request_changes',
      reason: 'shorter',
      delaySeconds: 8,
    });
    expect(changes.status).toBe(400);
    expect(changes.body.error.details.issues[0].field).toBe('body.delaySeconds');
    expect(await footprint(t, owner.token, id)).toEqual(before);
    expect(
      (await post('/reviews/decide', { kind: 'skill', id, action: 'approve', delaySeconds: 0 })).status,
    ).toBe(200);
    expect(await runStatus(id)).toBe('approved');
  });
});

describe('a deciding item', () => {
  it('refuses another decision on every path (409), a stale revision too; assign and snooze as well', async () => {
    const id = await pendingSkillRun(t, owner.token);
    const seen = await currentRevision(t, owner.token, 'skill', id);
    await post('/reviews/decide', { kind: 'skill', id, action: 'approve', revision: seen, delaySeconds: 10 });
    const held = await review('skill', id);
    const before = await footprint(t, owner.token, id);
    const again = await post('/reviews/decide', {
      kind: 'skill',
      id,
      action: 'reject',
      revision: held.revision,
    });
    expect(again.status).toBe(409);
    expect(again.body.error.details).toMatchObject({ status: 'deciding', effectiveAt: held.effectiveAt });
    const stale = await post('/reviews/decide', { kind: 'skill', id, action: 'reject', revision: seen });
    expect(stale.status).toBe(409);
    expect(stale.body.error.details).toEqual({ reason: 'stale', revision: held.revision });
    expect((await post(`/runs/${id}/reject`, {})).status).toBe(409);
    expect((await post(`/runs/${id}/approve`, { delaySeconds: 5 })).status).toBe(409);
    const batch = await post('/reviews/decide-batch', { items: [{ kind: 'skill', id }], action: 'reject' });
    expect(batch.status).toBe(409);
    expect(batch.body.error.details.items).toEqual([{ kind: 'skill', id, reason: 'not_open' }]);
    expect((await post('/reviews/assign', { kind: 'skill', id, assignedTo: null })).status).toBe(409);
    expect(
      (
        await post('/reviews/snooze', {
          kind: 'skill',
          id,
          until: new Date(t.clock.now() + 60_000).toISOString(),
        })
      ).status,
    ).toBe(409);
    expect(await footprint(t, owner.token, id)).toEqual(before);
    // The decision taken first is the one that takes effect.
    expect(await passEffect(held.effectiveAt)).toBe(1);
    expect(await runStatus(id)).toBe('approved');
  });

  it('a run cancelled during the delay cancels the item and its timer: nothing is dispatched', async () => {
    const id = await pendingSkillRun(t, owner.token);
    await post('/reviews/decide', { kind: 'skill', id, action: 'approve', delaySeconds: 10 });
    const held = await review('skill', id);
    expect((await post(`/runs/${id}/cancel`, {})).status).toBe(200);
    expect(await passEffect(held.effectiveAt)).toBe(0);
    expect(await runStatus(id)).toBe('cancelled');
    expect((await itemsOf(t, id)).map((i) => i.status)).toEqual(['cancelled']);
  });
});

describe('delaySeconds on the other paths', () => {
  it('POST /runs/:id/reject with a delay: the workflow is cancelled only at effectiveAt', async () => {
    const id = await pausedWorkflowRun(t, owner.token);
    const res = await post(`/runs/${id}/reject`, { reason: 'not now', delaySeconds: 5 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('paused');
    const held = await review('workflow', id);
    expect(held).toMatchObject({ status: 'deciding', decision: { action: 'reject', reason: 'not now' } });
    expect(await passEffect(held.effectiveAt)).toBe(1);
    expect(await runStatus(id)).toBe('cancelled');
    expect((await get(`/runs/${id}`)).body.review).toMatchObject({ decision: 'rejected', reason: 'not now' });
  });

  it('an approval with edits and a delay: bad edits are 400 at once (nothing held); good ones apply at effectiveAt', async () => {
    const id = await pendingSkillRun(t, owner.token, 'shaped');
    await t.app.jobs.drain();
    await expect.poll(async () => (await get(`/runs/${id}`)).body.output).not.toBeNull();
    const before = await footprint(t, owner.token, id);
    const bad = await post(`/runs/${id}/approve`, { edits: { output: { text: 5 } }, delaySeconds: 5 });
    expect(bad.status, JSON.stringify(bad.body)).toBe(400);
    expect(bad.body.error.details.issues[0].field).toBe('body.edits.output.text');
    expect(await footprint(t, owner.token, id)).toEqual(before);

    const good = await post('/reviews/decide', {
      kind: 'skill',
      id,
      action: 'approve',
      edits: { output: { text: 'Edited' } },
      delaySeconds: 5,
    });
    expect(good.status, JSON.stringify(good.body)).toBe(200);
    const held = await review('skill', id);
    expect(held.decision).toMatchObject({ action: 'approve', edits: { output: { text: 'Edited' } } });
    expect((await get(`/runs/${id}`)).body.output).not.toEqual({ text: 'Edited' });
    expect(await passEffect(held.effectiveAt)).toBe(1);
    const run = (await get(`/runs/${id}`)).body;
    expect(run).toMatchObject({
      status: 'approved',
      output: { text: 'Edited' },
      review: { edited: true },
    });
  });

  it('decide-batch with a delay holds every item; they take effect together', async () => {
    const a = await pendingSkillRun(t, owner.token);
    const b = await pendingSkillRun(t, owner.token);
    const res = await post('/reviews/decide-batch', {
      items: [
        { kind: 'skill', id: a },
        { kind: 'skill', id: b },
      ],
      action: 'approve',
      delaySeconds: 3,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.decided).toBe(2);
    const held = await review('skill', a);
    expect((await review('skill', b)).status).toBe('deciding');
    expect(await runStatus(a)).toBe('pending');
    const bad = await post('/reviews/decide-batch', {
      items: [{ kind: 'skill', id: a }],
      action: 'approve',
      delaySeconds: 99,
    });
    expect(bad.status).toBe(400);
    expect(await passEffect(held.effectiveAt)).toBe(2);
    expect([await runStatus(a), await runStatus(b)]).toEqual(['approved', 'approved']);
  });

  it('MCP review_decide_batch with delaySeconds holds the decision; undo withdraws it', async () => {
    const id = await pendingSkillRun(t, owner.token);
    const client = await connectHttp(t.url, owner.token);
    try {
      expect(
        await ok(client, 'review_decide_batch', {
          items: [{ kind: 'skill', id }],
          action: 'reject',
          delaySeconds: 6,
        }),
      ).toMatchObject({ ok: true, decided: 1 });
    } finally {
      await client.close();
    }
    const held = await review('skill', id);
    expect(held).toMatchObject({ status: 'deciding', decision: { action: 'reject' } });
    expect((await post('/reviews/undo', { kind: 'skill', id })).status).toBe(200);
    expect(await passEffect(held.effectiveAt)).toBe(0);
    expect(await runStatus(id)).toBe('pending');
  });

  it('MCP runtime_approve_draft, runtime_reject_draft and mission_approve take delaySeconds through the choke point', async () => {
    const approved = await pendingSkillRun(t, owner.token);
    const rejected = await pausedWorkflowRun(t, owner.token);
    const mission = await missionAwaitingPlan(t, owner.token);
    const client = await connectHttp(t.url, owner.token);
    try {
      const revision = await currentRevision(t, owner.token, 'skill', approved);
      expect(
        await ok(client, 'runtime_approve_draft', { runId: approved, note: 'ok', revision, delaySeconds: 4 }),
      ).toMatchObject({ id: approved, status: 'pending' });
      expect(
        await ok(client, 'runtime_reject_draft', { runId: rejected, reason: 'no', delaySeconds: 4 }),
      ).toMatchObject({ id: rejected, status: 'paused' });
      expect(await ok(client, 'mission_approve', { missionRunId: mission, delaySeconds: 4 })).toMatchObject({
        id: mission,
        status: 'awaiting_review',
      });
      // Out of range: refused with the argument named, nothing held.
      const other = await pendingSkillRun(t, owner.token);
      const bad = await fails(
        client,
        'runtime_approve_draft',
        { runId: other, delaySeconds: 31 },
        'VALIDATION_FAILED',
      );
      expect(JSON.stringify(bad.details)).toContain('delaySeconds');
      expect((await review('skill', other)).status).toBe('pending');
    } finally {
      await client.close();
    }
    const held = await review('skill', approved);
    expect(held).toMatchObject({
      status: 'deciding',
      decision: { action: 'approve', reason: 'ok', by: `token:${owner.id}` },
    });
    expect(await review('workflow', rejected)).toMatchObject({
      status: 'deciding',
      decision: { action: 'reject', reason: 'no' },
    });
    expect(await review('mission', mission)).toMatchObject({
      status: 'deciding',
      decision: { action: 'approve' },
    });
    // The mission's approval is withdrawn; the two others take effect at effectiveAt.
    expect((await post('/reviews/undo', { kind: 'mission', id: mission })).status).toBe(200);
    expect(await passEffect(held.effectiveAt)).toBe(2);
    expect(await runStatus(approved)).toBe('approved');
    expect(await runStatus(rejected)).toBe('cancelled');
    expect((await get(`/mission-runs/${mission}`)).body.status).toBe('awaiting_review');
    expect((await review('mission', mission)).status).toBe('awaiting_review');
  });
});
