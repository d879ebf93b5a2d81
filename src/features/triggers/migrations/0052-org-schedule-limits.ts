import { Migration } from '@mikro-orm/migrations';

/**
 * An org's own floor and quota of `schedule` triggers (docs/api.md "Workflow triggers"), set by `r3 org
 * schedules` as `r3 org limits` sets its rate limit: `schedule_min_interval_ms`, the shortest time
 * between two firings of one trigger, and `schedule_max_open_reviews`, the open review items one
 * trigger's runs may have (0: none / no cap). Null: the deployment's (R3_SCHEDULE_MIN_INTERVAL,
 * R3_SCHEDULE_MAX_OPEN_REVIEWS).
 */
export class Migration0052OrgScheduleLimits extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table orgs
        add column schedule_min_interval_ms bigint check (schedule_min_interval_ms >= 0),
        add column schedule_max_open_reviews integer check (schedule_max_open_reviews >= 0);
    `);
  }
}
