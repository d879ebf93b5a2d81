/**
 * The run object of the API (docs/api.md "Runs"): what GET /runs/:id, list items and
 * the answers of approve/reject/cancel/feedback carry. Built from the row's projected columns (never
 * from the snapshot), with the org in every query.
 *
 * PostgreSQL renders it, as JSON text (`runViewJson`): the run's JSON columns are passed through as
 * stored instead of being parsed and serialized again, so GET /runs/:id writes the text as it comes
 * (the hottest read there is) and everything else parses one string. This is the only renderer.
 */

import { z } from 'zod';
import {
  type ReviewRound,
  RUN_STATUSES,
  type RunReview,
  type RunStatus,
  reviewRoundSchema,
  runReviewSchema,
  SKILL_RUN_REVIEW_STATES,
} from '../../../machines/index.js';
import type { FusedRead } from '../../platform/auth/authenticate.js';
import type { Sql } from '../../platform/db/sql.js';
import { type BatchLoader, createBatchLoader } from '../../platform/util/batch-loader.js';

/** A run as the API shows it. */
export interface RunView {
  id: number;
  kind: 'skill' | 'workflow';
  slug: string;
  name: string;
  status: RunStatus;
  /** Skill runs: `auto` (never entered review), `pending`, `approved`, `rejected`; workflow runs: null. */
  reviewState: (typeof SKILL_RUN_REVIEW_STATES)[number] | null;
  pausedAt: string | null;
  input: unknown;
  output: unknown;
  /**
   * What a reviewer's edit replaced: a skill run's draft as the model wrote it, a workflow run's
   * edited steps' outputs as they were (step → output); null when nothing was edited.
   */
  draftOutput: unknown;
  stepResults: Record<string, { output: unknown; copied?: true }>;
  error: unknown;
  review: RunReview | null;
  /**
   * The rounds of review that sent the draft back (decisions.md §15 "Request changes"), oldest first:
   * the draft as it was and the reviewer's reason. Empty when there were none.
   */
  rounds: ReviewRound[];
  /** The tool calls of the run's tool loop, in the order the model asked for them (docs/api.md#runs). */
  toolCalls: ToolCallView[];
  agentSlug: string | null;
  /** The mission run this run is a task (or the planner) of; null for other runs. */
  missionRunId: number | null;
  workspaceSha: string | null;
  traceId: string;
  rating: 'up' | 'down' | null;
  feedbackNote: string | null;
  feedbackAt: string | null;
  createdBy: string;
  createdAt: string;
  completedAt: string | null;
  /** The run this one forks, and the step it executes from (null for a skill run); null when no fork. */
  forkOf: { runId: number; fromStep: string | null } | null;
  /** The runs that fork this one, oldest first. */
  forks: number[];
  /** The skill run this one replays, or null. */
  replayOf: number | null;
  /** An evaluation's replay: never in the review queue, on a webhook or in `GET /runs` unless asked. */
  shadow: boolean;
  /** The object instances the run used: named in its body (`input`) or returned by its tools (`tool`). */
  objects: Array<{ id: number; slug: string; title: string; via: 'input' | 'tool' }>;
  pollUrl: string;
  reviewUrl: string;
}

/** One recorded tool call of a run. */
export interface ToolCallView {
  id: string;
  tool: string;
  /** The arguments the model sent (its text, when it was not a JSON object). */
  arguments: unknown;
  status: 'running' | 'ok' | 'error';
  result: unknown;
  error: { code: string; message: string; details?: Record<string, unknown> } | null;
  startedAt: string;
  completedAt: string | null;
  /** Present on a replay's call answered from the replayed run's record (docs/api.md "Replay a skill run"). */
  replayed?: true;
}

const isoOrNull = z.iso.datetime().nullable();

/** `ToolCallView` as a schema. */
export const toolCallViewSchema = z
  .object({
    id: z.string(),
    tool: z.string(),
    arguments: z.unknown(),
    status: z.enum(['running', 'ok', 'error']),
    result: z.unknown(),
    error: z
      .object({
        code: z.string(),
        message: z.string(),
        details: z.record(z.string(), z.unknown()).optional(),
      })
      .nullable(),
    startedAt: z.iso.datetime(),
    completedAt: isoOrNull,
    replayed: z.literal(true).optional(),
  })
  .meta({
    description: 'A tool call of a run: recorded before it executes (running) and after (ok or error).',
  });

/** `RunView` as a schema (the OpenAPI document's Run). */
export const runViewSchema = z
  .object({
    id: z.number().int(),
    kind: z.enum(['skill', 'workflow']),
    slug: z.string(),
    name: z.string(),
    status: z.enum(RUN_STATUSES),
    reviewState: z.enum(SKILL_RUN_REVIEW_STATES).nullable(),
    pausedAt: z.string().nullable(),
    input: z.unknown(),
    output: z.unknown(),
    draftOutput: z.unknown(),
    stepResults: z
      .record(z.string(), z.object({ output: z.unknown(), copied: z.literal(true).optional() }))
      .nullable(),
    error: z.unknown(),
    review: runReviewSchema.nullable(),
    rounds: z.array(reviewRoundSchema).meta({
      description:
        'Rounds of review that sent the draft back (request_changes): the draft and the reason, oldest first.',
    }),
    toolCalls: z.array(toolCallViewSchema),
    agentSlug: z.string().nullable(),
    missionRunId: z.number().int().nullable(),
    workspaceSha: z.string().nullable(),
    traceId: z.string().nullable(),
    rating: z.enum(['up', 'down']).nullable(),
    feedbackNote: z.string().nullable(),
    feedbackAt: isoOrNull,
    createdBy: z.string(),
    createdAt: z.iso.datetime(),
    completedAt: isoOrNull,
    forkOf: z.object({ runId: z.number().int(), fromStep: z.string().nullable() }).nullable(),
    forks: z.array(z.number().int()),
    replayOf: z.number().int().nullable(),
    shadow: z.boolean(),
    objects: z.array(
      z.object({ id: z.number().int(), slug: z.string(), title: z.string(), via: z.enum(['input', 'tool']) }),
    ),
    pollUrl: z.string(),
    reviewUrl: z.string(),
  })
  .meta({ description: 'A skill or workflow run.' });

/** The path of a run's resource (`pollUrl`). */
export function runPath(id: number): string {
  return `/api/v1/runs/${id}`;
}

/** `toISOString()` of a timestamptz column, in SQL (milliseconds truncated, as JS dates are). */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** A nullable text as a JSON string or null. */
const text = (expr: string) => `coalesce(to_json(${expr})::text, 'null')`;
/** A nullable json column, as stored, or null. */
const json = (column: string) => `coalesce(${column}::text, 'null')`;

/** The run's tool calls as a JSON array text, in the order the model asked for them. */
const toolCall = (extra: string) => `json_build_object(
    'id', c.call_id, 'tool', c.tool, 'arguments', coalesce(c.arguments, to_json(c.raw_arguments)),
    'status', c.status, 'result', c.result, 'error', c.error,
    'startedAt', ${iso('c.started_at')}, 'completedAt', ${iso('c.completed_at')}${extra})`;
/** `replayed: true` only on a replay's call answered from the original's record. */
const TOOL_CALLS = `coalesce((select json_agg(
    case when c.replayed then ${toolCall(`, 'replayed', true`)} else ${toolCall('')} end
    order by c.turn, c.position)::text
  from tool_calls c where c.run_id = runs.id), '[]')`;

/** The run a run forks, as JSON text (null when it is no fork). */
const FORK_OF = `case when runs.fork_of_run_id is null then 'null' else json_build_object(
    'runId', runs.fork_of_run_id, 'fromStep', runs.fork_from_step)::text end`;

/** The runs that fork a run, oldest first, as a JSON array text (index `runs_forks`). */
const FORKS = `coalesce((select json_agg(f.id order by f.id)::text
  from runs f where f.fork_of_run_id = runs.id and f.org_id = runs.org_id), '[]')`;

/** The object instances a run used, by id, as a JSON array text (`run_objects`' primary key). */
const OBJECTS = `coalesce((select json_agg(json_build_object(
    'id', o.id, 'slug', o.type_slug, 'title', o.title, 'via', l.via) order by l.object_id)::text
  from run_objects l join object_instances o on o.id = l.object_id
  where l.run_id = runs.id and o.org_id = runs.org_id), '[]')`;

/**
 * The SQL expression of a `runs` row's run object as JSON text; `baseUrl` is the SQL of BASE_URL
 * (a parameter) for `reviewUrl`. Keys in the order of `RunView`.
 */
export function runViewJson(baseUrl: string): string {
  const fields: Array<[string, string]> = [
    ['id', 'id::text'],
    ['kind', text('kind')],
    ['slug', text('slug')],
    ['name', text('name')],
    ['status', text('status')],
    ['reviewState', text('review_state')],
    ['pausedAt', text('paused_at')],
    ['input', json('input')],
    ['output', json('output')],
    ['draftOutput', json('draft_output')],
    ['stepResults', json('step_results')],
    ['error', json('error')],
    ['review', json('review')],
    ['rounds', `coalesce(review_rounds::text, '[]')`],
    ['toolCalls', TOOL_CALLS],
    ['agentSlug', text('agent_slug')],
    ['missionRunId', `coalesce(mission_run_id::text, 'null')`],
    ['workspaceSha', text('workspace_sha')],
    ['traceId', text('trace_id')],
    ['rating', text('rating')],
    ['feedbackNote', text('feedback_note')],
    ['feedbackAt', text(iso('feedback_at'))],
    ['createdBy', text('created_by')],
    ['createdAt', text(iso('created_at'))],
    ['completedAt', text(iso('completed_at'))],
    ['forkOf', FORK_OF],
    ['forks', FORKS],
    ['replayOf', `coalesce(replay_of_run_id::text, 'null')`],
    ['shadow', 'shadow::text'],
    ['objects', OBJECTS],
    ['pollUrl', text(`'/api/v1/runs/' || id`)],
    ['reviewUrl', text(`(${baseUrl})::text || '/review/runs/' || id`)],
  ];
  return `'{' || ${fields.map(([key, value], i) => `'${i ? ',' : ''}"${key}":' || ${value}`).join(' || ')} || '}'`;
}

/**
 * GET /runs/:id's read, fused into the statement that authenticates the caller
 * (src/platform/auth/authenticate.ts): the run of the token's org by id, as JSON text.
 */
export function fusedRunRead(baseUrl: () => string): FusedRead {
  return {
    sql: (org, key, param) =>
      `(select ${runViewJson(`${param(0)}::text`)} from runs where runs.org_id = ${org} and runs.id = ${key})`,
    values: () => [baseUrl()],
  };
}

/** A run of an org, as a key of the batched reader. */
export interface RunKey {
  orgId: number;
  id: number;
}

/**
 * Runs by (org, id) as JSON text, null where there is none: concurrent callers' pairs go out as one
 * statement per batch (src/platform/util/batch-loader.ts), each run still matched on its org. `baseUrl` is
 * read per batch.
 */
export function createRunReader(sql: Sql, baseUrl: () => string): BatchLoader<RunKey, string | null> {
  return createBatchLoader<RunKey, string | null>({
    async batch(keys) {
      const rows = await sql.prepared<{ ord: number; json: string }>(
        'run_view_batch',
        `select x.ord, ${runViewJson('$3::text')} as json
           from unnest($1::bigint[], $2::bigint[]) with ordinality as x(key_org_id, key_id, ord)
           join runs on runs.id = x.key_id and runs.org_id = x.key_org_id`,
        [keys.map((k) => k.orgId), keys.map((k) => k.id), baseUrl()],
      );
      const found: Array<string | null> = keys.map(() => null);
      for (const row of rows) found[row.ord - 1] = row.json;
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
  missionRunId?: number;
  createdAfter?: Date;
  /** Shadow runs (an evaluation's) instead of the others. */
  shadow?: boolean;
  /** Keyset cursor: strictly older than this (createdAt, id). */
  before?: { createdAt: Date; id: number };
  limit: number;
}

/** A page of runs, newest first, and whether more follow. */
export async function listRuns(
  sql: Sql,
  orgId: number,
  filter: RunFilter,
  baseUrl: string,
): Promise<{ runs: RunView[]; more: boolean }> {
  const values: unknown[] = [orgId];
  const where = ['org_id = $1', filter.shadow ? 'shadow' : 'not shadow'];
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
  if (filter.missionRunId !== undefined) where.push(`mission_run_id = ${param(filter.missionRunId)}`);
  if (filter.createdAfter !== undefined) where.push(`created_at > ${param(filter.createdAfter)}`);
  if (filter.before !== undefined) {
    where.push(`(created_at, id) < (${param(filter.before.createdAt)}, ${param(filter.before.id)})`);
  }
  const rows = await sql.query<{ json: string }>(
    `select ${runViewJson(param(baseUrl))} as json from runs where ${where.join(' and ')}
      order by created_at desc, id desc limit ${param(filter.limit + 1)}`,
    values,
  );
  const more = rows.length > filter.limit;
  return {
    runs: (more ? rows.slice(0, filter.limit) : rows).map((r) => JSON.parse(r.json) as RunView),
    more,
  };
}
