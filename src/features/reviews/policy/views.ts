/**
 * Review policies as the API shows them (docs/api.md "Review policies"): the applied projection
 * (`review_policies`), each with the applied resources that name it (`usedBy`: skills, workflow
 * gates, missions, agents) — what a policy page lists.
 */
import type { Sql } from '../../../platform/db/sql.js';
import { DEFAULT_POLICY_SLUG, type ReviewPolicyManifest } from '../../workspace/index.js';
import type { PolicyNamer } from './in-force.js';

/** A resource that names a policy, and the manifest field that does (`steps.1.reviewPolicy`). */
export interface PolicyUser {
  kind: PolicyNamer;
  slug: string;
  name: string;
  field: string;
}

/** A policy in a list. */
export type ReviewPolicyView = ReviewPolicyManifest & {
  /** Whether it is the org's `default` (it then applies wherever no policy is named). */
  isDefault: boolean;
  createdAt: string;
  updatedAt: string;
};

/** A policy with what names it. */
export type ReviewPolicyDetail = ReviewPolicyView & { usedBy: PolicyUser[] };

interface Row {
  manifest: ReviewPolicyManifest;
  created_at: Date;
  updated_at: Date;
}

const view = (row: Row): ReviewPolicyView => ({
  ...row.manifest,
  isDefault: row.manifest.slug === DEFAULT_POLICY_SLUG,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

// Skills, missions and agents name a policy at the top of their manifest; workflows at an approve step.
const USED_BY = `
  select 'skill' as kind, slug, name, 'reviewPolicy' as field from skills
   where org_id = $1 and manifest->>'reviewPolicy' = $2
  union all
  select 'workflow', w.slug, w.name, 'steps.' || (s.ordinality - 1) || '.reviewPolicy'
    from workflows w, json_array_elements(w.manifest->'steps') with ordinality s(step, ordinality)
   where w.org_id = $1 and s.step->>'reviewPolicy' = $2
  union all
  select 'mission', slug, name, 'reviewPolicy' from missions where org_id = $1 and manifest->>'reviewPolicy' = $2
  union all
  select 'agent', slug, name, 'reviewPolicy' from agents where org_id = $1 and manifest->>'reviewPolicy' = $2
  order by 1, 2, 4`;

export class ReviewPolicyViews {
  constructor(private readonly sql: Sql) {}

  /** One page of the org's applied policies by slug. */
  async list(
    orgId: number,
    page: { limit: number; after?: string | undefined },
  ): Promise<{ items: ReviewPolicyView[]; nextAfter: string | null }> {
    const rows = await this.sql.query<Row>(
      `select manifest, created_at, updated_at from review_policies
        where org_id = $1 and ($2::text is null or slug > $2) order by slug limit $3`,
      [orgId, page.after ?? null, page.limit + 1],
    );
    const items = rows.slice(0, page.limit).map(view);
    return { items, nextAfter: rows.length > page.limit ? (items.at(-1)?.slug ?? null) : null };
  }

  /** The applied policy `slug` with what names it, or null. */
  async detail(orgId: number, slug: string): Promise<ReviewPolicyDetail | null> {
    const row = await this.sql.maybeOne<Row>(
      'select manifest, created_at, updated_at from review_policies where org_id = $1 and slug = $2',
      [orgId, slug],
    );
    if (!row) return null;
    const usedBy = await this.sql.query<PolicyUser>(USED_BY, [orgId, slug]);
    return { ...view(row), usedBy };
  }
}
