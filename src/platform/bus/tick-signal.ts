/**
 * A wake signal sent at most once per turn of the event loop, however many commits asked for it in
 * that turn: the job queue's (`sig.jobs.wake`) and a serving process's outbox wake-up for its worker
 * processes (`sig.outbox.wake`).
 */
import type { Bus } from './bus.js';

/** A function that signals `subject` on `bus` at the end of this turn, once. */
export function tickSignal(bus: Pick<Bus, 'signal'>, subject: string): () => void {
  let queued = false;
  return () => {
    if (queued) return;
    queued = true;
    setImmediate(() => {
      queued = false;
      bus.signal(subject);
    });
  };
}
