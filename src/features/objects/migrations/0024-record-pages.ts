import { Migration } from '@mikro-orm/migrations';

/**
 * The domain tools' reads over synced records (objects' record-queries.ts): the instances of one
 * (org, type, source) in id order with their external id and metadata in the index itself, so a page
 * in id order, a total and facets over a filter are index-only scans that never visit the wide heap
 * rows (title, content, search vector, embedding). The GIN index on metadata still serves filters
 * that match few records; the planner picks.
 */
export class Migration0024RecordPages extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create index object_instances_records
        on object_instances (org_id, type_slug, source_slug, id) include (external_id, metadata)
        where external_id is not null and status = 'active';
    `);
  }
}
