/**
 * Queue rows say what they are (decisions §15): a skill's `titleTemplate` over the run's input names
 * its items, validated when written; every item carries `summary` — the draft's first 200 characters
 * (skill, workflow gate, mission), the proposed action's one-line description — in `GET /reviews`,
 * `GET /reviews/:kind/:id` and the review events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorAction } from '../../../src/features/connectors/index.js';
import { fields } from '../../helpers/api.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createSkill, createWorkflow, patchSkill } from '../../helpers/resources.js';
import {
  missionAwaitingPlan,
  pausedWorkflowRun,
  pendingProposal,
  proposalOf,
  type ReviewOrg,
  setupReviewOrg,
} from '../../helpers/reviews.js';
import { openSse, type SseClient } from '../../helpers/sse.js';

let t: TestApp;
let acme: ReviewOrg;
let token: string;
let stream: SseClient;

const LONG = `Dear Ann,\n\n${'thank you for the order; '.repeat(20)}`;

beforeAll(async () => {
  t = await startTestApp();
  acme = await setupReviewOrg(t, 'acme');
  token = acme.owner.token;
  await createSkill(
    t,
    token,
    {
      slug: 'reply',
      name: 'Customer email reply',
      requiresApproval: true,
      titleTemplate: 'Reply to {{input.customer}}',
    },
    '{{input.body}}',
  );
  stream = await openSse(t.url, '/api/v1/reviews/stream', { token });
  await stream.events.until((events) => events.some((e) => e.event === 'ready'), 'ready');
});
afterAll(async () => {
  stream?.close();
  await t?.close();
});

async function trigger(slug: string, input: Record<string, unknown>): Promise<number> {
  const res = await t.request('POST', `/api/v1/skills/${slug}/runs`, { token, body: { input } });
  expect(res.status, res.text).toBe(202);
  return res.body.runId as number;
}

/** The queue's row of `{kind, id}` once `ready(row)` holds. */
async function row(kind: string, id: number, ready: (r: any) => boolean = () => true): Promise<any> {
  let found: any;
  await expect
    .poll(async () => {
      const res = await t.request('GET', '/api/v1/reviews?limit=200', { token });
      found = res.body.reviews.find((r: any) => r.kind === kind && r.id === id);
      return found !== undefined && ready(found);
    })
    .toBe(true);
  return found;
}

describe('titles', () => {
  it("name a skill's items by its titleTemplate over the input", async () => {
    const id = await trigger('reply', { customer: 'Ann Lee', body: LONG });
    const listed = await row('skill', id);
    expect(listed.title).toBe(`Reply to Ann Lee (run ${id})`);
    const one = await t.request('GET', `/api/v1/reviews/skill/${id}`, { token });
    expect(one.body.review.title).toBe(`Reply to Ann Lee (run ${id})`);
    const requested = await stream.events.until(
      (all) => all.some((e) => e.event === 'review.requested' && e.json.id === id),
      'requested',
    );
    expect(requested.find((e) => e.event === 'review.requested' && e.json.id === id)?.json.title).toBe(
      `Reply to Ann Lee (run ${id})`,
    );
  });

  it('fall back to the skill name when the input lacks a field the template names, and without one', async () => {
    const blank = await trigger('reply', { body: 'hi' });
    expect((await row('skill', blank)).title).toBe(`Customer email reply (run ${blank})`);
    const plain = await trigger('gated', { text: 'x' });
    expect((await row('skill', plain)).title).toBe(`Gated draft (run ${plain})`);
  });

  it('titleTemplate is validated on write: 400 naming it, nothing written', async () => {
    for (const titleTemplate of [
      'Reply to {{steps.draft.output.name}}',
      'Reply to {{#input.customer}}',
      'Reply to {{customer}}',
      'Reply to\n{{input.customer}}',
      'x'.repeat(201),
      '',
    ]) {
      const res = await t.request('POST', '/api/v1/skills', {
        token,
        body: { manifest: { slug: 'bad-title', name: 'Bad', titleTemplate }, promptMd: 'x' },
      });
      expect(res.status, titleTemplate).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(fields(res.body)).toContain('body.manifest.titleTemplate');
      expect((await t.request('GET', '/api/v1/skills/bad-title', { token })).status).toBe(404);
    }
    const patch = await t.request('PATCH', '/api/v1/skills/reply', {
      token,
      body: { manifest: { titleTemplate: '{{input.customer.0}} {{{input.x}}}' } },
    });
    expect(patch.status).toBe(400);
    expect(fields(patch.body)).toContain('body.manifest.titleTemplate');
    const skill = await t.request('GET', '/api/v1/skills/reply', { token });
    expect(skill.body.titleTemplate).toBe('Reply to {{input.customer}}');
  });

  it('PATCH replaces and null removes the template', async () => {
    await createSkill(t, token, {
      slug: 'titled',
      name: 'Titled',
      requiresApproval: true,
      titleTemplate: 'A {{input.text}}',
    });
    await patchSkill(t, token, 'titled', { manifest: { titleTemplate: 'B {{input.text}}' } });
    const b = await trigger('titled', { text: 'one' });
    expect((await row('skill', b)).title).toBe(`B one (run ${b})`);
    await patchSkill(t, token, 'titled', { manifest: { titleTemplate: null } });
    expect((await t.request('GET', '/api/v1/skills/titled', { token })).body).not.toHaveProperty(
      'titleTemplate',
    );
    const plain = await trigger('titled', { text: 'two' });
    expect((await row('skill', plain)).title).toBe(`Titled (run ${plain})`);
  });
});

describe('summary', () => {
  it("a skill item's is its draft's first 200 characters, on one line, once the draft is in", async () => {
    const id = await trigger('reply', { customer: 'Ann', body: LONG });
    const expected = Array.from(LONG.replace(/\s+/g, ' ').trim()).slice(0, 200).join('');
    expect(expected).toHaveLength(200);
    const listed = await row('skill', id, (r) => r.summary !== null);
    expect(listed.summary).toBe(expected);
    const one = await t.request('GET', `/api/v1/reviews/skill/${id}`, { token });
    expect(one.body.review.summary).toBe(expected);
    // The draft arriving is the item's change `updated`, with the summary, on the stream.
    const events = await stream.events.until(
      (all) => all.some((e) => e.event === 'review.updated' && e.json.id === id),
      'updated',
    );
    expect(events.find((e) => e.event === 'review.updated' && e.json.id === id)?.json.summary).toBe(expected);
  });

  it("a workflow gate's is the output before it", async () => {
    await createWorkflow(t, token, {
      slug: 'draft-then-gate',
      steps: [
        { name: 'draft', type: 'skill', skill: 'echoer', input: { text: 'the  draft\ntext' } },
        { name: 'check', type: 'approve', title: 'Check it' },
      ],
    });
    const id = await pausedWorkflowRun(t, token, 'draft-then-gate');
    const listed = await row('workflow', id);
    expect(listed).toMatchObject({ title: `Check it (run ${id})`, summary: '<the draft text>' });
    // A gate before any output has none.
    const first = await pausedWorkflowRun(t, token);
    expect((await row('workflow', first)).summary).toBeNull();
  });

  it("an action's is its one-line description", async () => {
    const deal = await pendingProposal(t, 'acme', {
      dealId: '42',
      properties: { dealstage: 'closedwon', amount: 5000 },
    });
    expect((await row('action', deal)).summary).toBe(
      'Update deal 42: dealstage → "closedwon", amount → 5000',
    );
    const propose = (action: ConnectorAction) => proposalOf(t, 'acme', action);
    const mail = await propose({
      action: 'mail.send',
      params: { to: ['ann@example.com', 'bo@example.com'], subject: 'Your refund', text: 'Hello' },
    });
    expect((await row('action', mail)).summary).toBe('Email to ann@example.com, bo@example.com: Your refund');
    const note = await propose({
      action: 'crm.create_note',
      params: { body: 'Called\n\nback', dealId: '7' },
    });
    const one = await t.request('GET', `/api/v1/reviews/action/${note}`, { token });
    expect(one.body.review.summary).toBe('Note on deal 7: Called back');
    const requested = await stream.events.until(
      (all) =>
        all.some((e) => e.event === 'review.requested' && e.json.kind === 'action' && e.json.id === note),
      'requested',
    );
    expect(requested.find((e) => e.json.kind === 'action' && e.json.id === note)?.json.summary).toBe(
      'Note on deal 7: Called back',
    );
  });

  it("a mission's plan review lists the plan's tasks", async () => {
    const id = await missionAwaitingPlan(t, token);
    const run = await t.request('GET', `/api/v1/mission-runs/${id}`, { token });
    const tasks = run.body.plan.tasks as Array<{ title: string; agent: string }>;
    expect(tasks.length).toBeGreaterThan(0);
    const listed = await row('mission', id);
    expect(listed.summary).toBe(
      `${tasks.length} task${tasks.length === 1 ? '' : 's'}: ${tasks.map((task) => `${task.title} (${task.agent})`).join('; ')}`.slice(
        0,
        200,
      ),
    );
  });
});
