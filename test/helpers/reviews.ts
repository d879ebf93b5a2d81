/**
 * Review-queue fixtures: an org with review-producing skills and workflows, runs that wait in the
 * queue (a pending skill run, a workflow paused at its first gate), and readers of an item's row and
 * of everything a refused call must leave alone.
 */
import { expect } from 'vitest';
import type { ConnectorAction } from '../../src/features/connectors/index.js';
import type { CreatedToken } from '../../src/features/tokens/service.js';
import { orgIdOf } from './api.js';
import { ALL_SCOPES, type TestApp } from './app.js';
import { createMission, createTeam } from './missions.js';
import { createSkill, createWorkflow } from './resources.js';
import { waitFor } from './wait.js';

/** An org set up for review tests: an owner token (every scope) and its resources. */
export interface ReviewOrg {
  org: string;
  owner: CreatedToken;
}

/**
 * Creates org `org` with an owner (user `<org>-owner`, every scope) and: `gated` (requiresApproval),
 * `gated-strict` (requiresApproval, a draft that always fails its outputSchema), `echoer`, and the
 * workflows `gate-first` (gate `gate` titled "Go?", then `work`) and `routed` (gate assigned to
 * `assignee`, if given).
 */
export async function setupReviewOrg(t: TestApp, org: string, assignee?: string): Promise<ReviewOrg> {
  const owner = await t.token({ org, user: `${org}-owner`, role: 'owner', scopes: ALL_SCOPES });
  await createSkill(t, owner.token, { slug: 'gated', name: 'Gated draft', requiresApproval: true });
  await createSkill(t, owner.token, {
    slug: 'gated-strict',
    name: 'Strict draft',
    requiresApproval: true,
    outputSchema: { type: 'object', required: ['summary'] },
  });
  await createSkill(t, owner.token, { slug: 'echoer', name: 'Echoer' }, '<{{input.text}}>');
  await createWorkflow(t, owner.token, {
    slug: 'gate-first',
    name: 'Gate first',
    steps: [
      { name: 'gate', type: 'approve', title: 'Go?' },
      { name: 'work', type: 'skill', skill: 'echoer', input: { text: 'x' } },
    ],
  });
  if (assignee !== undefined) {
    await createWorkflow(t, owner.token, {
      slug: 'routed',
      name: 'Routed',
      steps: [{ name: 'check', type: 'approve', assignTo: assignee }],
    });
  }
  return { org, owner };
}

/** Triggers skill `slug` (default `gated`): a pending run, in the queue at once. */
export async function pendingSkillRun(t: TestApp, token: string, slug = 'gated'): Promise<number> {
  const res = await t.request('POST', `/api/v1/skills/${slug}/runs`, {
    token,
    body: { input: { text: 'x' } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(res.body.status).toBe('pending');
  return res.body.runId as number;
}

/** Triggers workflow `slug` (default `gate-first`) and lets the worker bring it to its first gate. */
export async function pausedWorkflowRun(t: TestApp, token: string, slug = 'gate-first'): Promise<number> {
  const res = await t.request('POST', `/api/v1/workflows/${slug}/runs`, { token, body: { input: {} } });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(res.body.status).toBe('running');
  await t.app.jobs.drain();
  // The app's own workers may hold the step while drain() looks: wait for the gate.
  await expect
    .poll(async () => (await t.request('GET', `/api/v1/runs/${res.body.runId}`, { token })).body.status, {
      timeout: 30_000,
    })
    .toBe('paused');
  return res.body.runId as number;
}

/** The review item rows of run `runId` (every one it ever had, oldest first). */
export interface ItemRow {
  id: number;
  status: string;
  open: boolean;
  assigned_to: string | null;
  snoozed_until: Date | null;
  note: string | null;
  version: number;
}

export async function itemsOf(t: TestApp, runId: number, kind = 'skill'): Promise<ItemRow[]> {
  return t.app.db.sql.query<ItemRow>(
    `select id, status, open, assigned_to, snoozed_until, note, version from review_items
      where run_id = $1 and kind = $2 order by id`,
    [runId, kind],
  );
}

/** The one open item of `runId`. */
export async function openItem(t: TestApp, runId: number, kind = 'skill'): Promise<ItemRow> {
  const open = (await itemsOf(t, runId, kind)).filter((i) => i.open);
  expect(open).toHaveLength(1);
  return open[0] as ItemRow;
}

/**
 * Waits until the outbox relay has sent every event written so far: the outbox count in `footprint`
 * is then steady (a refused call writes none).
 */
export async function outboxDrained(t: TestApp): Promise<void> {
  await expect
    .poll(
      async () => (await t.app.db.sql.one<{ n: number }>('select count(*)::int as n from outbox_messages')).n,
    )
    .toBe(0);
}

/**
 * The skill `reply` ("Customer reply") the browser tests review: it waits for approval, and its items
 * are titled `Reply to <input.customer>`; `manifest` adds to (or overrides) that.
 */
export function createReplySkill(
  t: TestApp,
  token: string,
  promptMd: string,
  manifest: Record<string, unknown> = {},
): Promise<unknown> {
  return createSkill(
    t,
    token,
    {
      slug: 'reply',
      name: 'Customer reply',
      requiresApproval: true,
      titleTemplate: 'Reply to {{input.customer}}',
      ...manifest,
    },
    promptMd,
  );
}

/**
 * Lets decisions the web UI took with its undo delay (`delaySeconds`) take effect: waits until each
 * item of `kind` with an id of `ids` is `deciding`, moves the test clock past the latest `effectiveAt`
 * and fires the timers due. The page's countdown runs on the browser's clock; nothing here sleeps.
 */
export async function decisionsTakeEffect(
  t: TestApp,
  token: string,
  kind: string,
  ...ids: number[]
): Promise<void> {
  let latest = t.clock.now();
  for (const id of ids) {
    let effectiveAt: string | null = null;
    await expect
      .poll(async () => {
        const res = await t.request('GET', `/api/v1/reviews/${kind}/${id}`, { token });
        effectiveAt = res.body.review?.effectiveAt ?? null;
        return res.body.review?.status;
      })
      .toBe('deciding');
    latest = Math.max(latest, Date.parse(effectiveAt ?? '') + 1);
  }
  t.clock.set(latest);
  await t.app.timers.runDue();
}

/** The current revision of the item of subject `kind`/`id`, as `GET /reviews/:kind/:id` answers it. */
export async function currentRevision(t: TestApp, token: string, kind: string, id: number): Promise<string> {
  const res = await t.request('GET', `/api/v1/reviews/${kind}/${id}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.review.revision as string;
}

/**
 * Everything a call on `runId` could change: the run as the API shows it, its items, and the org's
 * transition-log, audit, outbox and timer rows. Equal before and after means the call changed nothing.
 */
export async function footprint(t: TestApp, token: string, runId: number, kind = 'skill') {
  const run = await t.request('GET', `/api/v1/runs/${runId}`, { token });
  const counts = await t.app.db.sql.one(
    `select (select count(*)::int from actor_transitions) as transitions,
            (select count(*)::int from audit_log) as audit,
            (select count(*)::int from outbox_messages) as outbox,
            (select count(*)::int from timers) as timers`,
  );
  return { run: run.body, items: await itemsOf(t, runId, kind), counts };
}

/** The run ids of a queue answer. */
export function ids(body: { reviews: Array<{ id: number }> }): number[] {
  return body.reviews.map((r) => r.id);
}

/**
 * A mission run of mission `slug` awaiting review of its plan (the team `writer`, `editor`; the echo
 * planner's plan: one task each). Creates the team and the mission (review `plan`) on first use in
 * the org, and drains the jobs until the planner's plan is in.
 */
export async function missionAwaitingPlan(t: TestApp, token: string, slug = 'launch'): Promise<number> {
  const existing = await t.request('GET', `/api/v1/missions/${slug}`, { token });
  if (existing.status === 404) {
    await createTeam(t, token, ['writer', 'editor']);
    await createMission(t, token, slug, ['writer', 'editor'], { review: 'plan' });
  }
  const res = await t.request('POST', '/api/v1/mission-runs', {
    token,
    body: { missionSlug: slug, input: { product: 'r3' } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const id = res.body.missionRunId as number;
  await waitFor(async () => {
    await t.app.jobs.drain();
    const run = await t.request('GET', `/api/v1/mission-runs/${id}`, { token });
    return run.body.status === 'awaiting_review';
  }, `mission run ${id} to await review of its plan`);
  return id;
}

/**
 * A pending proposal of `crm.update_deal` in `org` (created as `propose_action` would after its
 * checks; its source need not exist: nothing executes it while nobody approves it).
 */
export function pendingProposal(
  t: TestApp,
  org: string,
  params: Record<string, unknown> = { dealId: '42', properties: { dealstage: 'closedwon' } },
): Promise<number> {
  return proposalOf(t, org, { action: 'crm.update_deal', params } as ConnectorAction);
}

/**
 * A pending proposal of `action` from `source` in `org` (created as `propose_action` would after its
 * checks; the source need not exist: nothing executes it while nobody approves it).
 */
export async function proposalOf(
  t: TestApp,
  org: string,
  action: ConnectorAction,
  source = 'hubspot',
): Promise<number> {
  const orgId = await orgIdOf(t, org);
  const { proposalId } = await t.app.proposals.create({
    orgId,
    action,
    source,
    agentSlug: null,
    rationale: 'The customer signed.',
    runId: null,
    callKey: null,
    actingAs: { actor: 'mcp', apiTokenId: null },
    requestId: null,
  });
  return proposalId;
}
