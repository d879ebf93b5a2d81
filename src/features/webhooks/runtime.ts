/**
 * Wiring of webhooks for the composition root: the two actor kinds (registered on the host), the
 * `deliver` job, the dispatcher (a durable bus consumer) and the service the API uses.
 * `start()` attaches the dispatcher to the bus; `stop()` detaches it.
 */
import type { ActorHost } from '../../platform/actors/host.js';
import type { Bus } from '../../platform/bus/bus.js';
import type { Config } from '../../platform/config.js';
import type { Database } from '../../platform/db/database.js';
import type { JobQueue } from '../../platform/jobs/queue.js';
import type { Logger } from '../../platform/log.js';
import type { Resolver } from '../../platform/net/ssrf.js';
import { loadMasterSecret } from '../../platform/secrets/master-key.js';
import { createSecretStore } from '../../platform/secrets/secret-store.js';
import type { Clock } from '../../platform/util/clock.js';
import { createDeliveryAgentPool } from './deliver-http.js';
import { createDeliverJob, DELIVER_JOB } from './deliver-job.js';
import { createWebhookDispatcher, type WebhookDispatcher } from './dispatcher.js';
import { createEndpointSlots } from './endpoint-slots.js';
import { webhookDeliveryKind, webhookEndpointKind } from './webhook-kinds.js';
import { WebhookService } from './webhook-service.js';

/** Webhooks of one process. */
export interface WebhookRuntime {
  service: WebhookService;
  dispatcher: WebhookDispatcher;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface WebhookRuntimeDeps {
  config: Config;
  db: Database;
  bus: Bus;
  host: ActorHost;
  jobs: JobQueue;
  clock: Clock;
  log: Logger;
  /** DNS for the SSRF guard (tests). */
  resolver?: Resolver;
}

/** Registers the webhook kinds and the `deliver` job, and builds the service and dispatcher. */
export async function createWebhookRuntime(deps: WebhookRuntimeDeps): Promise<WebhookRuntime> {
  const { config, db, bus, host, jobs, clock, log } = deps;
  const settings = config.webhooks;
  host.register(webhookEndpointKind(log));
  host.register(webhookDeliveryKind(host, db.sql));
  const secrets = createSecretStore(await loadMasterSecret(config.secretKey, config.dataDir));
  const agents = createDeliveryAgentPool({ maxSocketsPerOrigin: settings.concurrencyPerEndpoint });
  const deliver = createDeliverJob({
    db: db.sql,
    host,
    jobs,
    clock,
    log,
    secrets,
    slots: createEndpointSlots(settings.concurrencyPerEndpoint),
    agents,
    timeoutMs: settings.timeoutMs,
    allowPrivate: settings.allowPrivate,
    ...(deps.resolver ? { resolver: deps.resolver } : {}),
  });
  jobs.register(DELIVER_JOB, deliver.handler, deliver.options);
  const dispatcher = createWebhookDispatcher({
    db: db.sql,
    bus,
    host,
    log,
    maxAttempts: settings.maxAttempts,
    backoffMs: settings.backoffMs,
  });
  const service = new WebhookService({
    db: db.sql,
    host,
    clock,
    secrets,
    allowPrivate: settings.allowPrivate,
    oldSecretWindowMs: settings.oldSecretWindowMs,
    maxAttempts: settings.maxAttempts,
    backoffMs: settings.backoffMs,
    ...(deps.resolver ? { resolver: deps.resolver } : {}),
  });
  return {
    service,
    dispatcher,
    start: () => dispatcher.start(),
    // Pooled keep-alive sockets are left to their idle timeout (Node unrefs idle ones): destroying
    // them here would cut attempts still running in workers that stop later.
    stop: () => dispatcher.stop(),
  };
}
