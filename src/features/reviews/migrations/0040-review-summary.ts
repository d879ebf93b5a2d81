import { Migration } from '@mikro-orm/migrations';

/**
 * A review item's `summary` (decisions §15): what the item is about in one line — the draft's first
 * 200 characters, or the proposed action's description — projected from the item's actor, so the
 * queue lists it without reading any subject.
 */
export class Migration0040ReviewSummary extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table review_items add column summary text;');
  }
}
