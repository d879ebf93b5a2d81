/**
 * One slow receiver cannot starve the others: attempts to one webhook are bounded per process
 * (R3_WEBHOOK_CONCURRENCY), and jobs beyond the bound go back to the queue instead of holding workers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../../../fakes/webhook-receiver.js';
import type { Dispatched } from '../../../src/features/webhooks/dispatcher.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import type { Collector } from '../../helpers/wait.js';
import { createObjectType, ingest, register, watchDispatcher } from '../../helpers/webhooks.js';

let t: TestApp;
let slow: Receiver;
let fast: Receiver;
let dispatched: Collector<Dispatched>;

beforeAll(async () => {
  t = await startTestApp({
    R3_WORKER_CONCURRENCY: '4',
    R3_WEBHOOK_ALLOW_PRIVATE: 'true',
    R3_WEBHOOK_CONCURRENCY: '1',
  });
  slow = await startReceiver();
  fast = await startReceiver();
  dispatched = watchDispatcher(t);
});
afterAll(async () => {
  await Promise.all([slow?.close(), fast?.close()]);
  await t?.close();
});

describe('per-endpoint concurrency', () => {
  it('keeps one attempt in flight to a slow receiver while another webhook is delivered', async () => {
    const slowOrg = (await t.token({ org: 'slow', scopes: ALL_SCOPES })).token;
    const fastOrg = (await t.token({ org: 'fast', scopes: ALL_SCOPES })).token;
    await createObjectType(t, slowOrg);
    await createObjectType(t, fastOrg);
    const slowHook = await register(t, slowOrg, {
      url: `${slow.url}/slow`,
      events: ['object.created'],
      secret: 'whsec_slow_0123456789',
    });
    await register(t, fastOrg, {
      url: `${fast.url}/fast`,
      events: ['object.created'],
      secret: 'whsec_fast_0123456789',
    });

    const release = slow.hold();
    for (let i = 0; i < 5; i++) await ingest(t, slowOrg, dispatched, `slow ${i}`);
    await slow.received.untilCount(1, 'the first slow attempt');
    // Four workers, five slow deliveries: without the bound all four would be waiting on `slow`.
    await ingest(t, fastOrg, dispatched, 'fast one');
    await fast.received.untilCount(1, 'the fast delivery');
    expect(slow.held).toBe(1);

    release();
    for (let round = 0; round < 20; round++) {
      const res = await t.request('GET', `/api/v1/webhooks/${slowHook}/deliveries?status=delivered`, {
        token: slowOrg,
      });
      if (res.body.deliveries.length === 5) break;
      // Jobs put back wait a second of the (manual) clock.
      t.clock.advance(1_000);
      await t.app.jobs.drain();
    }
    const done = await t.request('GET', `/api/v1/webhooks/${slowHook}/deliveries?status=delivered`, {
      token: slowOrg,
    });
    expect(done.body.deliveries).toHaveLength(5);
    // Waiting for a slot is not an attempt: every delivery took exactly one.
    expect(done.body.deliveries.map((d: { attempts: number }) => d.attempts)).toEqual([1, 1, 1, 1, 1]);
  });
});
