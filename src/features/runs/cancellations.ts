/**
 * Run cancellations as they reach the steps this process executes: a step's work (model calls,
 * their retry waits, tool calls) gets a signal aborted when its run is cancelled, wherever the cancel
 * was made. One live subscription per process to every run's `cancelled` event
 * (`evt.*.run.*.cancelled`, published by the outbox after the cancel committed) aborts the signals of
 * the run's executions here.
 *
 * No cancel is missed between the step's read of the run and its work: an execution is watched before
 * it reads the run, so a cancel committed after that read is published after the watch began, and one
 * committed before it is seen by the read (the run is over, nothing executes).
 */
import type { Bus, Subscription } from '../../platform/bus/bus.js';
import { EVENT_ROOT, parseEventSubject } from '../../platform/bus/subjects.js';
import type { Logger } from '../../platform/log.js';

/** The reason a cancelled run's signal is aborted with. */
export class RunCancelledError extends Error {
  override readonly name = 'RunCancelledError';
  constructor(readonly runId: number) {
    super(`run ${runId} was cancelled`);
  }
}

/** Every run's `cancelled` event, every org. */
const CANCELLED_PATTERN = `${EVENT_ROOT}.*.run.*.cancelled`;

export interface RunCancellations {
  /**
   * Runs `work` with a signal aborted (reason `RunCancelledError`) if run `runId` of org `orgId` is
   * cancelled before `work` settles.
   */
  watch<T>(orgId: number, runId: number, work: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** Subscribes (before the workers start). Without the bus, cancels reach steps between tool calls only. */
  start(): Promise<void>;
  stop(): void;
}

export function createRunCancellations(bus: Bus, log: Logger): RunCancellations {
  const watched = new Map<string, Set<AbortController>>();
  let subscription: Subscription | null = null;

  return {
    async watch(orgId, runId, work) {
      const key = `${orgId}:${runId}`;
      const controller = new AbortController();
      let set = watched.get(key);
      if (!set) {
        set = new Set();
        watched.set(key, set);
      }
      set.add(controller);
      try {
        return await work(controller.signal);
      } finally {
        set.delete(controller);
        if (set.size === 0 && watched.get(key) === set) watched.delete(key);
      }
    },
    async start() {
      try {
        subscription = await bus.subscribe(CANCELLED_PATTERN, (msg) => {
          const parsed = parseEventSubject(msg.subject);
          if (!parsed) return;
          const controllers = watched.get(`${parsed.orgId}:${parsed.id}`);
          if (!controllers) return;
          const reason = new RunCancelledError(Number(parsed.id));
          for (const controller of controllers) controller.abort(reason);
        });
      } catch (error) {
        log.warn(
          { err: error },
          'run cancellations unavailable; a cancel stops steps between tool calls only',
        );
      }
    },
    stop() {
      subscription?.unsubscribe();
      subscription = null;
    },
  };
}
