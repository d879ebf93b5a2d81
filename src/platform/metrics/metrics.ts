/**
 * The process's Prometheus metrics (prom-client), served at `GET /metrics` (metrics-route.ts).
 * Every metric r3 exports is declared here, in one place: docs/operations.md lists them, and a test
 * checks the two agree.
 *
 * Each process has its own registry (tests start several apps in one process). Counters and
 * histograms count what this process did; the gauges marked "read at scrape" are read when
 * Prometheus scrapes (from the database or NATS), so they describe the whole deployment and every
 * node reports the same value (aggregate them with `max`, not `sum`).
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { RequestTally } from './request-tally.js';

/** A reading taken at scrape time that takes longer is left out (Prometheus waits 10 s by default). */
const READING_TIMEOUT_MS = 2_000;

/** Latency buckets, in seconds, for HTTP requests and outgoing calls. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The metrics of one process. */
export interface Metrics {
  /** The registry of r3's own metrics (the process metrics are in a shared one; `render` gives both). */
  readonly registry: Registry;
  /** HTTP requests by method, route pattern and status, with their latency (request-tally.ts). */
  readonly http: RequestTally;
  readonly runs: Counter<'kind' | 'status'>;
  readonly busPublished: Counter<'result'>;
  readonly busPublishDuration: Histogram;
  readonly webhookAttempts: Counter<'result'>;
  readonly webhookAttemptDuration: Histogram<'result'>;
  readonly webhookDeliveries: Counter<'result'>;
  readonly toolCalls: Counter<'tool' | 'result'>;
  readonly toolCallDuration: Histogram<'tool'>;
  readonly dbCommitDuration: Histogram;
  /**
   * Registers a gauge read at scrape time by `collect` (it sets the gauge's values). A collect that
   * fails or takes over 2 s leaves the gauge without samples for that scrape (NaN when it has no
   * labels) and counts `r3_metrics_collect_errors_total`.
   */
  addReading<L extends string>(
    options: { name: string; help: string; labelNames?: readonly L[] },
    collect: (gauge: Gauge<L>) => Promise<void> | void,
  ): void;
  /** The exposition text (Prometheus text format 0.0.4). */
  render(): Promise<string>;
  readonly contentType: string;
}

/**
 * The Node process metrics (CPU, memory, event-loop lag, GC): one registry per process, whatever the
 * number of apps in it (their collectors, an event-loop monitor and a GC observer, are never stopped).
 */
let processRegistry: Registry | null = null;

function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** Creates the registry and its metrics; `defaults` adds the Node process metrics (default true). */
export function createMetrics(options: { defaults?: boolean } = {}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const shared = options.defaults === false ? null : processMetrics();
  /** The readings of the scrape under way (the error count waits for them, so it is current). */
  const readings = new Set<Promise<unknown>>();
  const collectErrors = new Counter({
    name: 'r3_metrics_collect_errors_total',
    help: 'Readings taken at scrape time that failed or timed out (database or NATS did not answer), by metric.',
    labelNames: ['metric'],
    registers,
    async collect() {
      // A scrape starts every metric's collect in one go: once this yields, its readings have begun.
      await null;
      await Promise.allSettled([...readings]);
    },
  });

  const http = new RequestTally(LATENCY_BUCKETS);
  http.register(
    registry,
    {
      name: 'r3_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status.',
    },
    {
      name: 'r3_http_request_duration_seconds',
      help: 'Time from a request read to its answer written (to the stream opened, for streams).',
    },
  );

  return {
    registry,
    http,
    runs: new Counter({
      name: 'r3_runs_total',
      help: 'Runs that reached a status in this process (committed transitions), by kind and status.',
      labelNames: ['kind', 'status'],
      registers,
    }),
    busPublished: new Counter({
      name: 'r3_bus_published_total',
      help: 'Events the outbox relay published to the bus, by result (stored, duplicate, error).',
      labelNames: ['result'],
      registers,
    }),
    busPublishDuration: new Histogram({
      name: 'r3_bus_publish_duration_seconds',
      help: 'Time from publish to the stream acknowledging the event.',
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    webhookAttempts: new Counter({
      name: 'r3_webhook_attempts_total',
      help: 'Webhook delivery attempts, by result (success, http_4xx, http_5xx, timeout, network, refused, lost).',
      labelNames: ['result'],
      registers,
    }),
    webhookAttemptDuration: new Histogram({
      name: 'r3_webhook_attempt_duration_seconds',
      help: 'Duration of webhook POSTs, by result.',
      labelNames: ['result'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'r3_webhook_deliveries_total',
      help: 'Webhook deliveries that ended, by result: delivered, or failed (out of attempts).',
      labelNames: ['result'],
      registers,
    }),
    toolCalls: new Counter({
      name: 'r3_mcp_tool_calls_total',
      help: 'MCP tools/call, by tool and result (ok, or the error code).',
      labelNames: ['tool', 'result'],
      registers,
    }),
    toolCallDuration: new Histogram({
      name: 'r3_mcp_tool_call_duration_seconds',
      help: 'Duration of MCP tool calls, by tool.',
      labelNames: ['tool'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    dbCommitDuration: new Histogram({
      name: 'r3_db_commit_duration_seconds',
      help: "Time from a transaction's COMMIT sent to PostgreSQL's answer (with synchronous_commit on, a writing transaction's WAL flushed to disk).",
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    addReading<L extends string>(
      options: { name: string; help: string; labelNames?: readonly L[] },
      collect: (gauge: Gauge<L>) => Promise<void> | void,
    ) {
      const { name } = options;
      new Gauge<L>({
        name: options.name,
        help: options.help,
        labelNames: options.labelNames ?? [],
        registers,
        async collect(this: Gauge<L>) {
          this.reset();
          let timer: NodeJS.Timeout | undefined;
          const late = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error('reading timed out')), READING_TIMEOUT_MS);
          });
          try {
            const reading = Promise.race([collect(this), late]);
            readings.add(reading);
            void reading.then(
              () => readings.delete(reading),
              () => readings.delete(reading),
            );
            await reading;
          } catch {
            this.reset();
            // A gauge without labels always has a sample: NaN says "unknown" where 0 would mislead.
            if (!options.labelNames?.length) (this as unknown as Gauge).set(Number.NaN);
            collectErrors.inc({ metric: name });
          } finally {
            clearTimeout(timer);
          }
        },
      });
    },
    async render() {
      const own = await registry.metrics();
      return shared ? `${await shared.metrics()}\n${own}` : own;
    },
    contentType: registry.contentType,
  };
}
