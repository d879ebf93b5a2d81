/**
 * The two webhook actor kinds of the actor host: `webhook-endpoint` (rows of `webhooks`: a
 * registered webhook's health, enabled ↔ disabled) and `webhook-delivery` (rows of
 * `webhook_deliveries`: one event bound for one webhook, with its attempts and retries).
 *
 * A delivery's `notify` effect reports its outcome to its endpoint in the same transaction
 * (DELIVERY_SUCCEEDED / DELIVERY_FAILED). Its `attempts` extra write records each attempt's result
 * (`webhook_attempts`) with the transition that takes it.
 */
import {
  type NotifyParams,
  projectWebhookDelivery,
  projectWebhookEndpoint,
  webhookDeliveryContextSchema,
  webhookDeliveryEventSchema,
  webhookDeliveryMachine,
  webhookEndpointContextSchema,
  webhookEndpointEventSchema,
  webhookEndpointMachine,
} from '../../../machines/index.js';
import type { ActorHost } from '../../platform/actors/host.js';
import type { ActorKindDef, ColumnMap, EffectHandler } from '../../platform/actors/kind.js';
import type { Sql } from '../../platform/db/sql.js';
import type { Logger } from '../../platform/log.js';
import { createBatchLoader } from '../../platform/util/batch-loader.js';

/** Actor kind of registered webhooks. */
export const WEBHOOK_ENDPOINT_KIND = 'webhook-endpoint';
/** Actor kind of deliveries. */
export const WEBHOOK_DELIVERY_KIND = 'webhook-delivery';

/** One row of `webhook_attempts`, given with the ATTEMPT_SUCCEEDED/FAILED transition (`extraRows.attempts`). */
export type AttemptRow = {
  delivery_pk: number;
  attempt: number;
  org_id: number;
  url: string;
  response_status: number | null;
  error: string | null;
  duration_ms: number;
  body_excerpt: string;
  at: string;
};

const attemptWrite = (rows: string): string => `
  insert into webhook_attempts (delivery_pk, attempt, org_id, url, response_status, error, duration_ms,
                                body_excerpt, at)
  select x.delivery_pk, x.attempt, x.org_id, x.url, x.response_status, x.error, x.duration_ms, x.body_excerpt,
         x.at
    from json_to_recordset(${rows})
      as x(delivery_pk bigint, attempt integer, org_id bigint, url text, response_status integer, error text,
           duration_ms integer, body_excerpt text, at timestamptz)
    join a on a.id = x.delivery_pk
  on conflict (delivery_pk, attempt) do nothing`;

/** The columns of `webhooks` the endpoint kind owns. */
const ENDPOINT_COLUMNS = {
  url: 'create',
  events: 'create',
  filter: 'create',
  secret_sealed: 'create',
  old_secret_sealed: 'create',
  old_secret_expires_at: 'create',
  created_by: 'create',
  api_token_id: 'create',
  status: 'project',
  active: 'project',
  consecutive_failures: 'project',
  disabled_at: 'project',
  disabled_reason: 'project',
} as const satisfies ColumnMap;

/** The columns of `webhook_deliveries` the delivery kind owns. */
const DELIVERY_COLUMNS = {
  webhook_id: 'load',
  delivery_id: 'load',
  event_id: 'create',
  event_type: 'create',
  replay_of: 'create',
  body: 'create',
  status: 'project',
  api_status: 'project',
  attempts: 'project',
  last_attempt_at: 'project',
  next_attempt_at: 'project',
  response_status: 'project',
  last_error: 'project',
} as const satisfies ColumnMap;

/** The `webhook-endpoint` kind. */
export function webhookEndpointKind(
  log: Logger,
): ActorKindDef<typeof webhookEndpointMachine, typeof ENDPOINT_COLUMNS> {
  const notify: EffectHandler<NotifyParams, typeof webhookEndpointMachine> = (p, ctx) => {
    if (p.signal !== 'endpoint_disabled') return;
    log.warn({ webhookId: p.webhookId, orgId: ctx.row.orgId }, 'webhook disabled after consecutive failures');
    ctx.writes.audit.push({
      action: 'webhook.disabled',
      target_kind: 'webhook',
      target_id: String(p.webhookId),
      details: { reason: 'consecutive_failures', consecutiveFailures: ctx.projection.consecutive_failures },
      request_id: null,
    });
  };
  return {
    name: WEBHOOK_ENDPOINT_KIND,
    machine: webhookEndpointMachine,
    eventSchema: webhookEndpointEventSchema,
    table: 'webhooks',
    sequence: 'webhooks_id_seq',
    contextSchema: webhookEndpointContextSchema,
    columns: ENDPOINT_COLUMNS,
    project(snapshot) {
      const p = projectWebhookEndpoint(snapshot);
      return {
        status: p.status,
        active: p.active,
        consecutive_failures: p.consecutiveFailures,
        disabled_at: p.disabledAt,
        disabled_reason: p.disabledReason,
      };
    },
    runEvents: false,
    effects: { notify },
  };
}

/**
 * The `webhook-delivery` kind; its outcomes go to the endpoint through `host`. `db` answers the
 * endpoint's failure count (reads of one event-loop turn share a round trip: `createBatchLoader`).
 */
export function webhookDeliveryKind(
  host: ActorHost,
  db: Sql,
): ActorKindDef<typeof webhookDeliveryMachine, typeof DELIVERY_COLUMNS> {
  const failures = createBatchLoader<string, number | undefined>({
    batch: async (keys) => {
      const refs = keys.map((key) => key.split(':').map(Number) as [number, number]);
      const rows = await db.prepared<{ id: number; org_id: number; consecutive_failures: number }>(
        'webhook_endpoint_failures',
        `select w.id, w.org_id, w.consecutive_failures
           from webhooks w where w.id = any($1::bigint[]) and w.org_id = any($2::bigint[])`,
        [refs.map(([id]) => id), refs.map(([, org]) => org)],
      );
      const found = new Map(rows.map((r) => [`${r.id}:${r.org_id}`, r.consecutive_failures]));
      return keys.map((key) => found.get(key));
    },
  });
  const notify: EffectHandler<NotifyParams, typeof webhookDeliveryMachine> = async (p, ctx) => {
    if (p.signal === 'endpoint_disabled') return;
    const succeeded = p.signal === 'delivery_succeeded';
    if (succeeded) {
      // A healthy endpoint refuses a success (there is no count to reset), so the common case needs
      // neither the follow-up nor the real transaction a follow-up takes. The read races a failure
      // committing meanwhile exactly as the follow-up's own load would.
      const key = `${p.webhookId}:${ctx.row.orgId}`;
      const count = ctx.tx.single
        ? await failures.load(key)
        : (
            await ctx.tx.sql.query<{ consecutive_failures: number }>(
              'select consecutive_failures from webhooks where id = $1 and org_id = $2',
              [p.webhookId, ctx.row.orgId],
            )
          )[0]?.consecutive_failures;
      if ((count ?? 0) === 0) return;
    }
    const event = {
      type: succeeded ? ('DELIVERY_SUCCEEDED' as const) : ('DELIVERY_FAILED' as const),
      deliveryId: p.deliveryId,
      at: ctx.at,
    };
    ctx.writes.followUp(async (tx) => {
      await host.send(tx, WEBHOOK_ENDPOINT_KIND, { orgId: ctx.row.orgId, id: p.webhookId }, event, {
        actingAs: ctx.actingAs,
      });
    });
  };
  return {
    name: WEBHOOK_DELIVERY_KIND,
    machine: webhookDeliveryMachine,
    eventSchema: webhookDeliveryEventSchema,
    table: 'webhook_deliveries',
    sequence: 'webhook_deliveries_id_seq',
    contextSchema: webhookDeliveryContextSchema,
    columns: DELIVERY_COLUMNS,
    project(snapshot) {
      const p = projectWebhookDelivery(snapshot);
      return {
        status: p.status,
        api_status: p.apiStatus,
        attempts: p.attempts,
        last_attempt_at: p.lastAttemptAt,
        next_attempt_at: p.nextAttemptAt,
        response_status: p.responseStatus,
        last_error: p.lastError,
      };
    },
    runEvents: false,
    effects: { notify },
    extraWrites: { attempts: attemptWrite },
  };
}
