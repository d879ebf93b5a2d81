/**
 * The run object of the API (service-api "Run", decisions §5): what GET /runs/:id, list items and
 * the answers of approve/reject/cancel/feedback carry. Built from the row's projected columns (never
 * from the snapshot), with the org in every query.
 */
import type { Sql } from '../db/sql.js';
import { type BatchLoader, createBatchLoader } from '../util/batch-loader.js';

/** A run as the API shows it. */
export interface RunView {
  id: number;
  kind: 'skill' | 'workflow';
  slug: string;
  name: string;
  status: string;
  /** Skill runs: `auto` (never entered review), `pending`, `approved`, `rejected`; workflow runs: null. */
  reviewState: string | null;
  pausedAt: string | null;
  input: unknown;
  output: unknown;
  stepResults: Record<string, { output: unknown }>;
  error: unknown;
  review: unknown;
  agentSlug: string | null;
  workspaceSha: string | null;
  traceId: string;
  rating: 'up' | 'down' | null;
  feedbackNote: string | null;
  feedbackAt: string | null;
  createdBy: string;
  createdAt: string;
  completedAt: string | null;
  pollUrl: string;
  reviewUrl: string;
}

/** The columns a view needs. */
export const RUN_VIEW_COLUMNS = `id, kind, slug, name, status, review_state, paused_at, input, output, step_results,
  error, review, agent_slug, workspace_sha, trace_id, rating, feedback_note, feedback_at, created_by,
  created_at, completed_at`;

/** A row of `RUN_VIEW_COLUMNS`. */
export interface RunViewRow {
  id: number;
  kind: 'skill' | 'workflow';
  slug: string;
  name: string;
  status: string;
  review_state: string | null;
  paused_at: string | null;
  input: unknown;
  output: unknown;
  step_results: Record<string, { output: unknown }>;
  error: unknown;
  review: unknown;
  agent_slug: string | null;
  workspace_sha: string | null;
  trace_id: string;
  rating: 'up' | 'down' | null;
  feedback_note: string | null;
  feedback_at: Date | null;
  created_by: string;
  created_at: Date;
  completed_at: Date | null;
}

/** The path of a run's resource (`pollUrl`). */
export function runPath(id: number): string {
  return `/api/v1/runs/${id}`;
}

/** Turns a row into the run object; `baseUrl` makes `reviewUrl`. */
export function toRunView(row: RunViewRow, baseUrl: string): RunView {
  return {
    id: row.id,
    kind: row.kind,
    slug: row.slug,
    name: row.name,
    status: row.status,
    reviewState: row.review_state,
    pausedAt: row.paused_at,
    input: row.input,
    output: row.output,
    stepResults: row.step_results,
    error: row.error,
    review: row.review,
    agentSlug: row.agent_slug,
    workspaceSha: row.workspace_sha,
    traceId: row.trace_id,
    rating: row.rating,
    feedbackNote: row.feedback_note,
    feedbackAt: row.feedback_at?.toISOString() ?? null,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    completedAt: row.completed_at?.toISOString() ?? null,
    pollUrl: runPath(row.id),
    reviewUrl: `${baseUrl}/review/runs/${row.id}`,
  };
}

/** One run of the org, or null. */
export async function readRun(sql: Sql, orgId: number, id: number): Promise<RunViewRow | null> {
  const rows = await sql.prepared<RunViewRow>(
    'run_view',
    `select ${RUN_VIEW_COLUMNS} from runs where id = $1 and org_id = $2`,
    [id, orgId],
  );
  return rows[0] ?? null;
}

/** A run of an org, as a key of the batched reader. */
export interface RunKey {
  orgId: number;
  id: number;
}

/**
 * `readRun` for concurrent callers: their (org, id) pairs go out as one statement per batch
 * (src/util/batch-loader.ts), each run still matched on its org.
 */
export function createRunReader(sql: Sql): BatchLoader<RunKey, RunViewRow | null> {
  return createBatchLoader<RunKey, RunViewRow | null>({
    async batch(keys) {
      const rows = await sql.prepared<RunViewRow & { ord: number }>(
        'run_view_batch',
        `select x.ord, ${RUN_VIEW_COLUMNS}
           from unnest($1::bigint[], $2::bigint[]) with ordinality as x(key_org_id, key_id, ord)
           join runs on runs.id = x.key_id and runs.org_id = x.key_org_id`,
        [keys.map((k) => k.orgId), keys.map((k) => k.id)],
      );
      const found: Array<RunViewRow | null> = keys.map(() => null);
      for (const row of rows) found[row.ord - 1] = row;
      return found;
    },
  });
}

/** Filters of `GET /runs`. */
export interface RunFilter {
  /** A run status, or `auto` (skill runs that never entered review). */
  status?: string;
  kind?: 'skill' | 'workflow';
  rating?: 'up' | 'down';
  skillSlug?: string;
  workflowSlug?: string;
  agentSlug?: string;
  createdAfter?: Date;
  /** Keyset cursor: strictly older than this (createdAt, id). */
  before?: { createdAt: Date; id: number };
  limit: number;
}

/** A page of runs, newest first, and whether more follow. */
export async function listRuns(
  sql: Sql,
  orgId: number,
  filter: RunFilter,
): Promise<{ rows: RunViewRow[]; more: boolean }> {
  const values: unknown[] = [orgId];
  const where = ['org_id = $1'];
  const param = (value: unknown) => `$${values.push(value)}`;
  if (filter.status === 'auto') where.push(`review_state = 'auto'`);
  else if (filter.status !== undefined) where.push(`status = ${param(filter.status)}`);
  if (filter.kind !== undefined) where.push(`kind = ${param(filter.kind)}`);
  if (filter.rating !== undefined) where.push(`rating = ${param(filter.rating)}`);
  const slugs: string[] = [];
  if (filter.skillSlug !== undefined) slugs.push(`(kind = 'skill' and slug = ${param(filter.skillSlug)})`);
  if (filter.workflowSlug !== undefined)
    slugs.push(`(kind = 'workflow' and slug = ${param(filter.workflowSlug)})`);
  if (slugs.length > 0) where.push(`(${slugs.join(' or ')})`);
  if (filter.agentSlug !== undefined) where.push(`agent_slug = ${param(filter.agentSlug)}`);
  if (filter.createdAfter !== undefined) where.push(`created_at > ${param(filter.createdAfter)}`);
  if (filter.before !== undefined) {
    where.push(`(created_at, id) < (${param(filter.before.createdAt)}, ${param(filter.before.id)})`);
  }
  const rows = await sql.query<RunViewRow>(
    `select ${RUN_VIEW_COLUMNS} from runs where ${where.join(' and ')}
      order by created_at desc, id desc limit ${param(filter.limit + 1)}`,
    values,
  );
  const more = rows.length > filter.limit;
  return { rows: more ? rows.slice(0, filter.limit) : rows, more };
}
