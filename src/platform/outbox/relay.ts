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
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Bus } from '../bus/bus.js';
import { JsonPayload } from '../bus/message.js';
import type { Db } from '../db/sql.js';
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

/** The relay. */
export interface OutboxRelay {
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
  const send = (subject: string, eventId: string, payload: string) =>
    bus.publish(subject, new JsonPayload(payload), { msgId: eventId });
  const publish = !metrics
    ? send
    : async (subject: string, eventId: string, payload: string) => {
        const started = performance.now();
        try {
          const result = await send(subject, eventId, payload);
          metrics.busPublished.inc({ result: result.duplicate ? 'duplicate' : 'stored' });
          metrics.busPublishDuration.observe((performance.now() - started) / 1000);
          return result;
        } catch (error) {
          metrics.busPublished.inc({ result: 'error' });
          throw error;
        }
      };

  /** One claim: the rows it took and the messages they held. */
  async function batch(): Promise<{ rows: number; messages: number }> {
    return db.tx(async (sql) => {
      const rows = await sql.prepared<OutboxRow>('outbox_claim', CLAIM, [batchSize]);
      if (rows.length === 0) return { rows: 0, messages: 0 };
      rows.sort((a, b) => a.id - b.id);
      // Sent in order on one connection; a failure rolls the batch back to be published again.
      const sent: Array<Promise<unknown>> = [];
      for (const row of rows) {
        if (row.messages === null) {
          sent.push(publish(row.subject as string, row.event_id as string, row.payload as string));
        } else {
          for (const line of decodeOutboxLines(row.messages)) {
            sent.push(publish(line.subject, line.eventId, line.payload));
          }
        }
      }
      await Promise.all(sent);
      return { rows: rows.length, messages: sent.length };
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
