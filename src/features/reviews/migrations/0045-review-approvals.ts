import { Migration } from '@mikro-orm/migrations';

/**
 * Quorum (decisions.md §16): an item records how many distinct users must approve it (`required`,
 * its review policy's as it opened) and the approvals so far (`approvals`, `[{by, at}]`), projected
 * from the review item's snapshot so the queue reads them with the row.
 */
export class Migration0045ReviewApprovals extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table review_items
        add column required smallint not null default 1,
        add column approvals json not null default '[]';
    `);
  }
}
