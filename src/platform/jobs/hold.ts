/**
 * Workers that step back while a serving process's accepts are saturated (issue 37).
 *
 * A serving process that runs no jobs (`r3 serve` with worker processes, or with
 * R3_WORKER_CONCURRENCY=0 beside `r3 work`) writes what its requests ask through the actor host's
 * batchers: while one statement of a kind is in flight, the next requests' transitions queue and go
 * out together (batcher.ts). Creations go pipelined on one connection, and a second statement goes
 * out behind the one in flight only once `CREATION_FILL` transitions queue (registry.ts): a batch
 * that big means the accepts come faster than one statement at a time can take them. The serving
 * process then signals `sig.jobs.hold` on the bus, at most once per `SIGNAL_EVERY_MS`. Every
 * process that runs jobs holds its job workers' share of the pool to one connection for `HOLD_MS`
 * after each signal (lanes.ts, "held"), so the accepts get PostgreSQL and the CPU first; the urgent
 * lane (a running mission's next tasks) is not held. Once the accepts stop queueing, the signals stop
 * and the workers take their share again within `HOLD_MS`.
 *
 * Smaller batches form at any load the accepts absorb — the more so on a machine whose round trips
 * are slow — and do not signal: a lower threshold held the workers at a load the accepts absorbed,
 * and on a slow VM they fell behind by seconds (docs/performance.md, "The hold only while the
 * accepts are saturated").
 *
 * A process that runs jobs never signals: in it, the batchers carry the jobs' own transitions too,
 * and a batch says nothing about requests waiting. What the hold buys and costs (more accepts while
 * workers execute, fewer runs completed meanwhile, the open-loop latency unchanged) is measured in
 * docs/performance.md, "Workers that step back while accepts queue" and the sections after it.
 */
import type { Bus } from '../bus/bus.js';
import { tickSignal } from '../bus/tick-signal.js';

/** The signal a serving process sends while its accepts are saturated. */
export const JOBS_HOLD_SIGNAL = 'sig.jobs.hold';

/** At most one signal per this many milliseconds. */
export const SIGNAL_EVERY_MS = 50;

/** How long the workers stay held after a signal (ms): a few signals' worth, so none lapses between them. */
export const HOLD_MS = 200;

/**
 * The serving side: a function to tell the size of every batch that goes out (the actor host's
 * `onBatch`); one of `saturated` transitions or more (the creations' `CREATION_FILL`) signals the
 * workers to hold.
 */
export function signalWhenSaturated(bus: Pick<Bus, 'signal'>, saturated: number): (size: number) => void {
  const signal = tickSignal(bus, JOBS_HOLD_SIGNAL, SIGNAL_EVERY_MS);
  return (size) => {
    if (size >= saturated) signal();
  };
}

/**
 * The workers' side: holds `hold` (the pool's `holdJobs`) for `HOLD_MS` at every signal, until the
 * returned function unsubscribes.
 */
export async function holdWhenSignalled(
  bus: Pick<Bus, 'subscribe'>,
  hold: (ms: number) => void,
): Promise<() => void> {
  const subscription = await bus.subscribe(JOBS_HOLD_SIGNAL, () => hold(HOLD_MS));
  return () => subscription.unsubscribe();
}
