/**
 * Webhook deliveries end to end: events through the outbox and the bus to the dispatcher, attempts
 * as jobs, a local receiver. The body and signature exactly as the spec says (checked by an
 * independent verifier), the retry schedule to the millisecond on a manual clock, failure after the
 * last attempt, replay, the rotation window, event filters, disabled webhooks, and the run events
 * that map to webhook types.
 */

import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Receiver, startReceiver } from '../../../fakes/webhook-receiver.js';
import type { Dispatched } from '../../../src/features/webhooks/dispatcher.js';
import { verifySignature } from '../../../src/features/webhooks/signature.js';
import type { BusMessage } from '../../../src/platform/bus/bus.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { createSkill, createWorkflow } from '../../helpers/resources.js';
import { type Collector, createCollector } from '../../helpers/wait.js';
import {
  createObjectType,
  independentVerify,
  ingest,
  ingestAnnounced,
  register,
  v1Entries,
  watchDispatcher,
} from '../../helpers/webhooks.js';

let t: TestApp;
let receiver: Receiver;
let dispatched: Collector<Dispatched>;
const cleanups: Array<() => Promise<unknown>> = [];
let orgCounter = 0;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0', R3_WEBHOOK_ALLOW_PRIVATE: 'true' });
  receiver = await startReceiver();
  dispatched = watchDispatcher(t);
});
afterEach(async () => {
  receiver.respondWith(200);
  while (cleanups.length > 0) await cleanups.pop()?.();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const nowSec = () => Math.floor(t.clock.now() / 1000);

/** A fresh org (so webhooks of other tests never see its events), with an object type. */
async function freshOrg(): Promise<string> {
  const token = (await t.token({ org: `hooks-${++orgCounter}`, scopes: ALL_SCOPES })).token;
  await createObjectType(t, token);
  return token;
}

/** Registers a webhook that is deleted after the test. */
async function hook(token: string, body: Parameters<typeof register>[2]): Promise<number> {
  const id = await register(t, token, body);
  cleanups.push(() => t.request('DELETE', `/api/v1/webhooks/${id}`, { token }));
  return id;
}

async function deliveries(token: string, id: number) {
  const res = await t.request('GET', `/api/v1/webhooks/${id}/deliveries`, { token });
  expect(res.status, res.text).toBe(200);
  return res.body.deliveries as any[];
}

const SECRET = 'whsec_test_0123456789abcdef';

/** A receiver using the `standardwebhooks` package, keyed as decisions §15 says: base64 of the secret. */
const standardReceiver = (secret: string) => new Webhook(Buffer.from(secret, 'utf8').toString('base64'));

describe('a delivery', () => {
  it('posts {event, deliveryId, createdAt, data} for object.created, signed as the spec says', async () => {
    const token = await freshOrg();
    const id = await hook(token, { url: `${receiver.url}/in`, events: ['object.created'], secret: SECRET });
    const from = receiver.received.items.length;
    const object = await ingest(t, token, dispatched, 'First ticket');
    expect(object.dispatched.created).toBe(1);
    await t.app.jobs.drain();
    const [req] = (await receiver.received.untilCount(from + 1, 'the delivery')).slice(from);
    expect(req?.path).toBe('/in');
    expect(Object.keys(req?.json)).toEqual(['event', 'deliveryId', 'createdAt', 'data']);
    expect(req?.json).toEqual({
      event: 'object.created',
      deliveryId: expect.stringMatching(/^whd_[a-z2-7]{24}$/),
      createdAt: object.createdAt,
      data: { objectId: object.id, slug: 'ticket', title: 'First ticket', createdAt: object.createdAt },
    });
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.headers['x-service-delivery']).toBe(req?.json.deliveryId);
    expect(req?.headers['x-service-event']).toBe('object.created');

    const header = req?.headers['x-service-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const raw = req?.raw as string;
    expect(independentVerify(raw, header, SECRET, nowSec())).toBe(true);
    expect(verifySignature(raw, header, SECRET, { now: nowSec() })).toEqual({ ok: true });
    // Tampered body, wrong secret, a timestamp older than the tolerance: all refused by both.
    const tampered = raw.replace('First ticket', 'Forged ticket');
    expect(independentVerify(tampered, header, SECRET, nowSec())).toBe(false);
    expect(verifySignature(tampered, header, SECRET, { now: nowSec() })).toEqual({
      ok: false,
      reason: 'no_match',
    });
    expect(independentVerify(raw, header, 'whsec_wrong_secret_0000000', nowSec())).toBe(false);
    expect(verifySignature(raw, header, 'whsec_wrong_secret_0000000', { now: nowSec() }).ok).toBe(false);
    expect(independentVerify(raw, header, SECRET, nowSec() + 301)).toBe(false);
    expect(verifySignature(raw, header, SECRET, { now: nowSec() + 301, toleranceSec: 300 })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });

    // Standard Webhooks: the delivery id as webhook-id, the same timestamp, and a signature the
    // standardwebhooks package verifies (the manual clock starts at the real time).
    expect(req?.headers['webhook-id']).toBe(req?.json.deliveryId);
    expect(req?.headers['webhook-timestamp']).toBe(header.split(',')[0]?.slice(2));
    const standard = {
      'webhook-id': req?.headers['webhook-id'] as string,
      'webhook-timestamp': req?.headers['webhook-timestamp'] as string,
      'webhook-signature': req?.headers['webhook-signature'] as string,
    };
    expect(standard['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(standardReceiver(SECRET).verify(raw, standard)).toEqual(req?.json);
    expect(() => standardReceiver(SECRET).verify(tampered, standard)).toThrow(/No matching/);
    expect(() => standardReceiver('whsec_wrong_secret_0000000').verify(raw, standard)).toThrow(/No matching/);

    const [listed] = await deliveries(token, id);
    expect(listed).toEqual({
      deliveryId: req?.json.deliveryId,
      event: 'object.created',
      status: 'delivered',
      attempts: 1,
      lastAttemptAt: new Date(t.clock.now()).toISOString(),
      nextAttemptAt: null,
      responseStatus: 200,
      replayOf: null,
      createdAt: expect.any(String),
    });
    const detail = await t.request('GET', `/api/v1/webhooks/${id}/deliveries/${listed.deliveryId}`, {
      token,
    });
    expect(detail.status).toBe(200);
    expect(detail.body.attemptLog).toEqual([
      {
        attempt: 1,
        url: `${receiver.url}/in`,
        responseStatus: 200,
        error: null,
        durationMs: expect.any(Number),
        bodyExcerpt: 'ok',
        at: expect.any(String),
      },
    ]);
  });

  it('retries on the spec backoff to the millisecond and fails after the sixth attempt', async () => {
    const token = await freshOrg();
    const id = await hook(token, {
      url: `${receiver.url}/retry`,
      events: ['object.created'],
      secret: SECRET,
    });
    receiver.respondWith(500, 'boom');
    const from = receiver.received.items.length;
    await ingest(t, token, dispatched);
    const t0 = t.clock.now();
    await t.app.jobs.drain();
    const [first] = await deliveries(token, id);
    expect(first).toMatchObject({ status: 'pending', attempts: 1, responseStatus: 500 });
    expect(first.nextAttemptAt).toBe(new Date(t0 + 1_000).toISOString());

    const dueAt = async (): Promise<number | null> => {
      const row = await t.app.db.sql.maybeOne<{ due_at: Date }>(
        `select tm.due_at from timers tm join webhook_deliveries d on d.id = tm.actor_id
          where tm.actor_kind = 'webhook-delivery' and d.delivery_id = $1`,
        [first.deliveryId],
      );
      return row?.due_at.getTime() ?? null;
    };
    const waits = [1_000, 30_000, 300_000, 3_600_000, 21_600_000];
    let lastFailure = t0;
    for (const [i, wait] of waits.entries()) {
      expect(await dueAt()).toBe(lastFailure + wait);
      t.clock.set(lastFailure + wait - 1);
      await t.app.timers.runDue();
      expect((await deliveries(token, id))[0].attempts).toBe(i + 1);
      t.clock.set(lastFailure + wait);
      await t.app.timers.runDue();
      await t.app.jobs.drain();
      lastFailure = t.clock.now();
      const [now] = await deliveries(token, id);
      expect(now.attempts).toBe(i + 2);
      expect(now.lastAttemptAt).toBe(new Date(lastFailure).toISOString());
      if (i + 2 < 6) {
        expect(now.status).toBe('pending');
        expect(now.nextAttemptAt).toBe(new Date(lastFailure + (waits[i + 1] as number)).toISOString());
      }
    }
    const [done] = await deliveries(token, id);
    expect(done).toMatchObject({ status: 'failed', attempts: 6, nextAttemptAt: null, responseStatus: 500 });
    expect(await dueAt()).toBeNull();
    const sent = receiver.received.items.slice(from);
    expect(sent).toHaveLength(6);
    // Every attempt sends the same bytes (the same deliveryId), signed afresh.
    expect(new Set(sent.map((r) => r.raw)).size).toBe(1);
    const detail = await t.request('GET', `/api/v1/webhooks/${id}/deliveries/${first.deliveryId}`, { token });
    expect(detail.body.attemptLog.map((a: { responseStatus: number }) => a.responseStatus)).toEqual([
      500, 500, 500, 500, 500, 500,
    ]);
    expect(detail.body.attemptLog[0].bodyExcerpt).toBe('boom');
    expect(detail.body.lastError).toBeNull();
  });

  it('records a connection failure as a failed attempt with the error', async () => {
    const token = await freshOrg();
    const closed = await startReceiver();
    const url = `${closed.url}/gone`;
    await closed.close();
    const id = await hook(token, { url, events: ['object.created'], secret: SECRET });
    await ingest(t, token, dispatched);
    await t.app.jobs.drain();
    const [d] = await deliveries(token, id);
    expect(d).toMatchObject({ status: 'pending', attempts: 1, responseStatus: null });
    const detail = await t.request('GET', `/api/v1/webhooks/${id}/deliveries/${d.deliveryId}`, { token });
    expect(detail.body.lastError).toBe('ECONNREFUSED');
    expect(detail.body.attemptLog[0]).toMatchObject({ responseStatus: null, error: 'ECONNREFUSED' });
  });
});

describe('replay and rotation', () => {
  it('replays a delivery as a new one with the current URL and secret', async () => {
    const token = await freshOrg();
    const id = await hook(token, { url: `${receiver.url}/old`, events: ['object.created'], secret: SECRET });
    const from = receiver.received.items.length;
    await ingest(t, token, dispatched);
    await t.app.jobs.drain();
    const [original] = await receiver.received
      .untilCount(from + 1, 'the first delivery')
      .then((r) => r.slice(from));

    const moved = await t.request('PATCH', `/api/v1/webhooks/${id}`, {
      token,
      body: { url: `${receiver.url}/new` },
    });
    expect(moved.status).toBe(200);
    const rotated = await t.request('POST', `/api/v1/webhooks/${id}/rotate-secret`, { token, body: {} });
    expect(rotated.status).toBe(200);
    const secret = rotated.body.secret as string;
    // Past the old-secret window, so only the current secret signs.
    t.clock.advance(600_000);

    const replay = await t.request(
      'POST',
      `/api/v1/webhooks/${id}/deliveries/${original?.json.deliveryId}/replay`,
      { token, body: {} },
    );
    expect(replay.status, replay.text).toBe(202);
    expect(Object.keys(replay.body)).toEqual(['deliveryId']);
    expect(replay.body.deliveryId).not.toBe(original?.json.deliveryId);
    await t.app.jobs.drain();
    const [again] = await receiver.received.untilCount(from + 2, 'the replay').then((r) => r.slice(from + 1));
    expect(again?.path).toBe('/new');
    expect(again?.json).toEqual({ ...original?.json, deliveryId: replay.body.deliveryId });
    const header = again?.headers['x-service-signature'] as string;
    expect(v1Entries(header)).toHaveLength(1);
    expect(independentVerify(again?.raw as string, header, secret, nowSec())).toBe(true);
    expect(independentVerify(again?.raw as string, header, SECRET, nowSec())).toBe(false);

    const listed = await deliveries(token, id);
    expect(listed[0]).toMatchObject({
      deliveryId: replay.body.deliveryId,
      replayOf: original?.json.deliveryId,
      status: 'delivered',
    });
    expect(listed[1]).toMatchObject({ deliveryId: original?.json.deliveryId, replayOf: null });
  });

  it('signs with both secrets (new first) during the old-secret window, then with the new one only', async () => {
    const token = await freshOrg();
    const id = await hook(token, { url: `${receiver.url}/rot`, events: ['object.created'], secret: SECRET });
    const rotated = await t.request('POST', `/api/v1/webhooks/${id}/rotate-secret`, { token, body: {} });
    const secret = rotated.body.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);

    const from = receiver.received.items.length;
    await ingest(t, token, dispatched);
    await t.app.jobs.drain();
    const [during] = (await receiver.received.untilCount(from + 1, 'a delivery in the window')).slice(from);
    const header = during?.headers['x-service-signature'] as string;
    const entries = v1Entries(header);
    expect(entries).toHaveLength(2);
    const raw = during?.raw as string;
    const t1 = header.split(',')[0] as string;
    expect(independentVerify(raw, `${t1},${entries[0]}`, secret, nowSec())).toBe(true);
    expect(independentVerify(raw, `${t1},${entries[1]}`, SECRET, nowSec())).toBe(true);
    expect(verifySignature(raw, header, SECRET, { now: nowSec() })).toEqual({ ok: true });
    // The Standard Webhooks signature also has both, new secret first, over the same id and time.
    const standard = String(during?.headers['webhook-signature']).split(' ');
    const signedAt = new Date(Number(t1.slice(2)) * 1000);
    const duringId = during?.headers['webhook-id'] as string;
    expect(standard).toEqual([
      standardReceiver(secret).sign(duringId, signedAt, raw),
      standardReceiver(SECRET).sign(duringId, signedAt, raw),
    ]);

    t.clock.advance(600_000);
    await ingest(t, token, dispatched, 'After the window');
    await t.app.jobs.drain();
    const [after] = (await receiver.received.untilCount(from + 2, 'a delivery after the window')).slice(
      from + 1,
    );
    const afterHeader = after?.headers['x-service-signature'] as string;
    expect(v1Entries(afterHeader)).toHaveLength(1);
    expect(independentVerify(after?.raw as string, afterHeader, secret, nowSec())).toBe(true);
    expect(independentVerify(after?.raw as string, afterHeader, SECRET, nowSec())).toBe(false);
    const afterSigned = new Date(Number(afterHeader.split(',')[0]?.slice(2)) * 1000);
    expect(after?.headers['webhook-signature']).toBe(
      standardReceiver(secret).sign(
        after?.headers['webhook-id'] as string,
        afterSigned,
        after?.raw as string,
      ),
    );
  });
});

describe('which webhooks get an event', () => {
  it('follows events and filters: skillSlug, workflowSlug, step_completed for workflows only', async () => {
    const token = await freshOrg();
    await createSkill(t, token, { slug: 'summarize' });
    await createSkill(t, token, { slug: 'other' });
    await createWorkflow(t, token, {
      slug: 'flow',
      steps: [{ name: 's1', type: 'skill', skill: 'summarize', input: { text: '{{input.text}}' } }],
    });
    await hook(token, {
      url: `${receiver.url}/skill`,
      events: ['run.started', 'run.completed'],
      filter: { skillSlug: 'summarize' },
      secret: SECRET,
    });
    await hook(token, { url: `${receiver.url}/steps`, events: ['run.step_completed'], secret: SECRET });
    await hook(token, {
      url: `${receiver.url}/flow`,
      events: ['run.completed'],
      filter: { workflowSlug: 'flow', skillSlug: null },
      secret: SECRET,
    });
    const from = receiver.received.items.length;
    const runs: number[] = [];
    for (const path of [
      '/api/v1/skills/summarize/runs',
      '/api/v1/skills/other/runs',
      '/api/v1/workflows/flow/runs',
    ]) {
      const res = await t.request('POST', path, { token, body: { input: { text: 'x' } } });
      expect(res.status, res.text).toBe(202);
      runs.push(res.body.runId);
    }
    await t.app.jobs.drain();
    await dispatched.until(
      (all) => runs.every((r) => all.some((d) => d.subject.endsWith(`.run.${r}.completed`))),
      'every completed run dispatched',
    );
    await t.app.jobs.drain();
    const got = receiver.received.items
      .slice(from)
      .map((r) => `${r.path} ${r.json.event} ${r.json.data.runId}`);
    expect(got.sort()).toEqual(
      [
        `/skill run.started ${runs[0]}`,
        `/skill run.completed ${runs[0]}`,
        `/steps run.step_completed ${runs[2]}`,
        `/flow run.completed ${runs[2]}`,
      ].sort(),
    );
    const step = receiver.received.items.slice(from).find((r) => r.json.event === 'run.step_completed');
    // The run's status after the transition that recorded the event: its last step completes it.
    expect(step?.json.data).toMatchObject({
      runId: runs[2],
      kind: 'workflow',
      slug: 'flow',
      step: 's1',
      status: 'completed',
      output: { text: 'Summarize: x' },
    });
    const completed = receiver.received.items
      .slice(from)
      .find((r) => r.path === '/skill' && r.json.event === 'run.completed');
    expect(Object.keys(completed?.json.data).sort()).toEqual(
      // Exactly the spec's six fields (`step` appears only on step and gate events).
      ['kind', 'output', 'runId', 'slug', 'status', 'workspaceSha'].sort(),
    );
    expect(completed?.json.data).toMatchObject({
      kind: 'skill',
      slug: 'summarize',
      status: 'completed',
      output: { text: 'Summarize: x' },
      workspaceSha: expect.stringMatching(/^[0-9a-f]{12}$/),
    });
  });

  it('fires run.paused_for_review when a requiresApproval skill run has its draft, and run.approved', async () => {
    const token = await freshOrg();
    await createSkill(t, token, { slug: 'drafter', requiresApproval: true });
    await hook(token, {
      url: `${receiver.url}/review`,
      events: ['run.paused_for_review', 'run.approved', 'run.rejected'],
      secret: SECRET,
    });
    const from = receiver.received.items.length;
    const run = await t.request('POST', '/api/v1/skills/drafter/runs', {
      token,
      body: { input: { text: 'y' } },
    });
    expect(run.body.status).toBe('pending');
    await t.app.jobs.drain();
    await dispatched.until(
      (all) => all.some((d) => d.subject.endsWith(`.run.${run.body.runId}.paused_for_review`)),
      'paused_for_review dispatched',
    );
    await t.app.jobs.drain();
    const [paused] = (await receiver.received.untilCount(from + 1, 'paused_for_review')).slice(from);
    expect(paused?.json.event).toBe('run.paused_for_review');
    expect(paused?.json.data).toMatchObject({
      runId: run.body.runId,
      status: 'pending',
      output: { text: 'Summarize: y' },
    });
    const approved = await t.request('POST', `/api/v1/runs/${run.body.runId}/approve`, { token, body: {} });
    expect(approved.status).toBe(200);
    await dispatched.until(
      (all) => all.some((d) => d.subject.endsWith(`.run.${run.body.runId}.approved`)),
      'approved dispatched',
    );
    await t.app.jobs.drain();
    const [decided] = (await receiver.received.untilCount(from + 2, 'approved')).slice(from + 1);
    expect(decided?.json).toMatchObject({ event: 'run.approved', data: { status: 'approved' } });
  });

  it('sends nothing to a disabled webhook until it is re-enabled', async () => {
    const token = await freshOrg();
    const id = await hook(token, { url: `${receiver.url}/off`, events: ['object.created'], secret: SECRET });
    const off = await t.request('PATCH', `/api/v1/webhooks/${id}`, { token, body: { active: false } });
    expect(off.body).toMatchObject({ active: false, disabledReason: 'manual' });
    // No enabled webhook: the event goes to live subscribers only, and the dispatcher never sees it.
    const skipped = await ingestAnnounced(t, token);
    expect(dispatched.items.some((d) => d.subject.endsWith(`.object.${skipped.id}.created`))).toBe(false);
    const on = await t.request('PATCH', `/api/v1/webhooks/${id}`, { token, body: { active: true } });
    expect(on.body).toMatchObject({ active: true, disabledReason: null });
    const sent = await ingest(t, token, dispatched);
    expect(sent.dispatched.created).toBe(1);
    await t.app.jobs.drain();
    expect((await deliveries(token, id)).map((d) => d.status)).toEqual(['delivered']);
  });

  it("skips the webhook lookup for an org's events from before a lookup found it without webhooks, and only those", async () => {
    const token = await freshOrg();
    const lookups = vi.spyOn(t.app.db.sql, 'prepared');
    const lookupCount = () => lookups.mock.calls.filter(([name]) => name === 'webhook_candidates').length;
    try {
      // The org has no webhook, so the relay announces its events and the dispatcher gets none from
      // the stream; it is handed them here, as it would be an event stored while the org had a
      // webhook (deleted since) or redelivered.
      // First seen at T0: looked up (the org has no webhook yet).
      const early = (await ingestAnnounced(t, token, 'at T0')).message;
      expect((await t.app.webhookDispatcher.handle(early)).created).toBe(0);
      t.clock.advance(10);
      // At T1: looked up again (not before T0's lookup); no webhook as of T1.
      const late = (await ingestAnnounced(t, token, 'at T1')).message;
      expect((await t.app.webhookDispatcher.handle(late)).created).toBe(0);
      expect(lookupCount()).toBe(2);
      // The event of T0 again (a redelivery): from before T1's lookup, so no statement.
      expect((await t.app.webhookDispatcher.handle(early)).created).toBe(0);
      expect(lookupCount()).toBe(2);
      // A webhook registered at T1: the event of T1 is looked up (its time is not before the
      // lookup's) and gets a delivery, as `created_at <= at` says; the event of T0 still does not.
      const id = await hook(token, {
        url: `${receiver.url}/quiet`,
        events: ['object.created'],
        secret: SECRET,
      });
      expect((await t.app.webhookDispatcher.handle(late)).created).toBe(1);
      expect((await t.app.webhookDispatcher.handle(early)).created).toBe(0);
      // After the webhook, every event reaches it.
      t.clock.advance(10);
      expect((await ingest(t, token, dispatched, 'at T2')).dispatched.created).toBe(1);
      await t.app.jobs.drain();
      expect(await deliveries(token, id)).toHaveLength(2);
    } finally {
      lookups.mockRestore();
    }
  });

  it('creates one delivery per webhook and event, however often the bus delivers the event', async () => {
    const token = await freshOrg();
    const id = await hook(token, { url: `${receiver.url}/once`, events: ['object.created'], secret: SECRET });
    const published = createCollector<BusMessage>();
    const subscription = await t.app.bus.subscribe('evt.>', (msg) => published.push(msg));
    const object = await ingest(t, token, dispatched);
    // The same message handled again, as after a redelivery.
    const subject = `.object.${object.id}.created`;
    const [message] = (
      await published.until((all) => all.some((m) => m.subject.endsWith(subject)), subject)
    ).filter((m) => m.subject.endsWith(subject));
    subscription.unsubscribe();
    const again = await t.app.webhookDispatcher.handle({
      subject: (message as BusMessage).subject,
      json: () => (message as BusMessage).json(),
    });
    expect(again.created).toBe(0);
    expect(await deliveries(token, id)).toHaveLength(1);
  });
});
