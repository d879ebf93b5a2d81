/**
 * `runtime_skill_quality`: a skill's quality per workspace version, as `GET /skills/:slug/quality`
 * answers it (docs/api.md "Quality per version").
 */
import { access } from '../../platform/auth/guard.js';
import type { Db } from '../../platform/db/sql.js';
import { defineTool, READ_ONLY, type ToolDef } from '../../platform/mcp/tool.js';
import { type AppliedResources, slugParams } from '../workspace/index.js';
import { qualityOf, qualitySchema } from './quality.js';

export function qualityTools(deps: { db: Db; applied: AppliedResources }): ToolDef[] {
  return [
    defineTool({
      name: 'runtime_skill_quality',
      title: 'Skill quality per version',
      group: 'runtime',
      description:
        "What reviewers made of a skill's runs, per workspace version (newest first): runs, approved, " +
        'rejected, edited, changesRequested, approvalRate, editRate, ratingsUp/Down, first and last run. ' +
        'Compare a version with the one before it; evaluate a candidate with POST /skills/:slug/evaluations.',
      input: slugParams.strict(),
      output: qualitySchema,
      access: access.read,
      hints: READ_ONLY,
      run: ({ slug }, { principal }) => qualityOf(deps.db, deps.applied, principal.orgId, 'skill', slug),
    }),
  ];
}
