import type { SnapshotFrom } from 'xstate';
import type { RunError, RunReview, StepResults } from '../shared/run.js';
import type { JsonObject } from '../shared/schemas.js';
import { statusOf } from '../shared/status.js';
import { RUN_STATUSES, type RunStatus } from '../shared/vocabulary.js';
import type { WorkflowRunMachine } from './machine.js';

/** A skill run's review statuses, which a workflow run (reviewed at its gates: `paused`) never has. */
type SkillReviewStatus = 'pending' | 'approved' | 'rejected';

/** A workflow run's statuses: the run statuses but a skill run's review statuses. */
export const WORKFLOW_RUN_STATUSES = RUN_STATUSES.filter(
  (status): status is Exclude<RunStatus, SkillReviewStatus> =>
    status !== 'pending' && status !== 'approved' && status !== 'rejected',
);

/** A workflow run's status. */
export type WorkflowRunStatus = (typeof WORKFLOW_RUN_STATUSES)[number];

/** The columns of a workflow run's row that the host stores for querying. */
export interface WorkflowRunProjection {
  status: WorkflowRunStatus;
  pausedAt: string | null;
  output: JsonObject | null;
  /** The outputs of the steps a reviewer edited, as they were before (step → output); else null. */
  draftOutput: Record<string, JsonObject> | null;
  error: RunError | null;
  review: RunReview | null;
  /** Always null: the review lane (`auto`…) is a skill-run notion. */
  reviewState: null;
  completedAt: string | null;
  stepResults: StepResults;
}

/** The queryable columns of a workflow run's snapshot. */
export function projectWorkflowRun(
  snapshot: Pick<SnapshotFrom<WorkflowRunMachine>, 'value' | 'context'>,
): WorkflowRunProjection {
  const { context } = snapshot;
  return {
    status: statusOf(snapshot.value, WORKFLOW_RUN_STATUSES, 'workflow-run'),
    pausedAt: context.pausedAt,
    output: context.output,
    draftOutput: context.draftOutput ?? null,
    error: context.error,
    review: context.review,
    reviewState: null,
    completedAt: context.completedAt,
    stepResults: context.stepResults,
  };
}
