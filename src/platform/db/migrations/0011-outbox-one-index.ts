import { Migration } from '@mikro-orm/migrations';

/**
 * Since 0008 the relay deletes outbox rows as it publishes them, so every row is unpublished and
 * `outbox_unpublished` (id where published_at is null) indexes exactly what the primary key does.
 * Dropping it saves two index insertions per run created (one per outbox row) and their cleanup;
 * the relay's claim (`where published_at is null order by id`) walks the primary key instead.
 */
export class Migration0011OutboxOneIndex extends Migration {
  override async up(): Promise<void> {
    this.addSql('drop index if exists outbox_unpublished;');
  }
}
