/**
 * The outbox relay: rows written by transitions reach the bus in order with their event id as the
 * message id, are deleted once published, are never published by two relays at once, and are
 * published again (never lost) when the commit fails after the publish. Its passes linger: one
 * woken soon after the previous waits, so a burst of commits is published by one pass.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEventPayload } from '../../../src/features/runs/run-kinds.js';
import type { BusMessage } from '../../../src/platform/bus/bus.js';
import { createLogger } from '../../../src/platform/log.js';
import { encodeOutboxLines } from '../../../src/platform/outbox/lines.js';
import { createOutboxRelay } from '../../../src/platform/outbox/relay.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createSkillRun, orgIdOf } from '../../helpers/runs.js';
import { createCollector } from '../../helpers/wait.js';
import { register } from '../../helpers/webhooks.js';

let t: TestApp;
let org: number;
const seen = createCollector<BusMessage>();

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0', R3_WEBHOOK_ALLOW_PRIVATE: 'true' });
  // The tests drive publishing themselves.
  await t.app.outbox.stop();
  await t.token();
  org = await orgIdOf(t.app);
  await t.app.bus.subscribe('evt.>', (msg) => seen.push(msg));
});
afterAll(() => t.close());

const unpublished = async () =>
  (await t.app.db.sql.one<{ n: number }>('select count(*)::int as n from outbox_messages')).n;

/** Flushes the relay, which must send `count` messages, and answers them as live subscribers got them. */
async function relayed(count: number, what: string): Promise<BusMessage[]> {
  const from = seen.items.length;
  expect(await t.app.outbox.flush()).toBe(count);
  return (await seen.untilCount(from + count, what)).slice(from);
}

describe('the outbox relay', () => {
  it('publishes pending rows in order with the event id as message id, then deletes them', async () => {
    const { actor } = await createSkillRun(t.app, org);
    const id = actor.row.id;
    const messages = await relayed(2, 'two run events');
    expect(messages.map((m) => m.subject)).toEqual([
      `evt.${org}.run.${id}.started`,
      `evt.${org}.run.${id}.step_started`,
    ]);
    const payloads = messages.map((m) => m.json<RunEventPayload>());
    expect(payloads.map((p) => p.seq)).toEqual([1, 2]);
    expect(messages.map((m) => m.msgId)).toEqual(payloads.map((p) => p.eventId));
    expect(payloads[0]).toMatchObject({
      orgId: org,
      runId: id,
      kind: 'skill',
      event: 'started',
      status: 'running',
    });
    expect(await unpublished()).toBe(0);
    expect(await t.app.outbox.flush()).toBe(0);
  });

  it("publishes a batch row's messages in their order, between single rows in id order", async () => {
    const sql = t.app.db.sql;
    const single = (n: number) =>
      sql.query(
        `insert into outbox (org_id, subject, event_id, payload, created_at)
         values ($1, $2, gen_random_uuid(), $3, now())`,
        [org, `evt.${org}.test.${n}.single`, JSON.stringify({ n })],
      );
    await single(1);
    const batch = encodeOutboxLines(
      [2, 3, 4].map((n) => ({
        subject: `evt.${org}.test.${n}.batched`,
        event_id: randomUUID(),
        payload: { n, text: 'a\tb\nc' },
      })),
    );
    await sql.query('insert into outbox (messages, created_at) values ($1, now())', [batch]);
    await single(5);
    // The view shows the batch's messages one a row.
    expect(await unpublished()).toBe(5);
    const from = seen.items.length;
    expect(await t.app.outbox.flush()).toBe(5);
    const messages = seen.items.slice(from);
    expect(messages.map((m) => m.json<{ n: number }>().n)).toEqual([1, 2, 3, 4, 5]);
    expect(messages[2]?.json()).toEqual({ n: 3, text: 'a\tb\nc' });
    expect(messages[2]?.subject).toBe(`evt.${org}.test.3.batched`);
    expect(await unpublished()).toBe(0);
  });

  it('stores the events of orgs with an enabled webhook, and announces the others to live subscribers only', async () => {
    const stored = createCollector<string>();
    const consumer = await t.app.bus.consume('relay-stored', `evt.${org}.run.>`, async (m) =>
      stored.push(m.subject),
    );
    try {
      // An org with no webhook: seen live, with their ids, and never stored.
      const quiet = (await createSkillRun(t.app, org)).actor.row.id;
      const live = await relayed(2, "the quiet org's events");
      expect(live.map((m) => m.subject)).toEqual([
        `evt.${org}.run.${quiet}.started`,
        `evt.${org}.run.${quiet}.step_started`,
      ]);
      expect(live.map((m) => m.msgId)).toEqual(live.map((m) => m.json<RunEventPayload>().eventId));
      // A webhook (disabled ones do not count), then a run: its events are stored.
      const owner = (await t.token({ scopes: ['read:all', 'write:resources', 'run:invoke'] })).token;
      const hook = await register(t, owner, {
        url: 'http://127.0.0.1:9/hook',
        events: ['run.completed'],
        secret: 'x'.repeat(32),
      });
      /** Sets the webhook's `active`, then creates a run and relays its two events; the run's id. */
      const runWithWebhook = async (active: boolean) => {
        const res = await t.request('PATCH', `/api/v1/webhooks/${hook}`, { token: owner, body: { active } });
        expect(res.status, res.text).toBe(200);
        const id = (await createSkillRun(t.app, org)).actor.row.id;
        expect(await t.app.outbox.flush()).toBe(2);
        return id;
      };
      const stillQuiet = await runWithWebhook(false);
      const watched = await runWithWebhook(true);
      await stored.untilCount(2, "the watched org's events stored");
      expect(stored.items).toEqual([
        `evt.${org}.run.${watched}.started`,
        `evt.${org}.run.${watched}.step_started`,
      ]);
      expect(stored.items.join()).not.toContain(`.${quiet}.`);
      expect(stored.items.join()).not.toContain(`.${stillQuiet}.`);
      await t.request('DELETE', `/api/v1/webhooks/${hook}`, { token: owner });
    } finally {
      await consumer.stop();
    }
  });

  it('refuses an outbox row that is neither one message nor a batch', async () => {
    const error = await t.app.db.sql
      .query(
        `insert into outbox (org_id, subject, event_id, payload, messages, created_at)
         values ($1, 's', gen_random_uuid(), '{}', 'x', now())`,
        [org],
      )
      .catch((e: unknown) => e);
    expect(String(error)).toContain('outbox_one_form');
  });

  it('is safe with several relays: every row is published once', async () => {
    for (let i = 0; i < 5; i++) await createSkillRun(t.app, org);
    const from = seen.items.length;
    const other = createOutboxRelay({
      db: t.app.db.sql,
      bus: t.app.bus,
      log: createLogger('silent'),
      batchSize: 3,
    });
    const mine = createOutboxRelay({
      db: t.app.db.sql,
      bus: t.app.bus,
      log: createLogger('silent'),
      batchSize: 3,
    });
    const counts = await Promise.all([mine.flush(), other.flush(), mine.flush(), other.flush()]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(10);
    const ids = seen.items.slice(from).map((m) => m.msgId);
    expect(ids).toHaveLength(10);
    expect(new Set(ids).size).toBe(10);
    expect(await unpublished()).toBe(0);
  });

  it('publishes again when the commit fails after the publish: at-least-once', async () => {
    await createSkillRun(t.app, org);
    const from = seen.items.length;
    const sql = t.app.db.sql;
    // A deferred constraint trigger fires at commit: after the batch has been published.
    await sql.query(`create or replace function r3_test_fault() returns trigger language plpgsql as $$
      begin raise exception 'injected fault on %', tg_table_name; end $$`);
    await sql.query(
      `create constraint trigger r3_test_fault after delete on outbox deferrable initially deferred
       for each row execute function r3_test_fault()`,
    );
    const failed = await t.app.outbox.flush().catch((e: unknown) => e);
    await sql.query('drop trigger r3_test_fault on outbox');
    expect(String(failed)).toContain('injected fault');
    expect(seen.items.length - from).toBe(2);
    expect(await unpublished()).toBe(2);
    expect(await t.app.outbox.flush()).toBe(2);
    const ids = seen.items.slice(from).map((m) => m.msgId);
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(2);
    expect(await unpublished()).toBe(0);
  });

  it('serves a wake-up after a quiet spell at once, and lets one pass publish a burst', async () => {
    let passes = 0;
    const db = t.app.db.sql;
    const relay = createOutboxRelay({
      db: {
        ...db,
        tx: (fn) => {
          passes++;
          return db.tx(fn);
        },
      },
      bus: t.app.bus,
      log: createLogger('silent'),
      lingerMs: 500,
      pollMs: 60_000,
    });
    relay.start();
    try {
      // The start's own pass finds nothing; the next wake-up comes after a quiet spell.
      await new Promise((resolve) => setTimeout(resolve, 550));
      await createSkillRun(t.app, org);
      const from = seen.items.length;
      const woken = performance.now();
      relay.wake();
      await seen.untilCount(from + 2, 'the first run published');
      // (Lingering from the wake-up instead of from the last pass would take 500 ms.)
      expect(performance.now() - woken).toBeLessThan(400);

      // Five runs committed right after that pass, each waking the relay: one pass publishes them
      // all, once the linger is over.
      const before = passes;
      const burstFrom = seen.items.length;
      const started = performance.now();
      for (let i = 0; i < 5; i++) {
        await createSkillRun(t.app, org);
        relay.wake();
      }
      await seen.untilCount(burstFrom + 10, 'the burst published');
      expect(performance.now() - started).toBeGreaterThanOrEqual(350);
      expect(passes - before).toBe(1);
    } finally {
      await relay.stop();
    }
    expect(await unpublished()).toBe(0);
  });
});
