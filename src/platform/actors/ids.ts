/**
 * Actor ids come from a sequence before the row is written (the machine's input names the id). The
 * allocator takes them in blocks, one round trip per block, so creating an actor costs no extra
 * round trip. Ids stay unique across processes (the sequence guarantees it) but are only roughly
 * ordered by time across processes; lists order by `created_at`, with the id as a tie-break.
 *
 * A block's size follows the demand: it doubles (up to `maxBlock`) when the previous block lasted
 * less than `FAST_MS`, and halves (down to `minBlock`) when it lasted more than `SLOW_MS`. Under load
 * (thousands of runs a second) a refill is then rare; a quiet process keeps few ids it may never use
 * (ids left when it stops are gaps in the sequence, which nothing relies on).
 */
import type { Sql } from '../db/sql.js';

/** Hands out ids of one or more sequences. */
export interface IdAllocator {
  /**
   * The next id of `sequence`. A refill runs on `sql` (the caller's transaction: `nextval` is not
   * undone by a rollback), so a caller holding a pooled connection never waits for a second one —
   * nor for a refill running on another `sql`: that one may be the pool, waiting for a connection
   * that callers like this one hold (every connection in a transaction, each waiting for the pool's
   * refill, is a deadlock). Callers on the same `sql` share one refill.
   */
  next(sequence: string, sql: Sql): Promise<number>;
}

/** A block that lasted less than this grows the next one. */
const FAST_MS = 250;
/** A block that lasted longer than this shrinks the next one. */
const SLOW_MS = 5_000;

interface SequencePool {
  ids: number[];
  refills: Map<Sql, Promise<void>>;
  block: number;
  /** When the last refill was sent (`performance.now()`); 0 before the first. */
  lastRefill: number;
}

/** An allocator taking `minBlock` to `maxBlock` ids per round trip. */
export function createIdAllocator(minBlock = 32, maxBlock = 1024): IdAllocator {
  const pools = new Map<string, SequencePool>();

  function blockSize(pool: SequencePool): number {
    const now = performance.now();
    if (pool.lastRefill > 0) {
      const lasted = now - pool.lastRefill;
      if (lasted < FAST_MS) pool.block = Math.min(maxBlock, pool.block * 2);
      else if (lasted > SLOW_MS) pool.block = Math.max(minBlock, Math.floor(pool.block / 2));
    }
    pool.lastRefill = now;
    return pool.block;
  }

  return {
    async next(sequence, sql) {
      let pool = pools.get(sequence);
      if (!pool) {
        pool = { ids: [], refills: new Map(), block: minBlock, lastRefill: 0 };
        pools.set(sequence, pool);
      }
      for (;;) {
        const id = pool.ids.shift();
        if (id !== undefined) return id;
        const current = pool;
        let refill = current.refills.get(sql);
        if (!refill) {
          refill = sql
            .prepared<{ id: number }>(
              'actor_ids',
              'select nextval($1::regclass) as id from generate_series(1, $2)',
              [sequence, blockSize(current)],
            )
            .then((rows) => {
              current.ids.push(...rows.map((r) => r.id));
              current.ids.sort((a, b) => a - b);
            })
            .finally(() => {
              current.refills.delete(sql);
            });
          current.refills.set(sql, refill);
        }
        await refill;
      }
    },
  };
}
