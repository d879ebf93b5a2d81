/**
 * A webhook's health (the webhook-endpoint actor): 10 failed deliveries in a row disable it (a
 * delivered one resets the count), a disabled webhook gets no new deliveries, and PATCH
 * `{active: true}` re-enables it. One attempt per delivery here, so each failure is one delivery.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../../../fakes/webhook-receiver.js';
import type { Dispatched } from '../../../src/features/webhooks/dispatcher.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import type { Collector } from '../../helpers/wait.js';
import {
  createObjectType,
  ingest,
  ingestAnnounced,
  register,
  watchDispatcher,
} from '../../helpers/webhooks.js';

let t: TestApp;
let receiver: Receiver;
let dispatched: Collector<Dispatched>;
let token: string;

beforeAll(async () => {
  t = await startTestApp({
    R3_WORKER_CONCURRENCY: '0',
    R3_WEBHOOK_ALLOW_PRIVATE: 'true',
    R3_WEBHOOK_MAX_ATTEMPTS: '1',
  });
  receiver = await startReceiver();
  dispatched = watchDispatcher(t);
  token = (await t.token({ scopes: ALL_SCOPES })).token;
  await createObjectType(t, token);
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

async function webhook(id: number) {
  const res = await t.request('GET', `/api/v1/webhooks/${id}`, { token });
  expect(res.status).toBe(200);
  return res.body;
}

/** One event delivered (or not) to completion. */
async function deliverOne(): Promise<Dispatched> {
  const { dispatched: d } = await ingest(t, token, dispatched);
  await t.app.jobs.drain();
  return d;
}

describe('webhook health', () => {
  it('counts failed deliveries, resets on a delivered one, disables at 10, re-enables on PATCH', async () => {
    const id = await register(t, token, {
      url: `${receiver.url}/flaky`,
      events: ['object.created'],
      secret: 'whsec_health_0123456789',
    });
    receiver.respondWith(503);
    for (let i = 0; i < 9; i++) await deliverOne();
    expect(await webhook(id)).toMatchObject({ active: true, consecutiveFailures: 9, disabledReason: null });

    receiver.respondWith(200);
    await deliverOne();
    expect(await webhook(id)).toMatchObject({ active: true, consecutiveFailures: 0 });

    receiver.respondWith(503);
    for (let i = 0; i < 9; i++) await deliverOne();
    expect((await webhook(id)).active).toBe(true);
    await deliverOne();
    const disabled = await webhook(id);
    expect(disabled).toMatchObject({
      active: false,
      consecutiveFailures: 10,
      disabledReason: 'consecutive_failures',
      disabledAt: expect.any(String),
    });
    const audit = await t.app.db.sql.query<{ action: string }>(
      `select action from audit_log where action = 'webhook.disabled' and target_id = $1`,
      [String(id)],
    );
    expect(audit).toHaveLength(1);

    // Disabled: the next event creates no delivery at all (the org has no enabled webhook, so the
    // relay only announces it and the dispatcher never sees it).
    const before = receiver.received.items.length;
    const skipped = await ingestAnnounced(t, token);
    await t.app.jobs.drain();
    expect(dispatched.items.some((d) => d.subject.endsWith(`.object.${skipped.id}.created`))).toBe(false);
    expect(receiver.received.items.length).toBe(before);

    const enabled = await t.request('PATCH', `/api/v1/webhooks/${id}`, { token, body: { active: true } });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({
      active: true,
      consecutiveFailures: 0,
      disabledReason: null,
      disabledAt: null,
    });
    receiver.respondWith(200);
    expect((await deliverOne()).created).toBe(1);
    expect(receiver.received.items.length).toBe(before + 1);
    const statuses = await t.request('GET', `/api/v1/webhooks/${id}/deliveries?limit=200`, { token });
    const counts: Record<string, number> = {};
    for (const d of statuses.body.deliveries as Array<{ status: string }>) {
      counts[d.status] = (counts[d.status] ?? 0) + 1;
    }
    expect(counts).toEqual({ failed: 19, delivered: 2 });
  });
});
