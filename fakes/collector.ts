/**
 * Awaiting events without sleeping: a deferred, a timeout that names what was awaited, and a collector
 * whose `until()` resolves when pushed items satisfy a predicate (the fakes record what they receive
 * in one; tests await it).
 */

/** A promise with its resolve/reject exposed. */
export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

/** Creates a `Deferred`. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Default time a test waits for an event before failing with a description. */
export const WAIT_TIMEOUT_MS = 5_000;

/** Resolves like `promise`, or rejects after `ms` with `timed out waiting for <label>`. */
export async function withTimeout<T>(promise: Promise<T>, label: string, ms = WAIT_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${label}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Items pushed by a handler, awaitable by a test. */
export interface Collector<T> {
  readonly items: readonly T[];
  push(item: T): void;
  /** Resolves with all items once `predicate(items)` holds (checked now and on every push). */
  until(predicate: (items: readonly T[]) => boolean, label: string, ms?: number): Promise<readonly T[]>;
  /** Resolves once at least `count` items arrived. */
  untilCount(count: number, label: string, ms?: number): Promise<readonly T[]>;
}

/** Creates an empty `Collector`. */
export function createCollector<T>(): Collector<T> {
  const items: T[] = [];
  const waiters = new Set<{ predicate: (items: readonly T[]) => boolean; done: Deferred<readonly T[]> }>();
  const check = (): void => {
    for (const waiter of waiters) {
      if (waiter.predicate(items)) {
        waiters.delete(waiter);
        waiter.done.resolve(items);
      }
    }
  };
  const until = (predicate: (items: readonly T[]) => boolean, label: string, ms?: number) => {
    const waiter = { predicate, done: deferred<readonly T[]>() };
    waiters.add(waiter);
    check();
    return withTimeout(waiter.done.promise, label, ms).finally(() => waiters.delete(waiter));
  };
  return {
    items,
    push(item) {
      items.push(item);
      check();
    },
    until,
    untilCount: (count, label, ms) => until((all) => all.length >= count, `${label} (${count} items)`, ms),
  };
}
