import { Migration } from '@mikro-orm/migrations';

/**
 * The domain tools' reads over synced records (objects' record-queries.ts) get a narrow projection of
 * their own: `object_records`, one row per active synced instance (external id set) with only its
 * scope (org, type, source), external id and metadata — about 300 bytes a row instead of the instance's
 * 1.3 kB (title, content, search vector, embedding). A filter with facets over 50,000 deals then reads
 * about 2,000 pages that stay in shared buffers instead of visiting one wide heap page per match.
 *
 * Triggers on `object_instances` keep it exact in the writing transaction, whoever writes: an insert
 * statement adds its synced active rows (one statement-level insert from the transition table), an
 * update that changes the metadata, status, external id or scope rewrites or removes the row (row
 * level, only when one of those changed: a sync's `synced_at`-only update of unchanged records does
 * not touch it), a delete statement (also an org's cascade) removes its rows.
 *
 * The metadata GIN index and the covering index of 0024 on `object_instances` served only these reads;
 * they move to the projection (every instance insert maintained them).
 */
export class Migration0025RecordProjection extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table object_records (
        id bigint primary key,
        org_id bigint not null,
        type_slug text not null,
        source_slug text not null,
        external_id text not null,
        metadata jsonb not null
      );

      insert into object_records (id, org_id, type_slug, source_slug, external_id, metadata)
      select id, org_id, type_slug, source_slug, external_id, metadata from object_instances
       where external_id is not null and source_slug is not null and status = 'active';

      create index object_records_scope on object_records (org_id, type_slug, source_slug, id);
      create index object_records_metadata
        on object_records using gin (org_id, type_slug, source_slug, metadata jsonb_path_ops);

      drop index object_instances_records;
      drop index object_instances_metadata;

      create function r3_object_records_inserted() returns trigger language plpgsql as $$
      begin
        insert into object_records (id, org_id, type_slug, source_slug, external_id, metadata)
        select id, org_id, type_slug, source_slug, external_id, metadata from inserted
         where external_id is not null and source_slug is not null and status = 'active';
        return null;
      end $$;
      create trigger object_records_inserted after insert on object_instances
        referencing new table as inserted for each statement execute function r3_object_records_inserted();

      create function r3_object_records_updated() returns trigger language plpgsql as $$
      begin
        if new.external_id is not null and new.source_slug is not null and new.status = 'active' then
          insert into object_records (id, org_id, type_slug, source_slug, external_id, metadata)
          values (new.id, new.org_id, new.type_slug, new.source_slug, new.external_id, new.metadata)
          on conflict (id) do update
            set org_id = excluded.org_id, type_slug = excluded.type_slug, source_slug = excluded.source_slug,
                external_id = excluded.external_id, metadata = excluded.metadata;
        else
          delete from object_records where id = old.id;
        end if;
        return null;
      end $$;
      create trigger object_records_updated after update on object_instances for each row
        when (old.metadata is distinct from new.metadata or old.status is distinct from new.status
              or old.external_id is distinct from new.external_id or old.source_slug is distinct from new.source_slug
              or old.type_slug is distinct from new.type_slug or old.org_id is distinct from new.org_id)
        execute function r3_object_records_updated();

      create function r3_object_records_deleted() returns trigger language plpgsql as $$
      begin
        delete from object_records r using deleted d where r.id = d.id;
        return null;
      end $$;
      create trigger object_records_deleted after delete on object_instances
        referencing old table as deleted for each statement execute function r3_object_records_deleted();

      analyze object_records;
    `);
  }
}
