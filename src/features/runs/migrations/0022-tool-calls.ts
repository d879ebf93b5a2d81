import { Migration } from '@mikro-orm/migrations';

/**
 * `tool_calls` (docs/api.md#runs): every tool call of a run's tool loop, recorded before it executes
 * (`running`) and after (`ok` with its result, or `error`), each write in the same statement as the
 * run's transition that takes it (TOOLS_REQUESTED, TOOL_COMPLETED). After a crash the model
 * conversation is rebuilt from these rows: `turn` and `position` order the model's turns and the calls
 * in each, `assistant_content` is the text the model sent with its calls, `raw_arguments` the
 * arguments exactly as the model wrote them. `call_id` is the model's id, made unique per run when a
 * model repeats one across turns.
 */
export class Migration0022ToolCalls extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table tool_calls (
        run_id bigint not null references runs (id) on delete cascade,
        call_id text not null,
        org_id bigint not null,
        step text not null,
        turn integer not null check (turn >= 1),
        position integer not null check (position >= 0),
        tool text not null,
        arguments json,
        raw_arguments text not null,
        assistant_content text,
        status text not null check (status in ('running', 'ok', 'error')),
        result json,
        error json,
        started_at timestamptz not null,
        completed_at timestamptz,
        primary key (run_id, call_id)
      );
      create unique index tool_calls_order on tool_calls (run_id, turn, position);
    `);
  }
}
