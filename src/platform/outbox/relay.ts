/**
 * The outbox relay: publishes the rows transitions wrote to `outbox` to the bus, in id order, with
 * the row's `event_id` as the message id, and deletes them once published. A batch row (`messages`,
 * all the messages of one transition statement) holds many: they are published in its order.
 *
 * Several processes may relay at once: a batch is claimed and deleted in one statement (`for update
 * skip locked`), published, and the deletion committed, so no row is published by two relays at the
 * same time. A failed publish or a crash before the commit rolls the deletion back and the batch is
 * published again (the stream dedupes by message id within its window, consumers by event id):
 * at-least-once, never zero. Deleting rather than marking published rows writes no new row version
 * or index entry per event, and leaves no published rows to sweep. A commit that wrote outbox rows
 * wakes the relay of its process at once; a poll catches everything else (another process's rows
 * when it died).
 *
 * Passes linger: a wake-up less than `lingerMs` after the previous pass ended waits for the rest of
 * it, so under load a pass publishes what many commits wrote, and the relay's own transactions
 * (three statements and a WAL flush each) stay at most one per `lingerMs`. A wake-up after a quiet
 * spell is served at once. (Measured: docs/performance.md, "Choices in the code".)
 *
 * Stored only where needed: the stream exists for durable consumers, and a feature that has one
 * says which orgs' events it needs (`storeFor`: the webhook dispatcher, orgs with an enabled
 * webhook). Once any has, a pass asks them once for the orgs of its messages, publishes those
 * orgs' events to the stream and announces the others (`Bus.announce`: live subscribers — SSE, the
 * waits — get them the same way, nothing stores or redelivers them). The question is asked after
 * the pass claimed its rows, so after their transactions committed: a webhook whose creation was
 * answered before an event happened has committed by then and is seen, the rule the dispatcher's
 * own lookup follows (src/features/webhooks/dispatcher.ts). With no feature asking, every event is
 * stored. Storing and consuming the events of orgs without webhooks took about a quarter of what
 * worker processes could do (docs/performance.md, "Stored only where needed").
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Bus } from '../bus/bus.js';
import { JsonPayload } from '../bus/message.js';
import { parseEventSubject } from '../bus/subjects.js';
import type { Db, Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/metrics.js';
import { coalescedRunner } from '../util/coalesce.js';
import { decodeOutboxLines } from './lines.js';

export interface OutboxRelayOptions {
  db: Db;
  bus: Bus;
  log: Logger;
  /** Counts publishes and their latency (`r3_bus_published_total`, `r3_bus_publish_duration_seconds`). */
  metrics?: Pick<Metrics, 'busPublished' | 'busPublishDuration'>;
  /** Rows claimed per transaction (default 500; a batch row counts as one). */
  batchSize?: number;
  /** Poll interval (default 1 s). */
  pollMs?: number;
  /** Least time from the end of one pass to the start of the next (default 10 ms). */
  lingerMs?: number;
}

/**
 * Of `orgIds` (each once), the orgs whose events a durable consumer needs stored; asked once per pass
 * (see `storeFor`), on the pass's own transaction `sql` (a second connection from the pool could wait
 * for ever on a small pool whose other connections wait for this one).
 */
export type StoredEventsInterest = (sql: Sql, orgIds: readonly number[]) => Promise<ReadonlySet<number>>;

/** The relay. */
export interface OutboxRelay {
  /** Registers a durable consumer's interest: from then on only the events of orgs some interest names are stored. */
  storeFor(interest: StoredEventsInterest): void;
  /** Publishes what is pending now (more claims if needed); resolves with the messages published. */
  flush(): Promise<number>;
  /** Asks the running relay to publish soon. */
  wake(): void;
  start(): void;
  /** Stops the loop after the batch in flight. */
  stop(): Promise<void>;
}

/** A claimed row: one message, or a batch (`messages`) with the other fields null. */
interface OutboxRow {
  id: number;
  subject: string | null;
  event_id: string | null;
  /** The stored JSON text, published as is. */
  payload: string | null;
  messages: string | null;
}

// The oldest pending rows, locked and deleted; the deletion commits only once they are published.
// (`published_at` is set only by relays of releases before migration 0008, during an upgrade.)
const CLAIM = `
  delete from outbox where id in (
    select id from outbox
     where published_at is null
     order by id
     limit $1
     for update skip locked)
  returning id, subject, event_id, payload::text as payload, messages`;

/**
 * The bus signal a serving process with worker processes sends when its commits wrote outbox rows
 * (it runs no relay of its own: src/platform/platform.ts); the relays of `worker` processes wake on it.
 */
export const OUTBOX_WAKE_SIGNAL = 'sig.outbox.wake';

/** Creates the relay (its loop starts with `start()`). */
export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { db, bus, log } = options;
  const batchSize = options.batchSize ?? 500;
  const pollMs = options.pollMs ?? 1_000;
  const lingerMs = options.lingerMs ?? 10;
  let running = false;
  /** When the last pass ended (`performance.now()`). */
  let lastPass = Number.NEGATIVE_INFINITY;
  let poll: NodeJS.Timeout | null = null;

  const { metrics } = options;
  const interests: StoredEventsInterest[] = [];
  const send = (subject: string, eventId: string, payload: string, stored: boolean) =>
    stored
      ? bus.publish(subject, new JsonPayload(payload), { msgId: eventId })
      : bus.announce(subject, new JsonPayload(payload), { msgId: eventId }).then(() => null);
  const publish = !metrics
    ? send
    : async (subject: string, eventId: string, payload: string, stored: boolean) => {
        const started = performance.now();
        try {
          const result = await send(subject, eventId, payload, stored);
          metrics.busPublished.inc({
            result: result === null ? 'announced' : result.duplicate ? 'duplicate' : 'stored',
          });
          metrics.busPublishDuration.observe((performance.now() - started) / 1000);
          return result;
        } catch (error) {
          metrics.busPublished.inc({ result: 'error' });
          throw error;
        }
      };

  /** The org an event subject names, or null (such a message is stored, as before any interest). */
  const orgOf = (subject: string): number | null => {
    const org = Number(parseEventSubject(subject)?.orgId);
    return Number.isSafeInteger(org) ? org : null;
  };

  /** Whether each of `subjects`' messages is stored: all until an interest is registered (`storeFor`). */
  async function storedOf(sql: Sql, subjects: readonly string[]): Promise<boolean[]> {
    if (interests.length === 0) return subjects.map(() => true);
    const orgs = subjects.map(orgOf);
    const asked = [...new Set(orgs.filter((org): org is number => org !== null))];
    const stored = new Set<number>();
    for (const interest of interests) for (const org of await interest(sql, asked)) stored.add(org);
    return orgs.map((org) => org === null || stored.has(org));
  }

  /** One claim: the rows it took and the messages they held. */
  async function batch(): Promise<{ rows: number; messages: number }> {
    return db.tx(async (sql) => {
      const rows = await sql.prepared<OutboxRow>('outbox_claim', CLAIM, [batchSize]);
      if (rows.length === 0) return { rows: 0, messages: 0 };
      rows.sort((a, b) => a.id - b.id);
      const messages: Array<{ subject: string; eventId: string; payload: string }> = [];
      for (const row of rows) {
        if (row.messages === null) {
          messages.push({
            subject: row.subject as string,
            eventId: row.event_id as string,
            payload: row.payload as string,
          });
        } else {
          messages.push(...decodeOutboxLines(row.messages));
        }
      }
      const stored = await storedOf(
        sql,
        messages.map((m) => m.subject),
      );
      // Sent in order on one connection; a failure rolls the batch back to be published again.
      await Promise.all(
        messages.map((m, i) => publish(m.subject, m.eventId, m.payload, stored[i] as boolean)),
      );
      return { rows: rows.length, messages: messages.length };
    });
  }

  async function flush(): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await batch();
      total += claimed.messages;
      if (claimed.rows < batchSize) return total;
    }
  }

  const loop = coalescedRunner({
    run: async () => {
      const wait = lastPass + lingerMs - performance.now();
      if (wait > 0) await sleep(wait);
      try {
        await flush();
      } finally {
        lastPass = performance.now();
      }
    },
    active: () => running,
    onError: (error) => log.error({ err: error }, 'outbox relay failed; retrying on the next poll'),
  });
  const wake = (): void => loop.trigger();

  return {
    storeFor(interest) {
      interests.push(interest);
    },
    flush,
    wake,
    start() {
      if (running) return;
      running = true;
      poll = setInterval(wake, pollMs);
      poll.unref();
      wake();
    },
    async stop() {
      running = false;
      if (poll) clearInterval(poll);
      poll = null;
      await loop.current;
    },
  };
}
