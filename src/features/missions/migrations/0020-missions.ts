import { Migration } from '@mikro-orm/migrations';

/**
 * Missions (docs/api.md#missions):
 *
 * - `missions`: the applied projection of `missions/<slug>.yaml`, like the other resource tables.
 * - `mission_runs`: `mission-run` actors (snapshot, version, event sequence) with the columns the API
 *   reads: status, the rendered goal, input, the mission's definition as of the start (`definition`:
 *   name, team, planner, review, limits), the plan with each task's state, error, review.
 * - `mission_run_events`: a mission run's event log (SSE replay), as `run_events` is a run's.
 * - `runs.mission_run_id` / `mission_task_id`: a child skill run (the planner's or a task's) names its
 *   mission run and task; unique per mission run, so a task is never started twice.
 * - `artifacts.mission_run_id` gets the foreign key 0018 left out.
 */
export class Migration0020Missions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table missions (
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

      create table mission_runs (
        id bigserial primary key,
        org_id bigint not null references orgs (id) on delete cascade,
        mission_slug text,
        status text not null,
        goal text not null,
        input json not null,
        definition json not null,
        plan json,
        error json,
        review json,
        completed_at timestamptz,
        created_by text not null,
        api_token_id text,
        workspace_sha text,
        trace_id text not null,
        snapshot json not null,
        version integer not null,
        last_seq integer not null default 0,
        created_at timestamptz not null,
        updated_at timestamptz not null
      ) with (fillfactor = 70);
      create index mission_runs_org_created on mission_runs (org_id, created_at desc, id desc);

      create table mission_run_events (
        run_id bigint not null references mission_runs (id) on delete cascade,
        seq integer not null,
        org_id bigint not null,
        event text not null,
        status text not null,
        step text,
        output json,
        at timestamptz not null,
        primary key (run_id, seq)
      );

      alter table runs add column mission_run_id bigint references mission_runs (id) on delete cascade;
      alter table runs add column mission_task_id text;
      create unique index runs_mission_task on runs (mission_run_id, mission_task_id)
        where mission_run_id is not null;

      alter table artifacts add constraint artifacts_mission_run_fk
        foreign key (mission_run_id) references mission_runs (id) on delete cascade;
    `);
  }
}
