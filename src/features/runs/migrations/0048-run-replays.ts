import { Migration } from '@mikro-orm/migrations';

/**
 * Replays (docs/api.md "Replay a skill run"): `runs.replay_of_run_id` names the skill run a replay
 * re-executes (its recorded tool calls answer the replay's equal calls), and `tool_calls.replayed` is
 * true on a call answered from that record instead of executing (null: executed, as every call before).
 */
export class Migration0048RunReplays extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table runs add column replay_of_run_id bigint references runs (id) on delete set null;
      create index runs_replays on runs (replay_of_run_id) where replay_of_run_id is not null;
      alter table tool_calls add column replayed boolean;
    `);
  }
}
