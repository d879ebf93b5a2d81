import { Migration } from '@mikro-orm/migrations';

/**
 * Review policies (decisions.md §16): `review_policies` is the applied projection of
 * `review-policies/<slug>.yaml`, like the other resource tables (the workspace's apply writes it).
 * The policy in force for an item is read from the workspace version its run started on, not from
 * here; this table serves the lists (`GET /review-policies`, `workspace_list`) and the policy pages.
 */
export class Migration0044ReviewPolicies extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table review_policies (
        org_id bigint not null references orgs (id) on delete cascade,
        slug text not null,
        name text not null,
        description text not null,
        manifest json not null,
        version_sha text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (org_id, slug)
      );
    `);
  }
}
