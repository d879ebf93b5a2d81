/**
 * The outbox relay: publishes the rows transitions wrote to `outbox` to the bus, in id order, with
 * the row's `event_id` as the message id, then marks them published.
 *
 * Several processes may relay at once: a batch is claimed with `for update skip locked` and held
 * until it is published and marked, so no row is published by two relays at the same time. A crash
 * between publish and mark republishes the batch (the stream dedupes by message id within its window,
 * consumers by event id): at-least-once, never zero. A commit that wrote outbox rows wakes the relay
 * of its process at once; a poll catches everything else (another process's rows when it died).
 */
import type { Db } from '../db/sql.js';
import type { Logger } from '../log.js';
import type { Clock } from '../util/clock.js';
import { coalescedRunner } from '../util/coalesce.js';
import type { Bus } from './bus.js';

export interface OutboxRelayOptions {
  db: Db;
  bus: Bus;
  clock: Clock;
  log: Logger;
  /** Rows per batch (default 500). */
  batchSize?: number;
  /** Poll interval (default 1 s). */
  pollMs?: number;
  /** Published rows are deleted after this long (default 24 h). */
  retentionMs?: number;
}

/** The relay. */
export interface OutboxRelay {
  /** Publishes what is pending now (more batches if needed); resolves with the rows published. */
  flush(): Promise<number>;
  /** Asks the running relay to publish soon. */
  wake(): void;
  start(): void;
  /** Stops the loop after the batch in flight. */
  stop(): Promise<void>;
}

interface OutboxRow {
  id: number;
  subject: string;
  event_id: string;
  payload: unknown;
}

const CLAIM = `
  select id, subject, event_id, payload from outbox
   where published_at is null
   order by id
   limit $1
   for update skip locked`;

const MARK = 'update outbox set published_at = $2 where id = any($1::bigint[])';

const SWEEP = 'delete from outbox where published_at is not null and published_at < $1';

/** Creates the relay (its loop starts with `start()`). */
export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { db, bus, clock, log } = options;
  const batchSize = options.batchSize ?? 500;
  const pollMs = options.pollMs ?? 1_000;
  const retentionMs = options.retentionMs ?? 24 * 60 * 60_000;
  let running = false;
  let poll: NodeJS.Timeout | null = null;
  let lastSweep = 0;

  async function batch(): Promise<number> {
    return db.tx(async (sql) => {
      const rows = await sql.prepared<OutboxRow>('outbox_claim', CLAIM, [batchSize]);
      if (rows.length === 0) return 0;
      // Sent in order on one connection; a failure rolls the batch back to be published again.
      await Promise.all(rows.map((row) => bus.publish(row.subject, row.payload, { msgId: row.event_id })));
      await sql.prepared('outbox_mark', MARK, [
        rows.map((row) => row.id),
        new Date(clock.now()).toISOString(),
      ]);
      return rows.length;
    });
  }

  async function flush(): Promise<number> {
    let total = 0;
    for (;;) {
      const published = await batch();
      total += published;
      if (published < batchSize) return total;
    }
  }

  async function sweep(): Promise<void> {
    const now = clock.now();
    if (now - lastSweep < 10 * 60_000) return;
    lastSweep = now;
    await db.query(SWEEP, [new Date(now - retentionMs).toISOString()]);
  }

  const loop = coalescedRunner({
    run: async () => {
      await flush();
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
      poll = setInterval(() => {
        wake();
        void sweep().catch((error) => log.warn({ err: error }, 'outbox sweep failed'));
      }, pollMs);
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
