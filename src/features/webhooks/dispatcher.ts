/**
 * The webhook dispatcher: a durable bus consumer over every stored domain event (`evt.>`, shared by
 * all r3 processes, at-least-once) that turns each event into one `webhook-delivery` actor per
 * webhook that wants it: enabled, subscribed to the event's type, passing its filter, and registered
 * no later than the event happened. A redelivered event creates nothing new: deliveries are unique
 * per (webhook, event id), checked before and enforced by the database. The stream stores the events
 * of orgs with an enabled webhook only (`storedEventsOfWebhookOrgs`, asked by the outbox relay).
 */
import { SYSTEM } from '../../platform/actors/acting-as.js';
import type { ActorHost } from '../../platform/actors/host.js';
import type { Bus, BusMessage, ConsumerHandle } from '../../platform/bus/bus.js';
import { ALL_EVENTS_PATTERN, parseEventSubject } from '../../platform/bus/subjects.js';
import type { Db } from '../../platform/db/sql.js';
import type { Logger } from '../../platform/log.js';
import type { StoredEventsInterest } from '../../platform/outbox/relay.js';
import { createBatchLoader } from '../../platform/util/batch-loader.js';
import { setBounded } from '../../platform/util/bounded-map.js';
import type { Clock } from '../../platform/util/clock.js';
import { mayMapToWebhook, toWebhookEvent, type WebhookEvent } from './event-map.js';
import {
  buildDeliveryBody,
  type DeliveryBodyInput,
  matchesFilter,
  newDeliveryId,
  type WebhookFilter,
} from './payload.js';
import { WEBHOOK_DELIVERY_KIND } from './webhook-kinds.js';

/** Name of the durable consumer (one cursor for the whole deployment). */
export const DISPATCH_CONSUMER = 'webhooks';

/** What handling one bus message did (tests await it). */
export interface Dispatched {
  subject: string;
  eventId: string | null;
  /** Deliveries created for it. */
  created: number;
}

export interface WebhookDispatcher {
  /** Handles one bus message (what the consumer calls). */
  handle(msg: Pick<BusMessage, 'subject' | 'json'>): Promise<Dispatched>;
  /** Calls `listener` after each handled message. */
  onDispatched(listener: (dispatched: Dispatched) => void): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface DispatcherDeps {
  db: Db;
  bus: Bus;
  host: ActorHost;
  log: Logger;
  maxAttempts: number;
  backoffMs: readonly number[];
  /** Messages handled at once by this process (default 32). */
  concurrency?: number;
  /** The clock events' times are compared with (see `quiet`). */
  clock: Clock;
}

interface Candidate {
  id: number;
  events: string[];
  filter: WebhookFilter | null;
}

// For each event (org, type, event id, time) of a batch: the enabled webhooks of the org subscribed to
// the type, registered by the event's time, without a delivery of this event yet. And the batch's
// orgs that have no enabled webhook at all (`idle_org`, the other columns null: see `quiet`).
const CANDIDATES = `
  with x as (
    select * from unnest($1::bigint[], $2::text[], $3::uuid[], $4::timestamptz[])
           with ordinality as x(key_org_id, key_type, key_event_id, key_at, ord))
  select x.ord, w.id, w.events, w.filter, null::bigint as idle_org
    from x
    join webhooks w on w.org_id = x.key_org_id and w.active and x.key_type = any(w.events)
                   and w.created_at <= x.key_at
   where not exists (
       select 1 from webhook_deliveries d
        where d.webhook_id = w.id and d.event_id = x.key_event_id and d.replay_of is null)
  union all
  select null, null, null, null, o.org_id
    from (select distinct key_org_id as org_id from x) o
   where not exists (select 1 from webhooks w where w.org_id = o.org_id and w.active)`;

const ORGS_WITH_WEBHOOKS = `
  select distinct w.org_id from webhooks w where w.org_id = any($1::bigint[]) and w.active`;

/**
 * The dispatcher's interest in stored events (`OutboxRelay.storeFor`): of `orgIds`, those with an
 * enabled webhook, read when the relay asks (after the events it carries committed). An org without
 * one has its events announced live only: no delivery could come of them (an event of an org whose
 * webhook is enabled only later is not delivered to it, `created_at <= at`, and the dispatcher's
 * own lookup would find no webhook either), and storing, delivering and acking each took about a
 * quarter of what worker processes could do (they completed a third more runs without it).
 */
export const storedEventsOfWebhookOrgs: StoredEventsInterest = async (sql, orgIds) => {
  if (orgIds.length === 0) return new Set();
  const rows = await sql.prepared<{ org_id: string }>('webhook_orgs', ORGS_WITH_WEBHOOKS, [orgIds]);
  return new Set(rows.map((row) => Number(row.org_id)));
};

/** Orgs remembered as quiet (see `quiet`): the most recently seen are kept. */
const QUIET_ORGS = 10_000;

const UNIQUE_VIOLATION = '23505';

/** Creates the dispatcher; `start()` attaches it to the bus. */
export function createWebhookDispatcher(deps: DispatcherDeps): WebhookDispatcher {
  const { db, bus, host, log } = deps;
  const listeners: Array<(dispatched: Dispatched) => void> = [];
  let consumer: ConsumerHandle | null = null;
  /**
   * Quiet orgs: for each org a batch's statement found without an enabled webhook, the time (this
   * process's clock, ms) just before that statement was sent. An event of the org from before then
   * needs no statement: had a webhook's creation or enabling been answered before the event
   * happened, it would have committed before the statement read the webhooks, and been seen. (One
   * being committed while the event happens is the race a lookup at any later time has too; clocks
   * of processes are compared as the `created_at <= at` rule compares them already.) An event of
   * the org from that time on goes to the database, and its batch moves the time on.
   */
  const quietUntil = new Map<number, number>();
  const quiet = (event: WebhookEvent): boolean =>
    Date.parse(event.createdAt) < (quietUntil.get(event.orgId) ?? Number.NEGATIVE_INFINITY);
  // Events handled at once look their webhooks up together: one statement per batch.
  const candidates = createBatchLoader<WebhookEvent, Candidate[]>({
    async batch(events) {
      const asOf = deps.clock.now();
      const rows = await db.prepared<Candidate & { ord: number | null; idle_org: string | null }>(
        'webhook_candidates',
        CANDIDATES,
        [
          events.map((e) => e.orgId),
          events.map((e) => e.type),
          events.map((e) => e.eventId),
          events.map((e) => e.createdAt),
        ],
      );
      const found: Candidate[][] = events.map(() => []);
      for (const row of rows) {
        if (row.idle_org !== null) {
          const org = Number(row.idle_org);
          const since = Math.max(asOf, quietUntil.get(org) ?? asOf);
          quietUntil.delete(org);
          setBounded(quietUntil, org, since, QUIET_ORGS);
        } else if (row.ord !== null) found[row.ord - 1]?.push(row);
      }
      return found;
    },
  });

  async function createDelivery(webhookId: number, event: WebhookEvent): Promise<boolean> {
    const deliveryId = newDeliveryId();
    const { json } = buildDeliveryBody({
      event: event.type,
      data: event.data,
      createdAt: event.createdAt,
      deliveryId,
    } as DeliveryBodyInput);
    try {
      await host.transact(
        (tx) =>
          host.create(tx, WEBHOOK_DELIVERY_KIND, {
            orgId: event.orgId,
            input: (_id, at) => ({
              deliveryId,
              webhookId,
              event: event.type,
              maxAttempts: deps.maxAttempts,
              backoffMs: [...deps.backoffMs],
              at,
            }),
            columns: {
              webhook_id: webhookId,
              delivery_id: deliveryId,
              event_id: event.eventId,
              event_type: event.type,
              replay_of: null,
              body: json,
            },
            actingAs: SYSTEM,
          }),
        { single: true },
      );
      return true;
    } catch (error) {
      // Another process dispatched the same event to this webhook meanwhile.
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) return false;
      throw error;
    }
  }

  async function handle(msg: Pick<BusMessage, 'subject' | 'json'>): Promise<Dispatched> {
    const parsed = parseEventSubject(msg.subject);
    let event: WebhookEvent | null = null;
    try {
      event = parsed && mayMapToWebhook(msg.subject) ? toWebhookEvent(msg.subject, msg.json()) : null;
    } catch (error) {
      // Redelivering a malformed payload would fail the same way forever.
      log.error({ err: error, subject: msg.subject }, 'webhook dispatcher skipped a malformed event');
    }
    if (!event || String(event.orgId) !== parsed?.orgId) {
      return { subject: msg.subject, eventId: event?.eventId ?? null, created: 0 };
    }
    if (quiet(event)) return { subject: msg.subject, eventId: event.eventId, created: 0 };
    const wanted = (await candidates.load(event)).filter((w) =>
      matchesFilter({ events: w.events, filter: w.filter }, event.descriptor),
    );
    const created = await Promise.all(wanted.map((w) => createDelivery(w.id, event)));
    return { subject: msg.subject, eventId: event.eventId, created: created.filter(Boolean).length };
  }

  return {
    handle,
    onDispatched(listener) {
      listeners.push(listener);
    },
    async start() {
      if (consumer) return;
      consumer = await bus.consume(
        DISPATCH_CONSUMER,
        ALL_EVENTS_PATTERN,
        async (msg) => {
          const dispatched = await handle(msg);
          for (const listener of listeners) {
            try {
              listener(dispatched);
            } catch (error) {
              log.warn({ err: error }, 'dispatch listener failed');
            }
          }
        },
        { concurrency: deps.concurrency ?? 32 },
      );
    },
    async stop() {
      const current = consumer;
      consumer = null;
      await current?.stop();
    },
  };
}
