/**
 * The gauges read at scrape time from shared state: the job queue and the outbox (PostgreSQL, so
 * every node reports the deployment's value) and the lag of this process's durable bus consumers
 * (NATS). A scrape runs each query once, however many gauges it feeds.
 */
import type { Bus } from '../bus/bus.js';
import type { Sql } from '../db/sql.js';
import type { Metrics } from './metrics.js';

interface JobsRow {
  kind: string;
  ready: number;
  scheduled: number;
  running: number;
  dead: number;
  oldest_ready_s: number | null;
}

// Ready: due and not leased. Running: leased. Scheduled: due later (a retry's backoff, a deferral).
// A ready job has waited since it was enqueued or became due, whichever is later (`run_at` may be
// earlier than the enqueueing: a mission's child runs queue at the mission's creation).
const JOBS = `
  select kind,
         count(*) filter (where dead_at is null and run_at <= now()
                            and (locked_until is null or locked_until <= now()))::int as ready,
         count(*) filter (where dead_at is null and run_at > now()
                            and (locked_until is null or locked_until <= now()))::int as scheduled,
         count(*) filter (where dead_at is null and locked_until > now())::int as running,
         count(*) filter (where dead_at is not null)::int as dead,
         extract(epoch from now() - min(greatest(run_at, created_at)) filter (
           where dead_at is null and run_at <= now()
             and (locked_until is null or locked_until <= now())))::float8 as oldest_ready_s
    from jobs
   group by kind`;

interface OutboxRow {
  rows: number;
  oldest_s: number | null;
}

const OUTBOX = `
  select count(*)::int as rows, extract(epoch from now() - min(created_at))::float8 as oldest_s
    from outbox where published_at is null`;

/** `read` at most once per scrape: gauges fed by one query share its answer. */
function perScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let current: Promise<T> | null = null;
  return () => {
    if (!current) {
      current = read();
      // A scrape starts every gauge's collect at once, before the read settles; the next reads afresh.
      const clear = () => {
        current = null;
      };
      current.then(clear, clear);
    }
    return current;
  };
}

/** Adds the queue, outbox and consumer-lag gauges, read from `sql` and `bus` when scraped. */
export function addPlatformReadings(metrics: Metrics, deps: { sql: Sql; bus: Bus }): void {
  const jobs = perScrape(() => deps.sql.query<JobsRow>(JOBS));
  const outbox = perScrape(() => deps.sql.query<OutboxRow>(OUTBOX).then((rows) => rows[0]));
  const lag = perScrape(async () => (deps.bus.consumerLag ? deps.bus.consumerLag() : []));

  metrics.addReading(
    {
      name: 'r3_jobs',
      help: 'Jobs in the queue (read at scrape), by kind and state (ready, scheduled, running, dead).',
      labelNames: ['kind', 'state'],
    },
    async (gauge) => {
      for (const row of await jobs()) {
        for (const state of ['ready', 'scheduled', 'running', 'dead'] as const) {
          gauge.set({ kind: row.kind, state }, row[state]);
        }
      }
    },
  );
  metrics.addReading(
    {
      name: 'r3_jobs_oldest_ready_age_seconds',
      help: 'How long the oldest ready job has been due without a worker taking it (read at scrape), by kind.',
      labelNames: ['kind'],
    },
    async (gauge) => {
      for (const row of await jobs()) gauge.set({ kind: row.kind }, Math.max(0, row.oldest_ready_s ?? 0));
    },
  );
  metrics.addReading(
    { name: 'r3_outbox_pending', help: 'Outbox rows not yet published to the bus (read at scrape).' },
    async (gauge) => gauge.set((await outbox())?.rows ?? 0),
  );
  metrics.addReading(
    {
      name: 'r3_outbox_lag_seconds',
      help: 'Age of the oldest outbox row not yet published (0 when none; read at scrape).',
    },
    async (gauge) => gauge.set(Math.max(0, (await outbox())?.oldest_s ?? 0)),
  );
  metrics.addReading(
    {
      name: 'r3_bus_consumer_pending',
      help: 'Messages a durable NATS consumer of this process has yet to be delivered (read at scrape), by consumer.',
      labelNames: ['consumer'],
    },
    async (gauge) => {
      for (const c of await lag()) gauge.set({ consumer: c.consumer }, c.pending);
    },
  );
  metrics.addReading(
    {
      name: 'r3_bus_consumer_ack_pending',
      help: 'Messages delivered to a durable NATS consumer and not yet acknowledged (read at scrape), by consumer.',
      labelNames: ['consumer'],
    },
    async (gauge) => {
      for (const c of await lag()) gauge.set({ consumer: c.consumer }, c.ackPending);
    },
  );
}
