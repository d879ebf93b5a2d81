/**
 * The mission run object (docs/api.md#missions): `{id, mission, status, goal, input, plan, artifacts, review,
 * reviewUrl, error, createdAt, completedAt}` plus `reviewStage` (what an `awaiting_review` run waits
 * for: `plan` or `result`), `review.stage` (the stage the last decision decided), `team`, `createdBy`
 * and `pollUrl`. Built from the row's columns, the org in every query.
 */
import { z } from 'zod';
import {
  MISSION_REVIEW_STAGES,
  MISSION_RUN_STATUSES,
  MISSION_TASK_STATUSES,
  type MissionReview,
  type MissionRunContext,
  missionRunContextSchema,
  reviewRoundSchema,
  runReviewSchema,
} from '../../../machines/index.js';
import type { Db } from '../../platform/db/sql.js';
import { artifactViewSchema } from '../artifacts/index.js';
import type { MissionDefinition } from './definition.js';

/** A mission run's plan: its tasks with their state. */
const planViewSchema = z.object({
  tasks: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      agent: z.string(),
      skill: z.string().nullable(),
      instructions: z.string(),
      dependsOn: z.array(z.string()),
      status: z.enum(MISSION_TASK_STATUSES),
      runId: z.number().int().nullable(),
      output: z.record(z.string(), z.unknown()).nullable(),
    }),
  ),
});

/** `MissionRunView` as a schema (the OpenAPI document's MissionRun). */
export const missionRunViewSchema = z
  .object({
    id: z.number().int(),
    mission: z.string().nullable(),
    status: z.enum(MISSION_RUN_STATUSES),
    goal: z.string(),
    input: z.record(z.string(), z.unknown()),
    plan: planViewSchema.nullable(),
    /** The planner's plan when a reviewer approved an edit of it (`plan` is then the edit); else null. */
    draftPlan: planViewSchema.nullable(),
    /** Rounds of plan review that sent the plan back (request_changes), oldest first: the plan, the reason. */
    rounds: z.array(reviewRoundSchema),
    artifacts: z.array(artifactViewSchema),
    review: runReviewSchema
      .extend({
        stage: z
          .enum(MISSION_REVIEW_STAGES)
          .nullable()
          .meta({ description: 'The stage decided; null for decisions recorded before it was.' }),
      })
      .nullable(),
    reviewStage: z.enum(MISSION_REVIEW_STAGES).nullable(),
    reviewUrl: z.string(),
    error: missionRunContextSchema.shape.error,
    team: z.array(z.object({ agent: z.string(), role: z.string() })),
    createdBy: z.string(),
    createdAt: z.iso.datetime(),
    completedAt: z.iso.datetime().nullable(),
    pollUrl: z.string(),
  })
  .meta({ description: 'A mission run.' });
/** A mission run as the API shows it. */
export type MissionRunView = z.output<typeof missionRunViewSchema>;

/** The path of a mission run's resource (`pollUrl`). */
export function missionRunPath(id: number): string {
  return `/api/v1/mission-runs/${id}`;
}

interface Row {
  id: number;
  mission_slug: string | null;
  status: MissionRunView['status'];
  goal: string;
  input: Record<string, unknown>;
  definition: MissionDefinition;
  plan: MissionRunView['plan'];
  /** The projected decision; one stored before the stage was recorded has no `stage`. */
  review: (Omit<MissionReview, 'stage'> & { stage?: MissionReview['stage'] }) | null;
  error: MissionRunContext['error'];
  snapshot: {
    context?: {
      reviewStage?: 'plan' | 'result' | null;
      draftPlan?: MissionRunView['draftPlan'] | undefined;
      planRounds?: MissionRunView['rounds'] | undefined;
    };
  };
  created_by: string;
  created_at: Date;
  completed_at: Date | null;
}

const COLUMNS = `id, mission_slug, status, goal, input, definition, plan, review, error, snapshot, created_by,
  created_at, completed_at`;

function view(row: Row, baseUrl: string): MissionRunView {
  return {
    id: row.id,
    mission: row.mission_slug,
    status: row.status,
    goal: row.goal,
    input: row.input,
    plan: row.plan,
    draftPlan: row.snapshot.context?.draftPlan ?? null,
    rounds: row.snapshot.context?.planRounds ?? [],
    artifacts: [],
    review: row.review && { ...row.review, stage: row.review.stage ?? null },
    reviewStage: row.snapshot.context?.reviewStage ?? null,
    reviewUrl: `${baseUrl}/review/missions/${row.id}`,
    error: row.error,
    team: row.definition.team,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    completedAt: row.completed_at ? row.completed_at.toISOString() : null,
    pollUrl: missionRunPath(row.id),
  };
}

/** Mission run `id` of org `orgId` (without its artifacts), or null. */
export async function readMissionRun(
  db: Db,
  orgId: number,
  id: number,
  baseUrl: string,
): Promise<MissionRunView | null> {
  const row = await db.maybeOne<Row>(`select ${COLUMNS} from mission_runs where id = $1 and org_id = $2`, [
    id,
    orgId,
  ]);
  return row ? view(row, baseUrl) : null;
}

/** A page of an org's mission runs, newest first, and whether more follow. */
export async function readMissionRuns(
  db: Db,
  orgId: number,
  filter: {
    status?: string | undefined;
    before?: { createdAt: Date; id: number } | undefined;
    limit: number;
  },
  baseUrl: string,
): Promise<{ missionRuns: MissionRunView[]; more: boolean }> {
  const values: unknown[] = [orgId];
  const param = (value: unknown) => `$${values.push(value)}`;
  const where = ['org_id = $1'];
  if (filter.status !== undefined) where.push(`status = ${param(filter.status)}`);
  if (filter.before !== undefined) {
    where.push(`(created_at, id) < (${param(filter.before.createdAt)}, ${param(filter.before.id)})`);
  }
  const rows = await db.query<Row>(
    `select ${COLUMNS} from mission_runs where ${where.join(' and ')}
      order by created_at desc, id desc limit ${param(filter.limit + 1)}`,
    values,
  );
  const more = rows.length > filter.limit;
  return { missionRuns: (more ? rows.slice(0, filter.limit) : rows).map((r) => view(r, baseUrl)), more };
}
