import { Migration } from '@mikro-orm/migrations';

/**
 * Runs ↔ objects (docs/api.md "Runs"): the object instances a run used — named in its body
 * (`via = 'input'`) or returned to it by `lookup_objects` / `search_knowledge` (`via = 'tool'`; an
 * instance named both ways keeps the first link). Each side's index answers its direction: a run's
 * `objects`, an instance's `runs`. Deleting either deletes the link.
 */
export class Migration0050RunObjects extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table run_objects (
        run_id bigint not null references runs (id) on delete cascade,
        object_id bigint not null references object_instances (id) on delete cascade,
        org_id bigint not null references orgs (id) on delete cascade,
        via text not null check (via in ('input', 'tool')),
        primary key (run_id, object_id)
      );
      create index run_objects_object on run_objects (object_id);
    `);
  }
}
