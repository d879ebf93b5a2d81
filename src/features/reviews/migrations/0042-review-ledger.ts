import { Migration } from '@mikro-orm/migrations';

/**
 * The decision ledger (decisions §16): an append-only hash chain of every review event, per org.
 * `review_ledger` holds the entries (`seq` 1, 2, … per org; `at` kept to the millisecond, as hashed);
 * `review_ledger_heads` holds each org's last `seq` and `hash`: appends lock its row to form one
 * chain, and `r3 audit verify` checks the chain ends there (a deleted last entry breaks it).
 */
export class Migration0042ReviewLedger extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table review_ledger (
        org_id bigint not null references orgs(id),
        seq bigint not null,
        at timestamptz not null,
        kind text not null,
        subject_id bigint not null,
        event text not null,
        by text not null,
        details jsonb not null,
        prev_hash text not null,
        hash text not null,
        primary key (org_id, seq)
      );`);
    this.addSql('create index review_ledger_subject on review_ledger (org_id, kind, subject_id, seq);');
    this.addSql(`
      create table review_ledger_heads (
        org_id bigint primary key references orgs(id),
        seq bigint not null,
        hash text not null
      );`);
  }
}
