/**
 * The review events of decisions §15 through a real webhook receiver and the queue stream:
 * `review.requested` when an item opens (each kind), `review.assigned`, `review.snoozed` and
 * `review.decided`, each with `data: {kind, id, title, status, assignedTo, revision, action?, edited?,
 * by?, reason?}`, signed as Standard Webhooks; the changes a webhook is not told of (a draft arriving,
 * a cancel) send none; another org's items reach neither its webhooks nor its stream.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Received, type Receiver, startReceiver } from '../../../fakes/webhook-receiver.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import {
  pausedWorkflowRun,
  pendingProposal,
  pendingSkillRun,
  type ReviewOrg,
  setupReviewOrg,
} from '../../helpers/reviews.js';
import { openSse, type SseClient } from '../../helpers/sse.js';

const SECRET = 'whsec_review_events_0123456789abcdef';
const REVIEW_EVENTS = [
  'review.requested',
  'review.assigned',
  'review.snoozed',
  'review.decided',
  'review.changes_requested',
];

let t: TestApp;
let receiver: Receiver;
let acme: ReviewOrg;
let other: ReviewOrg;
let stream: SseClient;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestApp({ R3_WEBHOOK_ALLOW_PRIVATE: 'true' });
  acme = await setupReviewOrg(t, 'acme');
  other = await setupReviewOrg(t, 'other');
  for (const org of [acme, other]) {
    const hook = await t.request('POST', '/api/v1/webhooks', {
      token: org.owner.token,
      // The run filter does not hold review events back.
      body: {
        url: `${receiver.url}/${org.org}`,
        events: REVIEW_EVENTS,
        filter: { skillSlug: 'nothing' },
        secret: SECRET,
      },
    });
    expect(hook.status, hook.text).toBe(201);
  }
  stream = await openSse(t.url, '/api/v1/reviews/stream', { token: acme.owner.token });
  expect(stream.status).toBe(200);
  await stream.events.until((events) => events.some((e) => e.event === 'ready'), 'ready');
});
afterAll(async () => {
  stream?.close();
  await t?.close();
  await receiver?.close();
});

/** The deliveries to `org`'s webhook about item `{kind, id}`, in arrival order. */
const about = (org: string, kind: string, id: number) => (items: readonly Received[]) =>
  items.filter((r) => r.path === `/${org}` && r.json?.data?.kind === kind && r.json?.data?.id === id);

/** Waits for `org`'s webhook to have received `event` about `{kind, id}`; answers its body. */
async function delivered(kind: string, id: number, event: string, org = 'acme'): Promise<any> {
  const got = await receiver.received.until(
    (items) => about(org, kind, id)(items).some((r) => r.json.event === event),
    `${event} of ${kind} ${id}`,
    20_000,
  );
  const found = about(org, kind, id)(got).find((r) => r.json.event === event) as Received;
  // Standard Webhooks: the package verifies it keyed with the secret's bytes in base64.
  new Webhook(Buffer.from(SECRET, 'utf8').toString('base64')).verify(found.raw, {
    'webhook-id': found.headers['webhook-id'] as string,
    'webhook-timestamp': found.headers['webhook-timestamp'] as string,
    'webhook-signature': found.headers['webhook-signature'] as string,
  });
  expect(found.headers['webhook-id']).toBe(found.json.deliveryId);
  expect(found.headers['x-service-event']).toBe(event);
  return found.json;
}

/** Waits for the acme stream's frame `event` about `{kind, id}`; answers its data. */
async function streamed(kind: string, id: number, event: string): Promise<any> {
  const match = (e: { event: string; json: any }) =>
    e.event === event && e.json?.kind === kind && e.json?.id === id;
  const events = await stream.events.until((all) => all.some(match), `stream ${event} of ${kind} ${id}`);
  return events.find(match)?.json;
}

const post = (path: string, body: object) =>
  t.request('POST', `/api/v1${path}`, { token: acme.owner.token, body });

describe('review webhooks and the queue stream', () => {
  it('a skill item: requested, assigned, snoozed and decided, each with its data', async () => {
    const id = await pendingSkillRun(t, acme.owner.token);
    const by = `token:${acme.owner.id}`;
    const title = `Gated draft (run ${id})`;
    const requested = await delivered('skill', id, 'review.requested');
    expect(requested).toEqual({
      event: 'review.requested',
      deliveryId: expect.stringMatching(/^whd_/),
      createdAt: expect.any(String),
      data: {
        kind: 'skill',
        id,
        title,
        // The draft is not in yet when the item opens.
        summary: null,
        status: 'pending',
        assignedTo: null,
        revision: expect.any(String),
        by,
      },
    });

    // The draft arrives (the stream's review.updated, no webhook): the item's summary is its text.
    expect(await streamed('skill', id, 'review.updated')).toMatchObject({ summary: 'Summarize: x' });
    expect(
      (await post('/reviews/assign', { kind: 'skill', id, assignedTo: 'acme-owner', note: 'yours' })).status,
    ).toBe(200);
    const assigned = await delivered('skill', id, 'review.assigned');
    expect(assigned.data).toEqual({
      kind: 'skill',
      id,
      title,
      summary: 'Summarize: x',
      status: 'pending',
      assignedTo: 'acme-owner',
      revision: expect.any(String),
      by,
    });
    expect(assigned.data.revision).not.toBe(requested.data.revision);

    const until = new Date(Date.now() + 3_600_000).toISOString();
    expect((await post('/reviews/snooze', { kind: 'skill', id, until })).status).toBe(200);
    const snoozed = await delivered('skill', id, 'review.snoozed');
    expect(snoozed.data).toMatchObject({ status: 'pending', assignedTo: 'acme-owner', by });
    expect(snoozed.data.revision).not.toBe(assigned.data.revision);

    expect(
      (await post('/reviews/decide', { kind: 'skill', id, action: 'reject', reason: 'Wrong customer' }))
        .status,
    ).toBe(200);
    const decided = await delivered('skill', id, 'review.decided');
    expect(decided.data).toEqual({
      kind: 'skill',
      id,
      title,
      summary: 'Summarize: x',
      status: 'decided',
      assignedTo: 'acme-owner',
      revision: null,
      action: 'reject',
      edited: false,
      by,
      reason: 'Wrong customer',
    });

    // The stream carries the same events with the same data (and the item's change, its note…).
    for (const body of [requested, assigned, snoozed, decided]) {
      const frame = await streamed('skill', id, body.event);
      expect(frame).toMatchObject(body.data);
    }
    expect(await streamed('skill', id, 'review.assigned')).toMatchObject({
      event: 'assigned',
      note: 'yours',
    });
    expect(await streamed('skill', id, 'review.snoozed')).toMatchObject({ snoozedUntil: until });
    expect(await streamed('skill', id, 'review.updated')).toMatchObject({
      event: 'updated',
      status: 'pending',
    });
    const kinds = about('acme', 'skill', id)(receiver.received.items).map((r) => r.json.event);
    expect(kinds.sort()).toEqual(['review.assigned', 'review.decided', 'review.requested', 'review.snoozed']);
  });

  it('a workflow gate: requested with the gate title, approved with its note; the revision is the queue’s', async () => {
    const id = await pausedWorkflowRun(t, acme.owner.token);
    const requested = await delivered('workflow', id, 'review.requested');
    expect(requested.data).toMatchObject({
      kind: 'workflow',
      id,
      title: `Go? (run ${id})`,
      status: 'paused',
    });
    const item = await t.request('GET', `/api/v1/reviews/workflow/${id}`, { token: acme.owner.token });
    expect(item.body.review.revision).toBe(requested.data.revision);
    expect(
      (await post('/reviews/decide', { kind: 'workflow', id, action: 'approve', reason: 'Fine' })).status,
    ).toBe(200);
    const decided = await delivered('workflow', id, 'review.decided');
    expect(decided.data).toMatchObject({
      status: 'decided',
      action: 'approve',
      edited: false,
      reason: 'Fine',
    });
    expect((await streamed('workflow', id, 'review.decided')).action).toBe('approve');
  });

  it('an action: requested when proposed; a cancelled item sends no webhook but is on the stream', async () => {
    const id = await pendingProposal(t, 'acme');
    const requested = await delivered('action', id, 'review.requested');
    expect(requested.data).toMatchObject({
      kind: 'action',
      id,
      status: 'pending',
      title: expect.stringContaining('crm.update_deal'),
    });
    // A workflow run cancelled at its gate: its item closes undecided.
    const run = await pausedWorkflowRun(t, acme.owner.token);
    expect((await t.request('POST', `/api/v1/runs/${run}/cancel`, { token: acme.owner.token })).status).toBe(
      200,
    );
    expect(await streamed('workflow', run, 'review.cancelled')).toMatchObject({
      status: 'cancelled',
      revision: null,
    });
    await delivered('workflow', run, 'review.requested');
    expect(about('acme', 'workflow', run)(receiver.received.items).map((r) => r.json.event)).toEqual([
      'review.requested',
    ]);
  });

  it('an approval with edits says so: review.decided with edited true (an action and its params)', async () => {
    const id = await pendingProposal(t, 'acme');
    await delivered('action', id, 'review.requested');
    const res = await post('/reviews/decide', {
      kind: 'action',
      id,
      action: 'approve',
      edits: { params: { properties: { dealstage: 'contractsent' } } },
    });
    expect(res.status, res.text).toBe(200);
    const decided = await delivered('action', id, 'review.decided');
    expect(decided.data).toMatchObject({ action: 'approve', edited: true, status: 'decided' });
    expect((await streamed('action', id, 'review.decided')).edited).toBe(true);
  });

  it("another org's items reach only that org's webhook, never this org's stream", async () => {
    const id = await pendingSkillRun(t, other.owner.token);
    await delivered('skill', id, 'review.requested', 'other');
    // Acme's own next item arrives after it on the stream; the other org's never did.
    const mine = await pendingSkillRun(t, acme.owner.token);
    await streamed('skill', mine, 'review.requested');
    expect(stream.events.items.some((e) => e.json?.id === id && e.json?.kind === 'skill')).toBe(false);
    expect(about('acme', 'skill', id)(receiver.received.items)).toEqual([]);
  });

  it('webhooks subscribe to the five review types; other review names are 400', async () => {
    const bad = await t.request('POST', '/api/v1/webhooks', {
      token: acme.owner.token,
      body: { url: `${receiver.url}/x`, events: ['review.opened'], secret: SECRET },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
    const before = await t.request('GET', '/api/v1/webhooks', { token: acme.owner.token });
    expect(before.body.webhooks).toHaveLength(1);
  });
});
