/**
 * Actor ids come from a sequence before the row is written (the machine's input names the id). The
 * allocator takes them in blocks, one round trip per block, so creating an actor costs no extra
 * round trip. Ids stay unique across processes (the sequence guarantees it) but are only roughly
 * ordered by time across processes; lists order by `created_at`, with the id as a tie-break.
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

/** An allocator taking `blockSize` ids per round trip. */
export function createIdAllocator(blockSize = 32): IdAllocator {
  const pools = new Map<string, { ids: number[]; refills: Map<Sql, Promise<void>> }>();
  return {
    async next(sequence, sql) {
      let pool = pools.get(sequence);
      if (!pool) {
        pool = { ids: [], refills: new Map() };
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
              [sequence, blockSize],
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
