/**
 * A run's steps for its review screen (`GET /reviews/:kind/:id` `steps`): read from the manifests the
 * run executes (`runs.manifest`, the version it was started on), not the workspace as it is now, so
 * the edit form is built from the outputSchema the approval's edits are checked against.
 */
import type { Principal } from '../../platform/auth/principal.js';
import type { Db } from '../../platform/db/sql.js';
import { notFound } from '../../platform/errors.js';
import { type BatchLoader, createBatchLoader } from '../../platform/util/batch-loader.js';
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

/** A run as a key of the batched read of steps: its org, kind and id. */
interface StepsKey {
  orgId: number;
  kind: 'skill' | 'workflow';
  id: number;
}

/** The reader of runs' steps: the manifests of concurrent review pages' runs in one statement. */
export type ReviewStepsReader = BatchLoader<StepsKey, { slug: string; manifest: RunManifest } | undefined>;

/**
 * Runs' slugs and manifests by (org, kind, id), concurrent callers' together (a batch per statement,
 * src/platform/util/batch-loader.ts): the review page reads one for every item opened.
 */
export function createReviewStepsReader(db: Db): ReviewStepsReader {
  return createBatchLoader({
    async batch(keys) {
      const rows = await db.prepared<{ ord: number; slug: string; manifest: RunManifest }>(
        'review_steps_runs',
        `select x.ord, r.slug, r.manifest
           from unnest($1::bigint[], $2::bigint[], $3::text[]) with ordinality as x(key_id, key_org_id, key_kind, ord)
           join runs r on r.id = x.key_id and r.org_id = x.key_org_id and r.kind = x.key_kind`,
        [keys.map((k) => k.id), keys.map((k) => k.orgId), keys.map((k) => k.kind)],
      );
      const found: Array<{ slug: string; manifest: RunManifest } | undefined> = keys.map(() => undefined);
      for (const row of rows) found[Number(row.ord) - 1] = { slug: row.slug, manifest: row.manifest };
      return found;
    },
  });
}

/** The steps of run `id` (of `kind`) in the caller's org; 404 otherwise. */
export async function reviewSteps(
  reader: ReviewStepsReader,
  principal: Pick<Principal, 'orgId'>,
  kind: 'skill' | 'workflow',
  id: number,
): Promise<ReviewStep[]> {
  const row = await reader.load({ orgId: principal.orgId, kind, id });
  if (!row) throw notFound('run', id);
  return stepsOf(row.slug, row.manifest);
}
