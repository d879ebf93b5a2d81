/**
 * The services a running r3 process shares: what route modules, workers and the CLI receive.
 * Built once by src/main.ts (the composition root).
 */
import type { ActorHost } from './actors/host.js';
import type { TimerScheduler } from './actors/timers.js';
import type { TokenService } from './auth/token-service.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { Bus } from './events/bus.js';
import type { OutboxRelay } from './events/outbox-relay.js';
import type { ModelProviderRegistry } from './execution/providers/index.js';
import type { JobQueue } from './jobs/queue.js';
import type { Logger } from './log.js';
import type { ResourceServices } from './resource-services.js';
import type { ReviewService } from './reviews/service.js';
import type { RunService } from './runs/service.js';
import type { RunStreamService } from './sse/stream-service.js';
import type { Clock } from './util/clock.js';
import type { WebhookDispatcher } from './webhooks/dispatcher.js';
import type { WebhookService } from './webhooks/webhook-service.js';

export interface Services extends ResourceServices {
  config: Config;
  log: Logger;
  clock: Clock;
  db: Database;
  bus: Bus;
  tokens: TokenService;
  /** The actor host: every persisted actor's transitions (`transact`, `create`, `send`). */
  actors: ActorHost;
  /** The job queue and this process's workers. */
  jobs: JobQueue;
  /** Durable timers (`runDue()` fires what is due). */
  timers: TimerScheduler;
  /** Publishes outbox rows to the bus. */
  outbox: OutboxRelay;
  /** Skill and workflow runs. */
  runs: RunService;
  /** The unified review queue: list, decide, assign, snooze. */
  reviews: ReviewService;
  /** The model providers prompt skills run on. */
  models: ModelProviderRegistry;
  /** Webhooks: registration, deliveries, replay, secret rotation. */
  webhooks: WebhookService;
  /** The webhook dispatcher (domain events on the bus → deliveries). */
  webhookDispatcher: WebhookDispatcher;
  /** Per-run server-sent-event streams of this process. */
  streams: RunStreamService;
}
