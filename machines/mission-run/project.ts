import type { SnapshotFrom } from 'xstate';
import { statusOf } from '../shared/status.js';
import type { MissionRunContext } from './context.js';
import type { MissionRunMachine } from './machine.js';

/** A mission run's statuses (docs/api.md "Missions"). */
export const MISSION_RUN_STATUSES = [
  'planning',
  'awaiting_review',
  'executing',
  'completed',
  'failed',
  'cancelled',
] as const;

/** A mission run's status. */
export type MissionRunStatus = (typeof MISSION_RUN_STATUSES)[number];

/** The columns of a mission run's row that the host stores for querying. */
export interface MissionRunProjection {
  status: MissionRunStatus;
  plan: MissionRunContext['plan'];
  error: MissionRunContext['error'];
  review: MissionRunContext['decision'];
  reviewStage: MissionRunContext['reviewStage'];
  completedAt: string | null;
}

/** The queryable columns of a mission run's snapshot. */
export function projectMissionRun(
  snapshot: Pick<SnapshotFrom<MissionRunMachine>, 'value' | 'context'>,
): MissionRunProjection {
  const { context } = snapshot;
  return {
    status: statusOf(snapshot.value, MISSION_RUN_STATUSES, 'mission-run'),
    plan: context.plan,
    error: context.error,
    review: context.decision,
    reviewStage: context.reviewStage,
    completedAt: context.completedAt,
  };
}
