/**
 * Reads by key, batched per tick: every `load(key)` made before the current microtask queue drains
 * goes out as one query. Job workers start a claimed batch of deliveries in one synchronous loop, so
 * their reads share a round trip instead of taking one each.
 */

/** Loads values by key; `fetch` answers a batch (keys it does not answer resolve to undefined). */
export interface MicroBatchLoader<K, V> {
  load(key: K): Promise<V | undefined>;
}

/** A loader over `fetch`, which gets each batch's distinct keys (at most `maxBatch` per call). */
export function createMicroBatchLoader<K, V>(
  fetch: (keys: K[]) => Promise<Map<K, V>>,
  maxBatch = 200,
): MicroBatchLoader<K, V> {
  let pending: Map<K, Array<{ resolve(value: V | undefined): void; reject(error: unknown): void }>> | null =
    null;

  async function flush(batch: NonNullable<typeof pending>): Promise<void> {
    const keys = [...batch.keys()];
    for (let i = 0; i < keys.length; i += maxBatch) {
      const slice = keys.slice(i, i + maxBatch);
      try {
        const found = await fetch(slice);
        for (const key of slice) for (const waiter of batch.get(key) ?? []) waiter.resolve(found.get(key));
      } catch (error) {
        for (const key of slice) for (const waiter of batch.get(key) ?? []) waiter.reject(error);
      }
    }
  }

  return {
    load(key) {
      if (!pending) {
        const batch = new Map<
          K,
          Array<{ resolve(value: V | undefined): void; reject(error: unknown): void }>
        >();
        pending = batch;
        queueMicrotask(() => {
          pending = null;
          void flush(batch);
        });
      }
      const current = pending;
      return new Promise<V | undefined>((resolve, reject) => {
        const waiters = current.get(key);
        if (waiters) waiters.push({ resolve, reject });
        else current.set(key, [{ resolve, reject }]);
      });
    },
  };
}
