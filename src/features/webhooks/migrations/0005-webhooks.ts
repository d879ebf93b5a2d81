import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks: registered endpoints (`webhook-endpoint` actors), deliveries (`webhook-delivery`
 * actors, one event bound for one webhook) and the attempts of each delivery (one HTTP POST each).
 *
 * Actor rows are written by the actor host with `json_populate_recordset`, so every NOT NULL column
 * is given by the creator or by the snapshot's projection (column defaults do not apply there).
 */
export class Migration0005Webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table webhooks (
        id bigserial primary key,
        org_id bigint not null references orgs (id) on delete cascade,
        -- What the API edits in place (not the actor's state): target, subscription, secrets.
        url text not null,
        events text[] not null,
        filter json not null,
        -- AES-256-GCM under the deployment's key (secret-box.ts); never returned by the API.
        secret_sealed text not null,
        -- After rotate-secret: the previous secret, still signing until old_secret_expires_at.
        old_secret_sealed text,
        old_secret_expires_at timestamptz,
        created_by text not null,
        api_token_id text,
        -- Projections of the endpoint's snapshot.
        status text not null,
        active boolean not null,
        consecutive_failures integer not null,
        disabled_at timestamptz,
        disabled_reason text,
        snapshot json not null,
        version integer not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index webhooks_org on webhooks (org_id, id);

      create table webhook_deliveries (
        id bigserial primary key,
        org_id bigint not null references orgs (id) on delete cascade,
        webhook_id bigint not null references webhooks (id) on delete cascade,
        delivery_id text not null unique,
        event_id uuid not null,
        event_type text not null,
        -- The deliveryId this one redelivers (POST …/replay); null for the event's own delivery.
        replay_of text,
        -- The exact JSON text every attempt sends (and signs).
        body text not null,
        -- Projections of the delivery's snapshot.
        status text not null,
        api_status text not null,
        attempts integer not null,
        last_attempt_at timestamptz,
        next_attempt_at timestamptz,
        response_status integer,
        last_error text,
        snapshot json not null,
        version integer not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      -- At-least-once dispatch: an event redelivered by the bus creates no second delivery.
      create unique index webhook_deliveries_event on webhook_deliveries (webhook_id, event_id)
        where replay_of is null;
      create index webhook_deliveries_list on webhook_deliveries (org_id, webhook_id, created_at desc, id desc);

      -- One HTTP POST of a delivery: what came back and how long it took.
      create table webhook_attempts (
        delivery_pk bigint not null references webhook_deliveries (id) on delete cascade,
        attempt integer not null,
        org_id bigint not null,
        url text not null,
        response_status integer,
        error text,
        duration_ms integer not null,
        body_excerpt text not null,
        at timestamptz not null,
        primary key (delivery_pk, attempt)
      );
    `);
  }
}
