import { Migration } from '@mikro-orm/migrations';

/**
 * Review deadlines (decisions §16): an item's `due_at`, projected from its actor (the deadline's
 * `dueAt`, null when the policy in force sets no `dueIn`). `GET /reviews?sort=due` reads an org's open
 * items soonest first with those without one last, and `?overdue=true` those due by now: both are a
 * range scan of `review_items_due` (a btree sorts nulls last, as the API does).
 */
export class Migration0056ReviewDeadlines extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table review_items add column due_at timestamptz;');
    this.addSql('create index review_items_due on review_items (org_id, due_at, id) where open;');
  }
}
