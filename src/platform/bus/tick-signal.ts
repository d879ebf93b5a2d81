/**
 * A wake signal sent at most once per turn of the event loop, however many commits asked for it in
 * that turn, and at most once per `minIntervalMs`: the job queue's (`sig.jobs.wake`) and a serving
 * process's outbox wake-up for its worker processes (`sig.outbox.wake`).
 *
 * The first ask after a quiet spell is sent at the end of its turn; one within `minIntervalMs` of
 * the last signal waits for the interval to end, and is sent then (never dropped). Under load a
 * serving process commits in most turns of its loop, and every signal is a write to the bus's socket
 * and a wake-up of every process that listens; the workers it wakes are busy then anyway, and an
 * outbox relay lingers between its passes (src/platform/outbox/relay.ts).
 *
 * The signals of one bus due in a turn go out together, from one callback at its end: a bus client
 * writes what one synchronous run of publishes queued in one write (NATS's flushes at the next
 * microtask), where a callback each let the microtasks between them flush each alone. A run's
 * creation asks for both signals above, so at a moderate load every accept wrote twice to NATS.
 */
import type { Bus } from './bus.js';

/** Per bus, the sends due at the end of this turn (one callback sends them all). */
const dueAtTurnEnd = new WeakMap<object, Array<() => void>>();

/** Runs `send` at the end of this turn, with the other sends due then on `bus`. */
function atTurnEnd(bus: object, send: () => void): void {
  const due = dueAtTurnEnd.get(bus);
  if (due) {
    due.push(send);
    return;
  }
  const sends = [send];
  dueAtTurnEnd.set(bus, sends);
  setImmediate(() => {
    dueAtTurnEnd.delete(bus);
    for (const fn of sends) fn();
  });
}

/** A function that signals `subject` on `bus` at the end of this turn (or of the interval), once. */
export function tickSignal(bus: Pick<Bus, 'signal'>, subject: string, minIntervalMs = 0): () => void {
  let queued = false;
  let last = Number.NEGATIVE_INFINITY;
  const send = () => {
    // Within the interval: wait out the rest of it. Also where a timer fired early, as one may by a
    // few milliseconds (it counts from the loop's cached clock, read before the turn that set it).
    const wait = last + minIntervalMs - performance.now();
    if (wait > 0) {
      // Then sent at the end of the timer's turn, with whatever else is due on the bus by then.
      setTimeout(() => atTurnEnd(bus, send), wait);
      return;
    }
    queued = false;
    last = performance.now();
    bus.signal(subject);
  };
  return () => {
    if (queued) return;
    queued = true;
    atTurnEnd(bus, send);
  };
}
