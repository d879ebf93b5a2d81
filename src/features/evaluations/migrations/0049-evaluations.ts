import { Migration } from '@mikro-orm/migrations';

/**
 * Evaluations (docs/api.md "Evaluations"): `runs.shadow` marks an evaluation's replays (never in the
 * review queue, on a webhook or in `GET /runs` unless asked); `evaluations` is the request (skill,
 * version, who, when) and `evaluation_runs` pairs each reviewed run with its shadow replay, in the
 * order they were picked, with the reviewer's mark of the pair. An evaluation's status is read from
 * its shadow runs' statuses: the runs are durable actors, so it survives a restart with them.
 * `runs_reviewed` finds a skill's last reviewed runs (the evaluation's originals, quality per
 * version).
 */
export class Migration0049Evaluations extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table runs add column shadow boolean not null default false;
      create index runs_reviewed on runs (org_id, slug, completed_at desc, id desc)
        where kind = 'skill' and not shadow and review_state in ('approved', 'rejected');
      create table evaluations (
        id bigserial primary key,
        org_id bigint not null references orgs (id) on delete cascade,
        skill_slug text not null,
        workspace_sha text not null,
        last integer not null,
        statuses text[] not null,
        created_by text not null,
        api_token_id text,
        created_at timestamptz not null
      );
      create index evaluations_org on evaluations (org_id, created_at desc, id desc);
      create table evaluation_runs (
        evaluation_id bigint not null references evaluations (id) on delete cascade,
        position integer not null,
        original_run_id bigint not null references runs (id) on delete cascade,
        shadow_run_id bigint not null references runs (id) on delete cascade,
        mark text check (mark in ('better', 'same', 'worse')),
        marked_by text,
        marked_at timestamptz,
        primary key (evaluation_id, position),
        unique (evaluation_id, original_run_id)
      );
    `);
  }
}
