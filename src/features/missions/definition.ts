/**
 * What a mission run executes, fixed when it starts (`mission_runs.definition`): the mission's name,
 * team, planner, review and limits, from the applied mission (by slug) or an ad hoc request.
 */
import type { MissionLimits } from '../workspace/index.js';

/** A team member as a run keeps it. */
export interface TeamMember {
  agent: string;
  role: string;
}

/** A mission run's definition. */
export interface MissionDefinition {
  name: string;
  team: TeamMember[];
  planner: string;
  review: 'plan' | 'result' | 'both';
  limits: MissionLimits;
}

/** The planner's child runs are named `#plan-<attempt>` (never a task id: `#` is not allowed in one). */
export function plannerTaskId(attempt: number): string {
  return `#plan-${attempt}`;
}

/** The attempt of a planner's child run, or null for a task's. */
export function plannerAttemptOf(taskId: string): number | null {
  const match = /^#plan-(\d+)$/.exec(taskId);
  return match ? Number(match[1]) : null;
}
