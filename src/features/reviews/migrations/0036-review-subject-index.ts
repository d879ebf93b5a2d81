import { Migration } from '@mikro-orm/migrations';

/**
 * The items of one subject, open or closed: `GET /reviews/:kind/:id` reads a subject's latest item,
 * a run's transition log its items' transitions, a proposal its item. The partial indexes serve only
 * open items, so those reads walked every item of the table; this one finds a subject's items directly.
 */
export class Migration0036ReviewSubjectIndex extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index review_items_subject on review_items (org_id, kind, run_id, id);');
  }
}
