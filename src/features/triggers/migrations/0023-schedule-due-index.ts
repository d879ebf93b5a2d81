import { Migration } from '@mikro-orm/migrations';

/**
 * The next due time of the workflow schedules (`workflow-schedule` jobs), which every r3 process reads
 * to wake its job workers when it comes (schedules.ts), in one index step whatever else waits in the
 * queue. The predicate names only `kind`, which no update changes, so claims stay HOT updates.
 */
export class Migration0023ScheduleDueIndex extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index jobs_workflow_schedules on jobs (run_at) where kind = 'workflow-schedule';`);
  }
}
