/**
 * Webhooks: endpoints (`webhook-endpoint` actors) and deliveries (`webhook-delivery` actors), the
 * dispatcher (a durable bus consumer turning domain events into deliveries), the `deliver` job that
 * makes each attempt, and the webhooks routes.
 */
import { webhookDeliveryMachine, webhookEndpointMachine } from '../../../machines/index.js';
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import { createDeliveryAgentPool } from './deliver-http.js';
import { createDeliverJob, DELIVER_JOB } from './deliver-job.js';
import { createWebhookDispatcher, storedEventsOfWebhookOrgs, type WebhookDispatcher } from './dispatcher.js';
import { createEndpointSlots } from './endpoint-slots.js';
import { Migration0005Webhooks } from './migrations/0005-webhooks.js';
import { webhookRoutes } from './routes.js';
import { createLazySecretStore } from './secrets.js';
import { webhookDeliveryKind, webhookEndpointKind } from './webhook-kinds.js';
import { WebhookService } from './webhook-service.js';

export type { WebhookDispatcher } from './dispatcher.js';
export type { WebhookService } from './webhook-service.js';

/** What the webhooks feature offers. */
export interface WebhooksApi {
  /** Registration, deliveries, replay, secret rotation. */
  webhooks: WebhookService;
  /** Domain events on the bus → deliveries. */
  webhookDispatcher: WebhookDispatcher;
}

export const webhooksFeature = defineFeature({
  name: 'webhooks',
  migrations: [{ name: '0005-webhooks', class: Migration0005Webhooks }],
  machines: { 'webhook-delivery': webhookDeliveryMachine, 'webhook-endpoint': webhookEndpointMachine },
  register(platform: Platform): WebhooksApi {
    const { config, db, bus, actors: host, jobs, clock, log } = platform;
    const settings = config.webhooks;
    host.register(webhookEndpointKind(log));
    host.register(webhookDeliveryKind(host, db.sql));
    // Signing secrets open with the master secret, read when the process starts serving or working.
    const secrets = createLazySecretStore();
    // As secret-store.ts seals them (`r3 secrets rekey` reseals them under a new master secret).
    const sealedSecret = { table: 'webhooks', purpose: 'webhook-secrets', context: `'webhook:' || org_id` };
    platform.sealedColumns.add(
      { ...sealedSecret, column: 'secret_sealed' },
      { ...sealedSecret, column: 'old_secret_sealed' },
    );
    platform.addService({
      name: 'webhook secrets',
      roles: ['serve', 'worker'],
      prepare: async () => secrets.load(await platform.masterSecret()),
    });
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
      metrics: platform.metrics,
      tracing: platform.tracing,
    });
    jobs.register(DELIVER_JOB, deliver.handler, deliver.options);
    // The stream keeps the events the dispatcher can deliver, of orgs with an enabled webhook; the
    // others go to live subscribers only (src/platform/outbox/relay.ts).
    platform.outbox.storeFor(storedEventsOfWebhookOrgs);
    const dispatcher = createWebhookDispatcher({
      db: db.sql,
      bus,
      host,
      clock,
      log,
      maxAttempts: settings.maxAttempts,
      backoffMs: settings.backoffMs,
    });
    // Pooled keep-alive sockets are left to their idle timeout (Node unrefs idle ones): destroying
    // them at stop would cut attempts still running in workers that stop later.
    // With the jobs: its work per event is what a serving process should not pay (issue 37).
    platform.addService({
      name: 'webhook dispatcher',
      roles: ['serve', 'worker'],
      withJobs: true,
      start: () => dispatcher.start(),
      stop: () => dispatcher.stop(),
    });
    const webhooks = new WebhookService({
      db: db.sql,
      host,
      clock,
      secrets,
      allowPrivate: settings.allowPrivate,
      oldSecretWindowMs: settings.oldSecretWindowMs,
      maxAttempts: settings.maxAttempts,
      backoffMs: settings.backoffMs,
    });
    platform.routes.add(...webhookRoutes(webhooks));
    return { webhooks, webhookDispatcher: dispatcher };
  },
});
