/**
 * The transact stage (src/platform/actors/transact.ts) over a stand-in database whose transactions
 * commit or fail as the test says: a transaction is retried as a whole on a conflict (each attempt
 * numbered) up to its attempts, never on another error; a single transaction that needs a real one
 * reruns in one; every attempt knows the actors the caller read before it; what was gathered is flushed before the commit; the loops are woken and the
 * after-commit callbacks run after a commit only, a failing listener logged, never thrown.
 */
import { describe, expect, it } from 'vitest';
import { createTransactStage } from '../../../src/platform/actors/transact.js';
import { type ActorTx, NeedsTransaction } from '../../../src/platform/actors/tx.js';
import { type LoadedActor, OptimisticConflictError } from '../../../src/platform/actors/types.js';
import type { Db, Sql } from '../../../src/platform/db/sql.js';
import { createLogger } from '../../../src/platform/log.js';

/** A database whose transactions run their function and then commit, or fail when `commit` throws. */
function standIn(commit: () => void = () => undefined) {
  const sql = {} as Sql;
  const transactions: string[] = [];
  const db = {
    async tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
      transactions.push('begin');
      const result = await fn(sql);
      commit();
      transactions.push('commit');
      return result;
    },
  } as unknown as Db;
  return { db, transactions };
}

const log = createLogger('silent');

describe('the transact stage', () => {
  it('retries a transaction that met a conflict as a whole, numbering its attempts, up to its attempts', async () => {
    const { db } = standIn();
    const stage = createTransactStage({ db, log, maxAttempts: 3 });
    const attempts: number[] = [];
    const result = await stage.transact(async (tx) => {
      attempts.push(tx.attempt);
      if (tx.attempt < 3) throw new OptimisticConflictError('skill-run', 1);
      return 'done';
    });
    expect([result, attempts]).toEqual(['done', [1, 2, 3]]);
    const failing = stage.transact(async () => {
      throw new OptimisticConflictError('skill-run', 1);
    });
    await expect(failing).rejects.toBeInstanceOf(OptimisticConflictError);
    let ran = 0;
    const other = stage.transact(async () => {
      ran++;
      throw new Error('not a conflict');
    });
    await expect(other).rejects.toThrow('not a conflict');
    expect(ran).toBe(1);
  });

  it('reruns a single transaction that needs a real one in a real one, as its first attempt', async () => {
    const { db, transactions } = standIn();
    const stage = createTransactStage({ db, log });
    const seen: Array<{ single: boolean; attempt: number }> = [];
    await stage.transact(
      async (tx) => {
        seen.push({ single: tx.single !== null, attempt: tx.attempt });
        if (tx.single) throw new NeedsTransaction();
      },
      { single: true },
    );
    expect(seen).toEqual([
      { single: true, attempt: 1 },
      { single: false, attempt: 1 },
    ]);
    expect(transactions).toEqual(['begin', 'commit']);
  });

  it('gives every attempt the actors the caller read before it, by their key', async () => {
    const { db } = standIn();
    const stage = createTransactStage({ db, log });
    const actor = { def: { table: 'runs' }, row: { id: 7 } } as unknown as LoadedActor;
    const seen: Array<string[]> = [];
    await stage.transact(
      async (tx) => {
        seen.push([...tx.known.keys()]);
        if (tx.attempt === 1) throw new OptimisticConflictError('skill-run', 7);
      },
      { loaded: [actor] },
    );
    expect(seen).toEqual([['runs:7'], ['runs:7']]);
  });

  it('flushes what was gathered before the commit, and wakes and calls back after it only', async () => {
    let committing = false;
    const { db } = standIn(() => {
      if (committing) throw new Error('commit failed');
    });
    const stage = createTransactStage({ db, log });
    const woken: string[] = [];
    stage.onWake((what) => woken.push(what));
    stage.onWake(() => {
      throw new Error('a failing listener');
    });
    const order: string[] = [];
    const work = async (tx: ActorTx) => {
      tx.wake('outbox');
      tx.afterCommit(() => order.push('after commit'));
      tx.gather('parent', 'a', async (_tx, items) => void order.push(`flushed ${items.join()}`));
      tx.gather('parent', 'b', async () => void order.push('a second flush'));
    };
    await stage.transact(work);
    expect(order).toEqual(['flushed a,b', 'after commit']);
    expect(woken).toEqual(['outbox']);
    committing = true;
    order.length = 0;
    await expect(stage.transact(work)).rejects.toThrow('commit failed');
    expect(order).toEqual(['flushed a,b']);
    expect(woken).toEqual(['outbox']);
  });
});
