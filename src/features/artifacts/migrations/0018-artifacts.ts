import { Migration } from '@mikro-orm/migrations';

/**
 * Artifacts (docs/api.md#artifacts): files a tool made (`create_artifact`, `generate_image`), kept per org in
 * PostgreSQL with their bytes, SHA-256, media type and size, the run (or mission run) that made them
 * and who made them (`token:<id>`, `mcp`, or the run's creator).
 *
 * `idempotency_key` makes a tool call's retry answer the artifact the first attempt made (a run's
 * key is derived from run id + call id); unique per org. `mission_run_id` has no foreign key yet:
 * missions arrive later, and their migration adds it.
 */
export class Migration0018Artifacts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table artifacts (
        id bigserial primary key,
        org_id bigint not null references orgs (id) on delete cascade,
        name text not null check (length(name) between 1 and 255),
        media_type text not null check (length(media_type) between 3 and 255),
        bytes integer not null check (bytes >= 0),
        sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
        content bytea not null,
        run_id bigint references runs (id) on delete cascade,
        mission_run_id bigint,
        idempotency_key text,
        created_by text not null,
        api_token_id text,
        created_at timestamptz not null
      );
      create index artifacts_org on artifacts (org_id, id);
      create index artifacts_run on artifacts (org_id, run_id, id) where run_id is not null;
      create index artifacts_mission_run on artifacts (org_id, mission_run_id, id)
        where mission_run_id is not null;
      create unique index artifacts_idempotency on artifacts (org_id, idempotency_key)
        where idempotency_key is not null;
    `);
  }
}
