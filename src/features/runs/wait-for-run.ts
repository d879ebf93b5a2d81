/**
 * Waiting for a run to settle, for `runtime_run_skill`. A run is *settled* when it has left `running`
 * and, for a skill run waiting in review (`pending`), once its draft exists (or the draft failed, which
 * makes the run `failed`): the caller then gets the draft it will be asked about.
 *
 * The wait follows the run's events on the bus (`evt.<org>.run.<id>.*`), backed by a poll
 * (src/platform/bus/wait-until.ts).
 */
import type { Principal } from '../../platform/auth/principal.js';
import type { Bus } from '../../platform/bus/bus.js';
import { runEventsPattern } from '../../platform/bus/subjects.js';
import { type WaitUntilOptions, waitUntil } from '../../platform/bus/wait-until.js';
import type { Logger } from '../../platform/log.js';
import type { RunService } from './service.js';
import type { RunView } from './view.js';

/** True when a skill run's wait is over (see the file comment). */
export function isSettled(run: RunView): boolean {
  if (run.status === 'running') return false;
  if (run.status === 'pending') return run.kind !== 'skill' || run.slug in run.stepResults;
  return true;
}

export interface WaitDeps {
  runs: RunService;
  bus: Bus;
  log: Logger;
}

/**
 * Resolves with run `runId` once it is settled (or once `until` holds), or as it is after
 * `timeoutMs` or an abort.
 */
export function waitForRun(
  deps: WaitDeps,
  principal: Principal,
  runId: number,
  options: WaitUntilOptions & { until?: (run: RunView) => boolean },
): Promise<RunView> {
  return waitUntil(
    deps,
    runEventsPattern(String(principal.orgId), runId),
    () => deps.runs.get(principal, runId),
    options.until ?? isSettled,
    options,
  );
}
