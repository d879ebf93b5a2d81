/**
 * What reviewers told an agent (docs/mcp.md#domain-tools `learnings`): from its runs, each rejection (with
 * the reason given, if any), each approval that came with a note, and each down-rating (with its
 * feedback note), newest first. `topic` keeps those whose note, skill/workflow slug or name contains
 * it (case-insensitive).
 */
import type { Sql } from '../../platform/db/sql.js';

/** One thing a reviewer told the agent. */
export interface Learning {
  kind: 'rejected' | 'approved' | 'down_rated';
  runId: number;
  runKind: 'skill' | 'workflow';
  slug: string;
  name: string;
  /** The reject reason, approve note or feedback note (null: none given). */
  note: string | null;
  /** Who: the reviewer the decision was made for, else the caller that made it; null for ratings. */
  by: string | null;
  at: string;
}

/** Runs read per call at most (the newest of the agent's). */
const SCANNED_RUNS = 2_000;

/** The learnings of `agentSlug` (null: every run of the org), at most `limit`. */
export async function agentLearnings(
  sql: Sql,
  orgId: number,
  agentSlug: string | null,
  topic: string | null,
  limit: number,
): Promise<Learning[]> {
  const rows = await sql.query<Omit<Learning, 'at'> & { at: string }>(
    `with r as (
       select id, kind, slug, name, review::jsonb as review, rating, feedback_note, feedback_at
         from runs where org_id = $1 and ($2::text is null or agent_slug = $2)
        order by created_at desc, id desc limit ${SCANNED_RUNS}
     ), told as (
       select case review ->> 'decision' when 'rejected' then 'rejected' else 'approved' end as kind,
              id, kind as run_kind, slug, name,
              case review ->> 'decision' when 'rejected' then review ->> 'reason' else review ->> 'note' end as note,
              coalesce(review ->> 'onBehalfOf', review ->> 'by') as by, (review ->> 'at')::timestamptz as at
         from r
        where review ->> 'decision' = 'rejected' or (review ->> 'decision' = 'approved' and review ->> 'note' is not null)
       union all
       select 'down_rated', id, kind, slug, name, feedback_note, null, feedback_at from r where rating = 'down'
     )
     select kind, id as "runId", run_kind as "runKind", slug, name, note, by, at
       from told
      where $3::text is null
         or strpos(lower(coalesce(note, '') || ' ' || slug || ' ' || name), lower($3)) > 0
      order by at desc nulls last, id desc
      limit $4`,
    [orgId, agentSlug, topic, limit],
  );
  return rows.map((r) => ({ ...r, at: new Date(r.at).toISOString() }));
}
