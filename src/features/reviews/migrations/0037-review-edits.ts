import { Migration } from '@mikro-orm/migrations';

/**
 * Edits before approve (decisions.md §15): what the model or the agent proposed is kept beside what
 * a reviewer approved — a run's `draft_output` (a skill run's draft; a workflow run's edited steps'
 * outputs as they were), a proposal's `approved_params` beside its proposed `params`.
 */
export class Migration0037ReviewEdits extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table runs add column draft_output json;');
    this.addSql('alter table proposals add column approved_params json;');
  }
}
