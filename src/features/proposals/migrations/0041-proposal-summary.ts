import { Migration } from '@mikro-orm/migrations';

/**
 * A proposal's one-line description of its action (`describeAction`), written at creation and read
 * with the proposal (a `load` column), so the review item it opens says what will happen without
 * loading the params.
 */
export class Migration0041ProposalSummary extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table proposals add column summary text;');
  }
}
