import { Migration } from '@mikro-orm/migrations';

/**
 * Proposals (docs/api.md#proposals): connector actions an agent proposed (`propose_action`), persisted as
 * `proposal` actors and reviewed in the queue as items of kind `action` (`review_items.run_id` is
 * the proposal's id for them).
 *
 * `action`, `source_slug`, `params` and `rationale` are fixed at creation; `status`, `review`,
 * `result`, `error`, `attempts` and `completed_at` project the snapshot. `call_key` deduplicates a
 * run's tool call retried after a crash (run id + call id): one proposal per key and org.
 */
export class Migration0019Proposals extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table proposals (
        id bigserial primary key,
        org_id bigint not null references orgs (id) on delete cascade,
        action text not null,
        source_slug text not null,
        agent_slug text,
        params json not null,
        rationale text not null,
        run_id bigint references runs (id) on delete set null,
        call_key text,
        created_by text not null,
        api_token_id text,
        status text not null,
        review json,
        result json,
        error json,
        attempts integer not null,
        completed_at timestamptz,
        snapshot json not null,
        version integer not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index proposals_org on proposals (org_id, created_at desc, id desc);
      create index proposals_org_status on proposals (org_id, status, created_at desc, id desc);
      create unique index proposals_call on proposals (org_id, call_key) where call_key is not null;

      alter table review_items drop constraint review_items_kind_check;
      alter table review_items add constraint review_items_kind_check
        check (kind in ('skill', 'workflow', 'mission', 'action'));
    `);
  }
}
