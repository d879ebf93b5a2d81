/**
 * Request coalescing for hot single-key reads (authentication, a run by id): concurrent callers'
 * keys go to the database together, as one statement per batch, instead of one round trip each.
 *
 * A batch is sent at the end of the current turn of the event loop (`setImmediate`), so every
 * request that arrived in the same I/O phase joins it; while `maxInFlight` batches are out, new
 * keys queue and form the next batch. Under light load each key goes out alone, at once; under
 * heavy load the per-statement costs (the socket write that wakes the server, parse/bind, plan
 * start, result framing) are shared by the whole batch.
 *
 * This is not a cache: a key's statement is always sent after its caller asked, so an answer never
 * predates the request (a revocation committed before a request arrives is seen by that request),
 * and duplicate keys are all handed to `batch` (it decides whether they share an answer).
 */

/** Loads one key through the current batch. */
export interface BatchLoader<K, V> {
  load(key: K): Promise<V>;
}

export interface BatchLoaderOptions<K, V> {
  /** Reads every key in one statement; answers one value per key, in the keys' order. */
  batch(keys: readonly K[]): Promise<readonly V[]>;
  /** Most keys per statement (default 256). */
  maxBatch?: number;
  /** Most statements out at once (default 2). */
  maxInFlight?: number;
}

interface Waiting<K, V> {
  key: K;
  resolve(value: V): void;
  reject(error: unknown): void;
}

export function createBatchLoader<K, V>(options: BatchLoaderOptions<K, V>): BatchLoader<K, V> {
  const maxBatch = options.maxBatch ?? 256;
  const maxInFlight = options.maxInFlight ?? 2;
  let queue: Waiting<K, V>[] = [];
  let inFlight = 0;
  let scheduled = false;

  async function send(batch: Waiting<K, V>[]): Promise<void> {
    try {
      const values = await options.batch(batch.map((w) => w.key));
      if (values.length !== batch.length) {
        throw new Error(`batch answered ${values.length} values for ${batch.length} keys`);
      }
      for (let i = 0; i < batch.length; i++) (batch[i] as Waiting<K, V>).resolve(values[i] as V);
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    }
  }

  function flush(): void {
    scheduled = false;
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
      queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
      inFlight++;
      void send(batch).finally(() => {
        inFlight--;
        schedule();
      });
    }
  }

  function schedule(): void {
    if (scheduled || queue.length === 0 || inFlight >= maxInFlight) return;
    scheduled = true;
    setImmediate(flush);
  }

  return {
    load(key) {
      return new Promise<V>((resolve, reject) => {
        queue.push({ key, resolve, reject });
        schedule();
      });
    },
  };
}

/**
 * Reads shared by identical requests: the keys asked for in one turn of the event loop (a batch of
 * `createBatchLoader`) that have the same `idOf` share one `read`, sent once they were all asked
 * (never a cache: a later turn reads again); keys of other ids in the batch each get a read of their
 * own, side by side, and a read that fails fails its own keys only. For reads whose statement cannot
 * take several keys but which many callers ask alike at once (the review queue's page after each of
 * many concurrent decisions).
 */
export function createSharedReader<K, V>(options: {
  idOf(key: K): string;
  read(key: K): Promise<V>;
  /** Most batches out at once (default 4). */
  maxInFlight?: number;
}): BatchLoader<K, V> {
  type Settled = { ok: true; value: V } | { ok: false; error: unknown };
  const loader = createBatchLoader<K, Settled>({
    maxInFlight: options.maxInFlight ?? 4,
    batch(keys) {
      const reads = new Map<string, Promise<Settled>>();
      return Promise.all(
        keys.map((key) => {
          const id = options.idOf(key);
          let read = reads.get(id);
          if (!read) {
            read = options.read(key).then(
              (value): Settled => ({ ok: true, value }),
              (error: unknown): Settled => ({ ok: false, error }),
            );
            reads.set(id, read);
          }
          return read;
        }),
      );
    },
  });
  return {
    async load(key) {
      const settled = await loader.load(key);
      if (!settled.ok) throw settled.error;
      return settled.value;
    },
  };
}
