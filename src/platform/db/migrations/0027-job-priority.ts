import { Migration } from '@mikro-orm/migrations';

/**
 * A job's priority: ready jobs are claimed highest priority first, then by `run_at` and id as before
 * (src/platform/jobs/queue.ts). 0 for every job but those whose enqueuer says other work waits on them
 * (a mission's task whose dependencies finished: src/features/missions/children.ts). The ready index
 * leads with it so the claim still walks the index to the first few.
 */
export class Migration0027JobPriority extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table jobs add column priority smallint not null default 0;
      drop index jobs_ready;
      create index jobs_ready on jobs (priority desc, run_at, id) where dead_at is null;
    `);
  }
}
