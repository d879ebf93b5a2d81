/**
 * The services a running r3 process shares: what route modules, workers and the CLI receive.
 * Built once by src/main.ts (the composition root).
 */

import type { ReviewService } from './features/reviews/service.js';
import type { RunService } from './features/runs/service.js';
import type { RunStreamService } from './features/runs/sse/stream-service.js';
import type { TokenService } from './features/tokens/service.js';
import type { WebhookDispatcher } from './features/webhooks/dispatcher.js';
import type { WebhookService } from './features/webhooks/webhook-service.js';
import type { ActorHost } from './platform/actors/host.js';
import type { TimerScheduler } from './platform/actors/timers.js';
import type { Bus } from './platform/bus/bus.js';
import type { Config } from './platform/config.js';
import type { Database } from './platform/db/database.js';
import type { JobQueue } from './platform/jobs/queue.js';
import type { Logger } from './platform/log.js';
import type { ModelProviderRegistry } from './platform/models/providers/index.js';
import type { OutboxRelay } from './platform/outbox/relay.js';
import type { Clock } from './platform/util/clock.js';
import type { ResourceServices } from './resource-services.js';

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
