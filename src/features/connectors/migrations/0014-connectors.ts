import { Migration } from '@mikro-orm/migrations';

/**
 * Sources that connect (the connectors feature):
 *
 * - `source_connections`: per source, its sealed credentials (never in workspace files), and what the
 *   last check or sync found (`state`, `error`); `synced_through`: the start of the last completed
 *   sync, from which the next one reads incrementally.
 * - `source_syncs`: each sync's status, counts and resumable position (`record_index`, `cursor`); at
 *   most one running per source. The work itself is a job (kind `source-sync`).
 */
export class Migration0014Connectors extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table source_connections (
        org_id bigint not null references orgs (id) on delete cascade,
        source_slug text not null,
        credentials text,
        credentials_updated_at timestamptz,
        state text not null default 'disconnected' check (state in ('connected', 'disconnected', 'error')),
        error text,
        checked_at timestamptz,
        synced_through timestamptz,
        primary key (org_id, source_slug)
      );

      create table source_syncs (
        id bigserial primary key,
        org_id bigint not null references orgs (id) on delete cascade,
        source_slug text not null,
        status text not null check (status in ('running', 'completed', 'failed')),
        trigger text not null,
        since timestamptz,
        record_index integer not null default 0,
        cursor text,
        created integer not null default 0,
        updated integer not null default 0,
        skipped integer not null default 0,
        error text,
        requested_by text not null,
        api_token_id text,
        created_at timestamptz not null,
        started_at timestamptz,
        completed_at timestamptz
      );
      create index source_syncs_org on source_syncs (org_id, source_slug, id);
      create unique index source_syncs_one_running on source_syncs (org_id, source_slug) where status = 'running';
    `);
  }
}
