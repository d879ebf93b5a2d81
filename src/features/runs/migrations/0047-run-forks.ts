import { Migration } from '@mikro-orm/migrations';

/**
 * A run's lineage (docs/api.md "Fork a run"): `fork_of_run_id` names the run it forks and
 * `fork_from_step` the step it executes from (null for a skill run's fork). The index answers a run's
 * `forks`. Deleting the original keeps its forks (their `forkOf` becomes null). A run created without
 * a lineage leaves the key null, which PostgreSQL does not check: ordinary creations pay nothing.
 */
export class Migration0047RunForks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table runs add column fork_of_run_id bigint references runs (id) on delete set null;
      alter table runs add column fork_from_step text;
      create index runs_forks on runs (fork_of_run_id) where fork_of_run_id is not null;
    `);
  }
}
