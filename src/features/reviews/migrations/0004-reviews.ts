import { Migration } from '@mikro-orm/migrations';

/**
 * The review queue's lanes: `GET /reviews?assignedTo=<user>` and `?assignedTo=unassigned` read one
 * lane of an org's open items, oldest first. Without this index a lane is found by walking every open
 * item of the org in age order (`review_items_queue`) and skipping the other lanes — thousands of rows
 * for a small lane in a big queue. With it, a page is a range scan of the lane alone (`is null` is an
 * index condition in a btree, so the triage lane is served too).
 *
 * The price: an ASSIGN changes an indexed column, so it is no longer a heap-only update. Assignments
 * are rare next to queue reads, and deciding already changes `open` (in the partial predicates).
 */
export class Migration0004Reviews extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create index review_items_lane on review_items (org_id, assigned_to, created_at, id) where open;
    `);
  }
}
