/**
 * Quality per version (docs/api.md "Quality per version", decisions.md §17): what reviewers made of
 * a skill's or workflow's runs, per workspace version they ran on, newest version first. Counted
 * over the runs themselves (shadow runs left out), with these meanings:
 * - approved / rejected: runs whose last review decision (`review.decision`) is that;
 * - edited: approved runs whose reviewer edited what they approved (`review.edited`, or a workflow's
 *   edited step outputs kept in `draftOutput`);
 * - changesRequested: the rounds of request changes (the runs' `rounds`) over the version's runs;
 * - approvalRate: approved / (approved + rejected), editRate: edited / approved (null when the
 *   divisor is 0), rounded to 4 decimals;
 * - ratingsUp / ratingsDown: runs rated up / down (`POST /runs/:id/feedback`).
 */
import { z } from 'zod';
import type { Db } from '../../platform/db/sql.js';
import { notFound } from '../../platform/errors.js';
import type { AppliedResources } from '../workspace/index.js';

/** One version's figures. */
export const versionQualitySchema = z.object({
  workspaceSha: z.string().nullable(),
  runs: z.number().int(),
  approved: z.number().int(),
  rejected: z.number().int(),
  edited: z.number().int(),
  changesRequested: z.number().int(),
  approvalRate: z.number().nullable(),
  editRate: z.number().nullable(),
  ratingsUp: z.number().int(),
  ratingsDown: z.number().int(),
  firstRunAt: z.iso.datetime(),
  lastRunAt: z.iso.datetime(),
});

/** `GET /skills/:slug/quality` and `GET /workflows/:slug/quality`. */
export const qualitySchema = z.object({ versions: z.array(versionQualitySchema) });

export type Quality = z.infer<typeof qualitySchema>;

const QUALITY = `
  with per as (
    select workspace_sha,
           count(*)::int as runs,
           count(*) filter (where review->>'decision' = 'approved')::int as approved,
           count(*) filter (where review->>'decision' = 'rejected')::int as rejected,
           count(*) filter (where review->>'decision' = 'approved'
                              and (coalesce((review->>'edited')::boolean, false) or draft_output is not null))::int
             as edited,
           coalesce(sum(json_array_length(review_rounds)), 0)::int as changes_requested,
           count(*) filter (where rating = 'up')::int as ratings_up,
           count(*) filter (where rating = 'down')::int as ratings_down,
           min(created_at) as first_run_at,
           max(created_at) as last_run_at
      from runs
     where org_id = $1 and kind = $2 and slug = $3 and not shadow
     group by workspace_sha
  )
  select per.*, v.seq
    from per
    left join lateral (
      select seq from workspace_versions v
       where v.org_id = $1 and per.workspace_sha is not null and v.sha like per.workspace_sha || '%'
       limit 1) v on true
   order by v.seq desc nulls last, per.last_run_at desc`;

interface QualityRow {
  workspace_sha: string | null;
  runs: number;
  approved: number;
  rejected: number;
  edited: number;
  changes_requested: number;
  ratings_up: number;
  ratings_down: number;
  first_run_at: Date;
  last_run_at: Date;
}

const rate = (part: number, whole: number) => (whole === 0 ? null : Math.round((part / whole) * 1e4) / 1e4);

/**
 * The quality of skill or workflow `slug` of org `orgId` per version, newest first. 404 when the org
 * has no such resource applied and no runs of it.
 */
export async function qualityOf(
  db: Db,
  applied: AppliedResources,
  orgId: number,
  kind: 'skill' | 'workflow',
  slug: string,
): Promise<Quality> {
  const rows = await db.query<QualityRow>(QUALITY, [orgId, kind, slug]);
  if (rows.length === 0) {
    const known =
      kind === 'skill' ? await applied.getSkill(orgId, slug) : await applied.getWorkflow(orgId, slug);
    if (!known) throw notFound(kind, slug);
  }
  return {
    versions: rows.map((r) => ({
      workspaceSha: r.workspace_sha,
      runs: r.runs,
      approved: r.approved,
      rejected: r.rejected,
      edited: r.edited,
      changesRequested: r.changes_requested,
      approvalRate: rate(r.approved, r.approved + r.rejected),
      editRate: rate(r.edited, r.approved),
      ratingsUp: r.ratings_up,
      ratingsDown: r.ratings_down,
      firstRunAt: r.first_run_at.toISOString(),
      lastRunAt: r.last_run_at.toISOString(),
    })),
  };
}
