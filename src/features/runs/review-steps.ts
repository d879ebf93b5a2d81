/**
 * A run's steps for its review screen (`GET /reviews/:kind/:id` `steps`): read from the manifests the
 * run executes (`runs.manifest`, the version it was started on), not the workspace as it is now, so
 * the edit form is built from the outputSchema the approval's edits are checked against.
 */
import type { Principal } from '../../platform/auth/principal.js';
import type { Db } from '../../platform/db/sql.js';
import { notFound } from '../../platform/errors.js';
import type { ReviewStep } from '../reviews/index.js';
import type { RunManifest, SkillSnapshot } from './targets.js';

const outputSchemaOf = (skill: SkillSnapshot | undefined): Record<string, unknown> | null =>
  (skill?.manifest.outputSchema as Record<string, unknown> | undefined) ?? null;

/** The steps of `manifest`: a skill run is one skill step named by its slug (as its `stepResults` are). */
function stepsOf(slug: string, manifest: RunManifest): ReviewStep[] {
  if (manifest.kind === 'skill') {
    return [{ name: slug, type: 'skill', skill: slug, outputSchema: outputSchemaOf(manifest.skill) }];
  }
  return manifest.workflow.steps.map((step): ReviewStep => {
    if (step.type === 'skill') {
      return {
        name: step.name,
        type: 'skill',
        skill: step.skill,
        outputSchema: outputSchemaOf(manifest.skills[step.skill]),
      };
    }
    return {
      name: step.name,
      type: 'approve',
      ...(step.title === undefined ? {} : { title: step.title }),
      ...(step.assignTo === undefined ? {} : { assignTo: step.assignTo }),
    };
  });
}

/** The steps of run `id` (of `kind`) in the caller's org; 404 otherwise. */
export async function reviewSteps(
  db: Db,
  principal: Pick<Principal, 'orgId'>,
  kind: 'skill' | 'workflow',
  id: number,
): Promise<ReviewStep[]> {
  const row = await db.maybeOne<{ slug: string; manifest: RunManifest }>(
    'select slug, manifest from runs where id = $1 and org_id = $2 and kind = $3',
    [id, principal.orgId, kind],
  );
  if (!row) throw notFound('run', id);
  return stepsOf(row.slug, row.manifest);
}
