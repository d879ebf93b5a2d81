import { Migration } from '@mikro-orm/migrations';

/**
 * `run_events` loses its foreign key to `runs`; a statement-level trigger keeps its cascade.
 *
 * Run events are written only by the actor statements (src/platform/actors/statements.ts), joined to the run
 * rows the same statement inserted or updated, so an event never exists without its run by
 * construction. The key's check was the dearest part of creating a run: for each event it locked the
 * run row just inserted (a tuple lock, WAL-logged), a large part of the creation statement's
 * execution in PostgreSQL (docs/performance.md, "Choices in the code"). Deleting runs — by
 * hand, or through an org's cascade — still deletes their events, once per statement.
 */
export class Migration0009RunEventsCascade extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table run_events drop constraint if exists run_events_run_id_fkey;
      create function r3_delete_run_events() returns trigger language plpgsql as $$
      begin
        delete from run_events e using deleted_runs d where e.run_id = d.id;
        return null;
      end $$;
      create trigger runs_delete_events after delete on runs
        referencing old table as deleted_runs
        for each statement execute function r3_delete_run_events();
    `);
  }
}
