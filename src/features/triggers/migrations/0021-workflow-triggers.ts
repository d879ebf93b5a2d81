import { Migration } from '@mikro-orm/migrations';

/**
 * Workflow triggers (docs/api.md#workflow-triggers): one row per firing of a workflow's trigger, keyed by
 * what fired it — `schedule:<due time>` for a cron due time, `object:<instance id>` for a new instance — so a
 * due time or an instance starts at most one run whatever retries or nodes do. The row is written in
 * the transaction that creates the run (`run_id`), or records why no run could start (`error`).
 * The schedules themselves are jobs (kind `workflow-schedule`, one per workflow, `run_at` = the next
 * due time), so they need no table of their own.
 */
export class Migration0021WorkflowTriggers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table workflow_trigger_fires (
        org_id bigint not null references orgs (id) on delete cascade,
        workflow_slug text not null,
        fire_key text not null,
        trigger_type text not null check (trigger_type in ('schedule', 'object.created')),
        run_id bigint references runs (id) on delete set null,
        error text,
        fired_at timestamptz not null,
        primary key (org_id, workflow_slug, fire_key)
      );
      create index workflow_trigger_fires_run on workflow_trigger_fires (run_id) where run_id is not null;
    `);
  }
}
