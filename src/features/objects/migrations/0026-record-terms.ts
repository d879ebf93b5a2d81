import { Migration } from '@mikro-orm/migrations';

/**
 * The domain tools' filters (objects' record-queries.ts) find their records through an index whose
 * keys belong to one scope: `object_records.terms`, one 64-bit hash per (org, type, source, property,
 * text value) of the record's metadata, with a GIN index. `dealstage = closedwon` is then one posting
 * list of exactly that scope's matching records (8,334 of 50,000 deals in `bench:sync`), read as a
 * bitmap, and only those rows are visited.
 *
 * It replaces 0025's GIN index on (org, type, source, metadata jsonb_path_ops), whose keys were not
 * scoped: the scope columns were keys of their own, each posting the scope's every row, so a filter
 * intersected three lists of all 50,000 rows with the value's — the planner rightly preferred reading
 * the whole projection and testing each row's metadata (a sequential scan, about twice the backend
 * CPU of a read through the terms: docs/performance.md, "Choices in the code"). A plain metadata GIN is as fast for one
 * organization but posts every organization's `dealstage = closedwon` together.
 *
 * A term is `hashtextextended(property || '=' || value, hashtextextended(type || '/' || source, org))`
 * over `jsonb_each_text` (JSON nulls have none). Terms only narrow: the queries still test the
 * metadata itself (containment, `->>` text), so a hash collision or an ambiguous `=` costs a visit,
 * never a wrong answer. `r3_record_term` is the one definition (an SQL expression, inlined where it is
 * used; `r3_record_terms` maps it over a list of values); the triggers of 0025 keep `terms` with the
 * row, computed once per write. The queries pass both their arguments as parameters, which PostgreSQL
 * folds into constant arrays when it plans, so it estimates and scans by the actual hashes.
 */
const TERMS = (row: string) =>
  `array(select r3_record_term(${row}.org_id, ${row}.type_slug, ${row}.source_slug, e.key, e.value)
           from jsonb_each_text(${row}.metadata) e where e.value is not null)`;

export class Migration0026RecordTerms extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function r3_record_term(org_id bigint, type_slug text, source_slug text, property text, value text)
        returns bigint language sql immutable parallel safe
        return hashtextextended(property || '=' || value, hashtextextended(type_slug || '/' || source_slug, org_id));
      create function r3_record_terms(org_id bigint, type_slug text, source_slug text, property text, vals text[])
        returns bigint[] language sql immutable parallel safe
        return array(select r3_record_term(org_id, type_slug, source_slug, property, v) from unnest(vals) v);

      alter table object_records add column terms bigint[];
      update object_records r set terms = ${TERMS('r')};
      alter table object_records alter column terms set not null;
      create index object_records_terms on object_records using gin (terms);
      drop index object_records_metadata;

      create or replace function r3_object_records_inserted() returns trigger language plpgsql as $$
      begin
        insert into object_records (id, org_id, type_slug, source_slug, external_id, metadata, terms)
        select i.id, i.org_id, i.type_slug, i.source_slug, i.external_id, i.metadata, ${TERMS('i')}
          from inserted i
         where i.external_id is not null and i.source_slug is not null and i.status = 'active';
        return null;
      end $$;

      create or replace function r3_object_records_updated() returns trigger language plpgsql as $$
      begin
        if new.external_id is not null and new.source_slug is not null and new.status = 'active' then
          insert into object_records (id, org_id, type_slug, source_slug, external_id, metadata, terms)
          values (new.id, new.org_id, new.type_slug, new.source_slug, new.external_id, new.metadata, ${TERMS('new')})
          on conflict (id) do update
            set org_id = excluded.org_id, type_slug = excluded.type_slug, source_slug = excluded.source_slug,
                external_id = excluded.external_id, metadata = excluded.metadata, terms = excluded.terms;
        else
          delete from object_records where id = old.id;
        end if;
        return null;
      end $$;

      analyze object_records;
    `);
  }
}
