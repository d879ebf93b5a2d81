import type { SnapshotFrom } from 'xstate';
import type { ReviewRound, RunError, RunReview, StepResults } from '../shared/run.js';
import type { JsonObject } from '../shared/schemas.js';
import { statusOf } from '../shared/status.js';
import { RUN_STATUSES, type RunStatus } from '../shared/vocabulary.js';
import type { SkillRunReviewState } from './context.js';
import type { SkillRunMachine } from './machine.js';

/** A skill run's statuses (the run statuses of docs/api.md#runs minus `paused`). */
export const SKILL_RUN_STATUSES = RUN_STATUSES.filter(
  (status): status is Exclude<RunStatus, 'paused'> => status !== 'paused',
);

/** A skill run's status. */
export type SkillRunStatus = (typeof SKILL_RUN_STATUSES)[number];

/** The columns of a skill run's row that the host stores for querying. */
export interface SkillRunProjection {
  status: SkillRunStatus;
  /** Always null: only workflow runs pause at a step. */
  pausedAt: null;
  output: JsonObject | null;
  /** The model's draft when a reviewer approved an edit of it; else null. */
  draftOutput: JsonObject | null;
  error: RunError | null;
  review: RunReview | null;
  reviewState: SkillRunReviewState;
  completedAt: string | null;
  stepResults: StepResults;
  /** The rounds of review that sent the draft back (decisions.md §15), oldest first; null: none. */
  rounds: ReviewRound[] | null;
}

/** The queryable columns of a skill run's snapshot. */
export function projectSkillRun(
  snapshot: Pick<SnapshotFrom<SkillRunMachine>, 'value' | 'context'>,
): SkillRunProjection {
  const { context } = snapshot;
  return {
    status: statusOf(snapshot.value, SKILL_RUN_STATUSES, 'skill-run'),
    pausedAt: null,
    output: context.output,
    draftOutput: context.draftOutput ?? null,
    error: context.error,
    review: context.review,
    reviewState: context.reviewState,
    completedAt: context.completedAt,
    stepResults: context.stepResults,
    rounds: context.rounds?.length ? context.rounds : null,
  };
}
