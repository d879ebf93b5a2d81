import { Migration } from '@mikro-orm/migrations';

/**
 * Ledger entries are written pending (no `seq`, `prev_hash`, `hash`) in the transaction of their
 * change and chained right after it commits (ledger.ts): `entry_id` orders the pending ones, and the
 * partial index finds them.
 */
export class Migration0043ReviewLedgerPending extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table review_ledger drop constraint review_ledger_pkey;');
    this.addSql('alter table review_ledger add column entry_id bigserial primary key;');
    this.addSql(
      'alter table review_ledger alter column seq drop not null, alter column prev_hash drop not null, alter column hash drop not null;',
    );
    this.addSql('create unique index review_ledger_seq on review_ledger (org_id, seq);');
    this.addSql('create index review_ledger_pending on review_ledger (org_id, entry_id) where seq is null;');
  }
}
