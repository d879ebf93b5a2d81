/**
 * Waiting for a run to settle, for `runtime_run_skill`. A run is *settled* when it has left `running`
 * and, for a skill run waiting in review (`pending`), once its draft exists (or the draft failed, which
 * makes the run `failed`): the caller then gets the draft it will be asked about.
 *
 * The wait follows the run's events on the bus (`evt.<org>.run.<id>.*`) and re-reads the run when one
 * arrives; a poll with backoff (100 ms doubling to 1 s) backs it up, for the events another process
 * publishes on a bus this one does not share (the in-process bus without NATS). It ends at the deadline
 * or when `signal` aborts, with the run as it then is.
 */
import type { Principal } from '../../platform/auth/principal.js';
import type { Bus, Subscription } from '../../platform/bus/bus.js';
import { runEventsPattern } from '../../platform/bus/subjects.js';
import type { Logger } from '../../platform/log.js';
import type { RunService } from './service.js';
import type { RunView } from './view.js';

const FIRST_POLL_MS = 100;
const MAX_POLL_MS = 1_000;

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

/** Resolves with run `runId` once it is settled, or as it is after `timeoutMs` or an abort. */
export async function waitForRun(
  deps: WaitDeps,
  principal: Principal,
  runId: number,
  options: { timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<RunView> {
  const deadline = performance.now() + options.timeoutMs;
  let kicked = false;
  let wake: (() => void) | null = null;
  const kick = () => {
    kicked = true;
    wake?.();
  };
  let subscription: Subscription | null = null;
  try {
    // Subscribed before the first read, so an event between the read and the wait is not lost.
    subscription = await deps.bus.subscribe(runEventsPattern(String(principal.orgId), runId), kick);
  } catch (error) {
    deps.log.warn({ err: error, runId }, 'run events unavailable; waiting by polling only');
  }
  options.signal?.addEventListener('abort', kick, { once: true });
  try {
    let delay = FIRST_POLL_MS;
    for (;;) {
      kicked = false;
      const run = await deps.runs.get(principal, runId);
      const left = deadline - performance.now();
      if (isSettled(run) || left <= 0 || options.signal?.aborted) return run;
      if (!kicked) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(delay, left));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
      delay = Math.min(delay * 2, MAX_POLL_MS);
    }
  } finally {
    subscription?.unsubscribe();
    options.signal?.removeEventListener('abort', kick);
  }
}
