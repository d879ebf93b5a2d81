/**
 * Waiting until something another process changes is done: `read` it until `done` says so, woken by
 * its events on the bus (`pattern`, one subject per change) and backed by a poll with backoff (100 ms
 * doubling to 1 s) for the events of a process whose bus this one does not share (the in-process bus
 * without NATS). It ends when `done`, at the deadline, or when `signal` aborts, with the last read.
 */
import type { Logger } from '../log.js';
import type { Bus, Subscription } from './bus.js';

const FIRST_POLL_MS = 100;
const MAX_POLL_MS = 1_000;

export interface WaitUntilOptions {
  /** At most this long (ms); Infinity: until `done` or the abort. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/** Reads until `done(value)`, the deadline or the abort; resolves with the last value read. */
export async function waitUntil<T>(
  deps: { bus: Bus; log: Logger },
  pattern: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  options: WaitUntilOptions,
): Promise<T> {
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
    subscription = await deps.bus.subscribe(pattern, kick);
  } catch (error) {
    deps.log.warn({ err: error, pattern }, 'events unavailable; waiting by polling only');
  }
  options.signal?.addEventListener('abort', kick, { once: true });
  try {
    let delay = FIRST_POLL_MS;
    for (;;) {
      kicked = false;
      const value = await read();
      const left = deadline - performance.now();
      if (done(value) || left <= 0 || options.signal?.aborted) return value;
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
