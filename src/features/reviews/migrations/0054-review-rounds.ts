import { Migration } from '@mikro-orm/migrations';

/**
 * Rounds of review (decisions.md §15 "Request changes"):
 * - `review_items.rounds`: how many times the item's subject's draft was sent back before the item
 *   opened (0 for a first draft). Set when the item is created, so the queue shows it
 *   (`review.rounds`) without reading the subject.
 * - `runs.review_rounds`: a skill run's rounds, oldest first (`[{draft, reason, by, onBehalfOf, at}]`),
 *   projected from its actor for the run object's `rounds`; null while it has none. (Here rather than
 *   with the runs feature's migrations: one migration number for the feature that adds rounds.)
 */
export class Migration0054ReviewRounds extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table review_items add column rounds integer not null default 0;');
    this.addSql('alter table runs add column review_rounds json;');
  }
}
