/**
 * Shared pieces of the webhook tests: an independent signature verifier (node:crypto only, written
 * from the spec, not from r3's helper), an object type to ingest into, and a way to await the
 * dispatcher.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { expect } from 'vitest';
import type { Dispatched } from '../../src/features/webhooks/dispatcher.js';
import type { BusMessage } from '../../src/platform/bus/bus.js';
import { ALL_SCOPES, type TestApp } from './app.js';
import { type Collector, createCollector } from './wait.js';

/** The spec's check: HMAC-SHA256 over `<t>.<raw body>` keyed with the secret, hex, constant time. */
export function independentVerify(
  raw: string,
  header: string | undefined,
  secret: string,
  nowSec: number,
  toleranceSec = 300,
): boolean {
  if (!header) return false;
  let t: string | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [key, value] = part.split('=', 2) as [string, string | undefined];
    if (key === 't') t = value;
    if (key === 'v1' && value) signatures.push(value);
  }
  if (!t || !/^\d+$/.test(t) || signatures.length === 0) return false;
  if (Math.abs(nowSec - Number(t)) > toleranceSec) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${raw}`, 'utf8').digest();
  return signatures.some((hex) => {
    const given = Buffer.from(hex, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** The `v1` entries of a signature header, in order. */
export function v1Entries(header: string | undefined): string[] {
  return (header ?? '').split(',').filter((p) => p.startsWith('v1='));
}

/** Creates object type `slug` through the API. */
export async function createObjectType(t: TestApp, token: string, slug = 'ticket'): Promise<void> {
  const res = await t.request('POST', '/api/v1/objects/types', {
    token,
    body: { slug, name: `Type ${slug}` },
  });
  expect(res.status, res.text).toBe(201);
}

/** Everything the dispatcher handles from now on. */
export function watchDispatcher(t: TestApp): Collector<Dispatched> {
  const seen = createCollector<Dispatched>();
  t.app.webhookDispatcher.onDispatched((d) => seen.push(d));
  return seen;
}

/** Creates an instance of `type` through the API (201); its id and `createdAt`. */
async function createInstance(
  t: TestApp,
  token: string,
  title: string,
  type: string,
): Promise<{ id: number; createdAt: string }> {
  const res = await t.request('POST', `/api/v1/objects/${type}/instances`, {
    token,
    body: { title, metadata: {}, content: 'body' },
  });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.id as number, createdAt: res.body.createdAt };
}

/** Ingests an instance and waits until the dispatcher handled its `object.created`. */
export async function ingest(
  t: TestApp,
  token: string,
  dispatched: Collector<Dispatched>,
  title = 'A ticket',
  type = 'ticket',
): Promise<{ id: number; createdAt: string; dispatched: Dispatched }> {
  const { id, createdAt } = await createInstance(t, token, title, type);
  const all = await dispatched.until(
    (items) => items.some((d) => d.subject.endsWith(`.object.${id}.created`)),
    `object.created of ${id} dispatched`,
  );
  return {
    id,
    createdAt,
    dispatched: all.find((d) => d.subject.endsWith(`.object.${id}.created`)) as Dispatched,
  };
}

/**
 * Creates an object in an org with no enabled webhook: its `object.created` event is announced live
 * only, never stored, so the dispatcher never sees it (src/platform/outbox/relay.ts). Returns the
 * object's id and the event as a live subscriber got it, once the relay has sent it.
 */
export async function ingestAnnounced(
  t: TestApp,
  token: string,
  title = 'A ticket',
  type = 'ticket',
): Promise<{ id: number; message: BusMessage }> {
  const seen = createCollector<BusMessage>();
  const subscription = await t.app.bus.subscribe('evt.>', (msg) => seen.push(msg));
  try {
    const { id } = await createInstance(t, token, title, type);
    const subject = `.object.${id}.created`;
    const all = await seen.until(
      (items) => items.some((m) => m.subject.endsWith(subject)),
      `${subject} announced`,
    );
    return { id, message: all.find((m) => m.subject.endsWith(subject)) as BusMessage };
  } finally {
    subscription.unsubscribe();
  }
}

/** Registers a webhook and returns its id. */
export async function register(
  t: TestApp,
  token: string,
  body: { url: string; events: string[]; secret: string; filter?: unknown },
): Promise<number> {
  const res = await t.request('POST', '/api/v1/webhooks', { token, body });
  expect(res.status, res.text).toBe(201);
  return res.body.id as number;
}

/**
 * A new org `org` with an object type and a webhook for its `object.created` posting to `url`;
 * `created(title)` ingests an object and drains the jobs, so its delivery attempt has been made.
 */
export async function webhookedOrg(
  t: TestApp,
  org: string,
  url: string,
): Promise<{ token: string; created(title: string): Promise<void> }> {
  const token = (await t.token({ org, scopes: ALL_SCOPES })).token;
  await createObjectType(t, token);
  const dispatched = watchDispatcher(t);
  await register(t, token, { url, events: ['object.created'], secret: 'whsec_test_0123456789abcdef' });
  return {
    token,
    async created(title) {
      await ingest(t, token, dispatched, title);
      await t.app.jobs.drain();
    },
  };
}
