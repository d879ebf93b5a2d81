import { Migration } from '@mikro-orm/migrations';

/**
 * An outbox row may now carry many messages: a transition statement writes all of its messages as
 * one row (`messages`: one `subject \t event_id \t payload` line each, in publish order) instead of
 * one row per message. A row is either one message (`subject`, `event_id`, `payload`) or
 * a batch (`messages`, and no `org_id`: a batch may hold several orgs' messages).
 *
 * `messages` is stored out of line and uncompressed: a batch of 64 run creations is ~50 kB of JSON,
 * and compressing it cost more CPU on write and read than its WAL saved.
 *
 * `outbox_messages` shows every pending message, one row each, whichever form it is in (tests and
 * debugging; the relay reads `outbox` itself).
 *
 * During a rolling upgrade, a relay of an earlier release that claims a batch row fails to publish
 * it and rolls its claim back (logging the error): the row stays until a relay of this release
 * publishes it. Nothing is lost; publishing waits for the upgrade.
 */
export class Migration0012OutboxBatches extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table outbox
        add column messages text,
        alter column messages set storage external,
        alter column org_id drop not null,
        alter column subject drop not null,
        alter column event_id drop not null,
        alter column payload drop not null,
        add constraint outbox_one_form check (
          case when messages is null
               then org_id is not null and subject is not null and event_id is not null and payload is not null
               else subject is null and event_id is null and payload is null end);

      -- A batched update statement that missed some of its actors' versions must not publish their
      -- messages: it fails, and its transitions are written one at a time (src/platform/actors/statements.ts).
      create function r3_outbox_partial_batch() returns boolean language plpgsql as $$
        begin
          raise exception 'a batched transition statement missed some actors; write them one at a time'
            using errcode = 'R3PB1';
        end $$;

      create view outbox_messages as
        select id, 1::bigint as ord, subject, event_id, payload, created_at
          from outbox where messages is null
        union all
        select o.id, l.ord, split_part(l.line, E'\\t', 1), split_part(l.line, E'\\t', 2)::uuid,
               substr(l.line, length(split_part(l.line, E'\\t', 1)) + length(split_part(l.line, E'\\t', 2)) + 3)::json,
               o.created_at
          from outbox o, string_to_table(o.messages, E'\\n') with ordinality as l(line, ord)
         where o.messages is not null;
    `);
  }
}
