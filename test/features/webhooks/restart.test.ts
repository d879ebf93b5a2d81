/**
 * Durability of deliveries: a retry scheduled by one r3 process fires in the next one started on the
 * same database (the timer is a row, not memory), and a worker that dies mid-attempt loses nothing:
 * the job is claimed again after its lease and makes the next attempt, or reports the lost attempt
 * as failed when it was the last.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../../../fakes/webhook-receiver.js';
import { WEBHOOK_DELIVERY_KIND } from '../../../src/features/webhooks/webhook-kinds.js';
import { WORKER } from '../../../src/platform/actors/acting-as.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import {
  createObjectType,
  independentVerify,
  ingest,
  register,
  watchDispatcher,
} from '../../helpers/webhooks.js';

const SECRET = 'whsec_restart_0123456789';
const ENV = {
  R3_WORKER_CONCURRENCY: '0',
  R3_WEBHOOK_ALLOW_PRIVATE: 'true',
  R3_SECRET_KEY: 'restart-test-master-secret-0123456789abcdef',
};
const LEASE_MS = 5 * 60_000;

let database: TestDatabase;
let receiver: Receiver;

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await database?.drop();
});

async function deliveryOf(t: TestApp, token: string, webhookId: number) {
  const res = await t.request('GET', `/api/v1/webhooks/${webhookId}/deliveries`, { token });
  return res.body.deliveries[0];
}

describe('a restart', () => {
  it('loses no scheduled retry: the next process fires it and the delivery goes out', async () => {
    const a = await startTestApp(ENV, { database });
    const token = (await a.token({ org: 'restart', scopes: ALL_SCOPES })).token;
    await createObjectType(a, token);
    const id = await register(a, token, {
      url: `${receiver.url}/r`,
      events: ['object.created'],
      secret: SECRET,
    });
    receiver.respondWith(500);
    await ingest(a, token, watchDispatcher(a));
    await a.app.jobs.drain();
    const t0 = a.clock.now();
    const before = await deliveryOf(a, token, id);
    expect(before).toMatchObject({
      status: 'pending',
      attempts: 1,
      nextAttemptAt: new Date(t0 + 1000).toISOString(),
    });
    await a.close();

    // The next process's clock starts where the first one stopped, and its timer loop is stopped:
    // only the test's `runDue` fires the retry (the loop polls every second, by the machine's time,
    // and on a slow machine one poll fell between moving the clock and `runDue`).
    const b = await startTestApp(ENV, { database, now: t0 });
    await b.app.timers.stop();
    try {
      receiver.respondWith(200);
      b.clock.set(t0 + 999);
      expect(await b.app.timers.runDue()).toBe(0);
      b.clock.set(t0 + 1000);
      expect(await b.app.timers.runDue()).toBe(1);
      await b.app.jobs.drain();
      const after = await deliveryOf(b, token, id);
      expect(after).toMatchObject({
        deliveryId: before.deliveryId,
        status: 'delivered',
        attempts: 2,
        responseStatus: 200,
      });
      const sent = receiver.received.items.filter((r) => r.json?.deliveryId === before.deliveryId);
      expect(sent).toHaveLength(2);
      // The new process opens the secret sealed by the old one.
      const last = sent[1];
      expect(
        independentVerify(
          last?.raw as string,
          last?.headers['x-service-signature'] as string,
          SECRET,
          Math.floor(b.clock.now() / 1000),
        ),
      ).toBe(true);
    } finally {
      await b.close();
    }
  });

  it('recovers an attempt whose worker died: the job is claimed again after its lease', async () => {
    const t = await startTestApp(ENV, { database });
    try {
      const token = (await t.token({ org: 'dead-worker', scopes: ALL_SCOPES })).token;
      await createObjectType(t, token);
      const id = await register(t, token, {
        url: `${receiver.url}/w`,
        events: ['object.created'],
        secret: SECRET,
      });
      receiver.respondWith(200);
      await ingest(t, token, watchDispatcher(t));
      // A worker claims the job, starts attempt 1, and dies before the POST.
      const [job] = await t.app.jobs.claim('dead-worker', 10);
      expect(job?.kind).toBe('deliver');
      const payload = job?.payload as { actorId: number; orgId: number };
      await t.app.actors.transact((tx) =>
        t.app.actors.send(
          tx,
          WEBHOOK_DELIVERY_KIND,
          { orgId: payload.orgId, id: payload.actorId },
          { type: 'ATTEMPT_STARTED', attempt: 1, at: new Date(t.clock.now()).toISOString() },
          { actingAs: WORKER },
        ),
      );
      expect(await t.app.jobs.drain()).toBe(0);
      t.clock.advance(LEASE_MS + 1);
      expect(await t.app.jobs.drain()).toBe(1);
      expect(await deliveryOf(t, token, id)).toMatchObject({ status: 'delivered', attempts: 2 });
    } finally {
      await t.close();
    }
  });

  it('reports the lost last attempt as failed', async () => {
    const t = await startTestApp({ ...ENV, R3_WEBHOOK_MAX_ATTEMPTS: '1' }, { database });
    try {
      const token = (await t.token({ org: 'last-attempt', scopes: ALL_SCOPES })).token;
      await createObjectType(t, token);
      const id = await register(t, token, {
        url: `${receiver.url}/l`,
        events: ['object.created'],
        secret: SECRET,
      });
      const from = receiver.received.items.length;
      await ingest(t, token, watchDispatcher(t));
      const [job] = await t.app.jobs.claim('dead-worker', 10);
      const payload = job?.payload as { actorId: number; orgId: number };
      await t.app.actors.transact((tx) =>
        t.app.actors.send(
          tx,
          WEBHOOK_DELIVERY_KIND,
          { orgId: payload.orgId, id: payload.actorId },
          { type: 'ATTEMPT_STARTED', attempt: 1, at: new Date(t.clock.now()).toISOString() },
          { actingAs: WORKER },
        ),
      );
      t.clock.advance(LEASE_MS + 1);
      expect(await t.app.jobs.drain()).toBe(1);
      const delivery = await deliveryOf(t, token, id);
      expect(delivery).toMatchObject({ status: 'failed', attempts: 1 });
      const detail = await t.request('GET', `/api/v1/webhooks/${id}/deliveries/${delivery.deliveryId}`, {
        token,
      });
      expect(detail.body.lastError).toBe('worker_lost');
      expect(receiver.received.items.length).toBe(from);
      expect((await t.request('GET', `/api/v1/webhooks/${id}`, { token })).body.consecutiveFailures).toBe(1);
    } finally {
      await t.close();
    }
  });
});
