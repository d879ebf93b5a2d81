/**
 * The statuses and terminal events of runs and mission runs, defined once: the machines' projections,
 * the API's schemas (and so the generated client the web UI reads), the SQL that finds a stream's end
 * and the web UI's stream listeners all import these lists. No imports: the web UI's bundle takes them
 * without the machines.
 */

/** Every status a run can have (docs/api.md#runs): a skill run's and a workflow run's. */
export const RUN_STATUSES = [
  'running',
  'paused',
  'pending',
  'approved',
  'rejected',
  'completed',
  'failed',
  'cancelled',
] as const;

/** A run's status. */
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * A run's final statuses. Entering one records the run event of the same name, so these are also the
 * events that end every run's event stream.
 */
export const FINAL_RUN_STATUSES = [
  'completed',
  'failed',
  'cancelled',
] as const satisfies readonly RunStatus[];

/**
 * The events that end a skill run's stream besides the final ones: its review decision (a workflow's
 * `approved` resumes it, and its `rejected` is followed by `cancelled` in the same transition).
 */
export const SKILL_RUN_DECISION_EVENTS = ['approved', 'rejected'] as const;

/** A mission run's final statuses; entering one records the mission event of the same name. */
export const FINAL_MISSION_RUN_STATUSES = ['completed', 'failed', 'cancelled'] as const;

/** A proposal's final statuses; entering one emits the proposal event of the same name. */
export const FINAL_PROPOSAL_STATUSES = ['executed', 'failed', 'rejected', 'cancelled'] as const;
