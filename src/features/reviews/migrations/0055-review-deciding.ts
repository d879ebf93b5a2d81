import { Migration } from '@mikro-orm/migrations';

/**
 * Undo (decisions.md §15): a review item's decision taken with a delay, projected from the item's
 * actor while it is `deciding` (null otherwise) — its action, edits, reason, who and when, and
 * `effectiveAt` — so the queue shows it without reading the snapshot.
 */
export class Migration0055ReviewDeciding extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table review_items add column deciding jsonb;');
  }
}
