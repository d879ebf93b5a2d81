import { Migration } from '@mikro-orm/migrations';

/**
 * The queue tables (jobs, outbox, timers) churn: every row is inserted, updated a few times and
 * deleted (or marked) within seconds. PostgreSQL's default autovacuum thresholds (20% of the table
 * changed) let dead tuples pile up and leave the planner with the statistics of an empty table, so
 * the claim query would read and sort every ready job instead of walking its index to the first few.
 * Fixed thresholds keep their statistics and visibility current whatever their size.
 */
export class Migration0006QueueTables extends Migration {
  override async up(): Promise<void> {
    for (const table of ['jobs', 'outbox', 'timers']) {
      this.addSql(`
        alter table ${table} set (
          autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
          autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 500,
          autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 1000
        )`);
    }
  }
}
