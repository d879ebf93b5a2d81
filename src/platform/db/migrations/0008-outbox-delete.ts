import { Migration } from '@mikro-orm/migrations';

/**
 * The outbox relay deletes rows as it publishes them (src/platform/outbox/relay.ts) instead of marking
 * them published and sweeping them a day later: rows already marked by the previous release are
 * published, so they go, and so does the index that served the sweep.
 */
export class Migration0008OutboxDelete extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      delete from outbox where published_at is not null;
      drop index if exists outbox_published;
    `);
  }
}
