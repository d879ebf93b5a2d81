/**
 * Webhooks as the API uses them: register (SSRF-checked, secret sealed), list, read, update
 * (re-enable/disable through the endpoint actor), delete, list deliveries, replay a delivery and
 * rotate the signing secret. Every read and write has the caller's org in its WHERE clause; another
 * org's webhook is not found.
 */
import { actingAs } from '../../platform/actors/acting-as.js';
import type { ActorHost } from '../../platform/actors/host.js';
import { recordAuditSql } from '../../platform/audit/audit.js';
import type { Principal } from '../../platform/auth/principal.js';
import type { Db, Sql } from '../../platform/db/sql.js';
import { conflict, notFound, validationFailed } from '../../platform/errors.js';
import { checkTarget, type Resolver } from '../../platform/net/ssrf.js';
import type { SecretStore } from '../../platform/secrets/secret-store.js';
import type { Clock } from '../../platform/util/clock.js';
import { buildDeliveryBody, type DeliveryBody, newDeliveryId, type WebhookFilter } from './payload.js';
import { generateWebhookSecret } from './signature.js';
import {
  type AttemptRowRead,
  type AttemptView,
  attemptView,
  DELIVERY_COLUMNS,
  type DeliveryRow,
  type DeliveryView,
  deliveryView,
  WEBHOOK_COLUMNS,
  type WebhookRow,
  type WebhookView,
  webhookView,
} from './views.js';
import { WEBHOOK_DELIVERY_KIND, WEBHOOK_ENDPOINT_KIND } from './webhook-kinds.js';
import type { CreateWebhookBody, UpdateWebhookBody } from './webhook-schemas.js';

export interface WebhookServiceDeps {
  db: Db;
  host: ActorHost;
  clock: Clock;
  secrets: SecretStore;
  allowPrivate: boolean;
  oldSecretWindowMs: number;
  maxAttempts: number;
  backoffMs: readonly number[];
  resolver?: Resolver;
}

/** A page of a list. */
export interface Page<T> {
  items: T[];
  /** The id to continue after, or null on the last page. */
  nextAfter: number | null;
}

/** Where a page of deliveries continues: after this (createdAt, id). */
export interface DeliveryCursor {
  createdAt: Date;
  id: number;
}

/** A delivery with its attempts (extension). */
export interface DeliveryDetail extends DeliveryView {
  lastError: string | null;
  attemptLog: AttemptView[];
  /** Its `webhook-delivery` actor's id (`GET /actors/webhook-delivery/:id/transitions`, the inspector). */
  actorId: number;
}

function normalizedFilter(filter: WebhookFilter | null | undefined): {
  skillSlug: string | null;
  workflowSlug: string | null;
} {
  return { skillSlug: filter?.skillSlug ?? null, workflowSlug: filter?.workflowSlug ?? null };
}

export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  /** Registers a webhook: 400 when the URL is refused by the SSRF guard. */
  async create(
    principal: Principal,
    body: CreateWebhookBody,
    requestId: string | null,
  ): Promise<WebhookView> {
    const { host, secrets } = this.deps;
    await this.checkUrl(body.url);
    const orgId = principal.orgId;
    const created = await host.transact(
      (tx) =>
        host.create(tx, WEBHOOK_ENDPOINT_KIND, {
          orgId,
          input: (id, at) => ({ webhookId: id, active: true, at }),
          columns: {
            url: body.url,
            events: body.events,
            filter: normalizedFilter(body.filter),
            secret_sealed: secrets.seal(orgId, body.secret),
            old_secret_sealed: null,
            old_secret_expires_at: null,
            created_by: principal.actor,
            api_token_id: principal.tokenId,
          },
          actingAs: actingAs(principal),
          audit: {
            action: 'webhook.create',
            targetKind: 'webhook',
            details: { url: body.url, events: body.events },
            requestId,
          },
        }),
      { single: true },
    );
    return this.get(principal, created.actor.row.id);
  }

  /** The org's webhooks, oldest first. */
  async list(
    principal: Principal,
    page: { limit: number; afterId?: number | undefined },
  ): Promise<Page<WebhookView>> {
    const rows = await this.deps.db.query<WebhookRow>(
      `select ${WEBHOOK_COLUMNS} from webhooks
        where org_id = $1 and ($2::bigint is null or id > $2)
        order by id limit $3`,
      [principal.orgId, page.afterId ?? null, page.limit + 1],
    );
    const more = rows.length > page.limit;
    const items = (more ? rows.slice(0, page.limit) : rows).map(webhookView);
    return { items, nextAfter: more ? (items.at(-1)?.id ?? null) : null };
  }

  /** One webhook; 404 for an unknown or foreign id. */
  async get(principal: Principal, id: number, sql: Sql = this.deps.db): Promise<WebhookView> {
    const row = await sql.maybeOne<WebhookRow>(
      `select ${WEBHOOK_COLUMNS} from webhooks where id = $1 and org_id = $2`,
      [id, principal.orgId],
    );
    if (!row) throw notFound('webhook', id);
    return webhookView(row);
  }

  /**
   * Updates url, events or filter in place; `active: true` re-enables a disabled webhook (its
   * failure count starts again), `active: false` disables it. Answers the webhook.
   */
  async update(
    principal: Principal,
    id: number,
    patch: UpdateWebhookBody,
    requestId: string | null,
  ): Promise<WebhookView> {
    const { host, clock } = this.deps;
    if (patch.url !== undefined) await this.checkUrl(patch.url);
    return host.transact(async (tx) => {
      const at = new Date(clock.now());
      const rows = await tx.sql.query<{ id: number }>(
        `update webhooks
            set url = coalesce($3, url),
                events = coalesce($4::text[], events),
                filter = case when $5::boolean then $6::json else filter end,
                updated_at = $7
          where id = $1 and org_id = $2
          returning id`,
        [
          id,
          principal.orgId,
          patch.url ?? null,
          patch.events ?? null,
          patch.filter !== undefined,
          JSON.stringify(normalizedFilter(patch.filter)),
          at,
        ],
      );
      if (rows.length === 0) throw notFound('webhook', id);
      if (patch.active !== undefined) {
        // Already in the asked state: the endpoint refuses the event and nothing changes.
        await host.send(
          tx,
          WEBHOOK_ENDPOINT_KIND,
          { orgId: principal.orgId, id },
          { type: patch.active ? 'ENABLE' : 'DISABLE', at: at.toISOString() },
          { actingAs: actingAs(principal) },
        );
      }
      await recordAuditSql(tx.sql, {
        orgId: principal.orgId,
        apiTokenId: principal.tokenId,
        actor: principal.actor,
        action: 'webhook.update',
        targetKind: 'webhook',
        targetId: String(id),
        details: { fields: Object.keys(patch) },
        requestId,
        at,
      });
      return this.get(principal, id, tx.sql);
    });
  }

  /** Deletes a webhook with its deliveries (their pending retries are dropped). */
  async delete(
    principal: Principal,
    id: number,
    requestId: string | null,
  ): Promise<{ id: number; deleted: true }> {
    const at = new Date(this.deps.clock.now());
    const found = await this.deps.db.tx(async (sql) => {
      await sql.query(
        `delete from timers
          where actor_kind = $3 and org_id = $2
            and actor_id in (select id from webhook_deliveries where webhook_id = $1 and org_id = $2)`,
        [id, principal.orgId, WEBHOOK_DELIVERY_KIND],
      );
      const rows = await sql.query('delete from webhooks where id = $1 and org_id = $2 returning id', [
        id,
        principal.orgId,
      ]);
      if (rows.length === 0) return false;
      await recordAuditSql(sql, {
        orgId: principal.orgId,
        apiTokenId: principal.tokenId,
        actor: principal.actor,
        action: 'webhook.delete',
        targetKind: 'webhook',
        targetId: String(id),
        requestId,
        at,
      });
      return true;
    });
    if (!found) throw notFound('webhook', id);
    return { id, deleted: true };
  }

  /** The webhook's deliveries, newest first (creation time, then id: ids are only roughly ordered across processes). */
  async deliveries(
    principal: Principal,
    id: number,
    page: { limit: number; before?: DeliveryCursor | undefined; status?: DeliveryView['status'] | undefined },
  ): Promise<{ items: DeliveryView[]; next: DeliveryCursor | null }> {
    await this.get(principal, id);
    const rows = await this.deps.db.query<DeliveryRow>(
      `select ${DELIVERY_COLUMNS} from webhook_deliveries
        where org_id = $1 and webhook_id = $2
          and ($3::timestamptz is null or (created_at, id) < ($3, $4))
          and ($5::text is null or api_status = $5)
        order by created_at desc, id desc limit $6`,
      [
        principal.orgId,
        id,
        page.before?.createdAt ?? null,
        page.before?.id ?? null,
        page.status ?? null,
        page.limit + 1,
      ],
    );
    const more = rows.length > page.limit;
    const kept = more ? rows.slice(0, page.limit) : rows;
    const last = kept.at(-1);
    return {
      items: kept.map(deliveryView),
      next: more && last ? { createdAt: last.created_at, id: last.id } : null,
    };
  }

  /** One delivery with its attempts (extension). */
  async delivery(principal: Principal, id: number, deliveryId: string): Promise<DeliveryDetail> {
    const row = await this.findDelivery(principal, id, deliveryId);
    const attempts = await this.deps.db.query<AttemptRowRead>(
      `select attempt, url, response_status, error, duration_ms, body_excerpt, at
         from webhook_attempts where delivery_pk = $1 and org_id = $2 order by attempt`,
      [row.id, principal.orgId],
    );
    return {
      ...deliveryView(row),
      lastError: row.last_error,
      attemptLog: attempts.map(attemptView),
      actorId: row.id,
    };
  }

  /**
   * Redelivers a past delivery's event as a new delivery (new deliveryId, `replayOf` set), sent with
   * the webhook's current URL and secret. 409 while the webhook is disabled.
   */
  async replay(
    principal: Principal,
    id: number,
    deliveryId: string,
    requestId: string | null,
  ): Promise<{ deliveryId: string }> {
    const { host, db } = this.deps;
    const original = await this.findDelivery(principal, id, deliveryId);
    const webhook = await this.get(principal, id);
    if (!webhook.active) {
      throw conflict(`Webhook ${id} is disabled; re-enable it (PATCH {"active": true}) before replaying.`, {
        webhookId: id,
        active: false,
      });
    }
    const source = await db.one<{ body: string; event_id: string }>(
      'select body, event_id from webhook_deliveries where id = $1 and org_id = $2',
      [original.id, principal.orgId],
    );
    const past = JSON.parse(source.body) as DeliveryBody;
    const replayId = newDeliveryId();
    const { json } = buildDeliveryBody({
      event: past.event,
      data: past.data,
      createdAt: past.createdAt,
      deliveryId: replayId,
    } as Parameters<typeof buildDeliveryBody>[0]);
    await host.transact(
      (tx) =>
        host.create(tx, WEBHOOK_DELIVERY_KIND, {
          orgId: principal.orgId,
          input: (_pk, at) => ({
            deliveryId: replayId,
            webhookId: id,
            event: past.event,
            maxAttempts: this.deps.maxAttempts,
            backoffMs: [...this.deps.backoffMs],
            at,
          }),
          columns: {
            webhook_id: id,
            delivery_id: replayId,
            event_id: source.event_id,
            event_type: past.event,
            replay_of: original.delivery_id,
            body: json,
          },
          actingAs: actingAs(principal),
          audit: {
            action: 'webhook.replay',
            targetKind: 'webhook',
            targetId: String(id),
            details: { deliveryId: replayId, replayOf: original.delivery_id },
            requestId,
          },
        }),
      { single: true },
    );
    return { deliveryId: replayId };
  }

  /**
   * Replaces the signing secret with a new server-generated one (returned once). The previous
   * secret keeps signing, as a second `v1`, for the old-secret window.
   */
  async rotateSecret(
    principal: Principal,
    id: number,
    requestId: string | null,
  ): Promise<{ secret: string }> {
    const { db, clock, secrets } = this.deps;
    const secret = generateWebhookSecret();
    const now = clock.now();
    const found = await db.tx(async (sql) => {
      const rows = await sql.query(
        `update webhooks
            set old_secret_sealed = secret_sealed, old_secret_expires_at = $4, secret_sealed = $3, updated_at = $5
          where id = $1 and org_id = $2
          returning id`,
        [
          id,
          principal.orgId,
          secrets.seal(principal.orgId, secret),
          new Date(now + this.deps.oldSecretWindowMs),
          new Date(now),
        ],
      );
      if (rows.length === 0) return false;
      await recordAuditSql(sql, {
        orgId: principal.orgId,
        apiTokenId: principal.tokenId,
        actor: principal.actor,
        action: 'webhook.rotate_secret',
        targetKind: 'webhook',
        targetId: String(id),
        details: { oldSecretValidUntil: new Date(now + this.deps.oldSecretWindowMs).toISOString() },
        requestId,
        at: new Date(now),
      });
      return true;
    });
    if (!found) throw notFound('webhook', id);
    return { secret };
  }

  private async findDelivery(principal: Principal, id: number, deliveryId: string): Promise<DeliveryRow> {
    const row = await this.deps.db.maybeOne<DeliveryRow>(
      `select ${DELIVERY_COLUMNS} from webhook_deliveries where org_id = $1 and webhook_id = $2 and delivery_id = $3`,
      [principal.orgId, id, deliveryId],
    );
    if (!row) {
      await this.get(principal, id);
      throw notFound('delivery', deliveryId);
    }
    return row;
  }

  /** 400 naming `body.url` when the SSRF guard refuses the target. */
  private async checkUrl(url: string): Promise<void> {
    const checked = await checkTarget(url, {
      allowPrivate: this.deps.allowPrivate,
      ...(this.deps.resolver ? { resolver: this.deps.resolver } : {}),
    });
    if (checked.ok) return;
    const range = checked.range ? ` (${checked.range})` : '';
    throw validationFailed([
      {
        field: 'body.url',
        message: `webhook target refused: ${checked.reason}${range}`,
        code: 'target_refused',
        reason: checked.reason,
      },
    ]);
  }
}
