import { Migration } from '@mikro-orm/migrations';

/**
 * Instances from connected sources:
 *
 * - `external_id`: the upstream id of an instance a connector synced; one instance per (source,
 *   object type, external id), so a sync upserts and never duplicates. `synced_at`: when a sync or a
 *   live read last saw it upstream (the cache age of the domain tools).
 * - a GIN index on metadata within a type, for filters and facets over synced records (`metadata @> …`).
 */
export class Migration0015ExternalIds extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table object_instances add column external_id text, add column synced_at timestamptz;
      create unique index object_instances_external
        on object_instances (org_id, source_slug, type_slug, external_id) where external_id is not null;
      create index object_instances_metadata
        on object_instances using gin (org_id, type_slug, metadata jsonb_path_ops);
    `);
  }
}
