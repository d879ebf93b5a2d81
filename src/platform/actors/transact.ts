/**
 * The transact stage: the one entry point of the actor host's work. It runs a function in one
 * database transaction (tx.ts), what was gathered in it (`ActorTx.gather`) flushed before the
 * commit, and retries the whole of it on an optimistic conflict (an actor's version moved between
 * load and write) or a serialization failure, with a little jitter, up to `maxAttempts`. A single
 * transaction (`{single: true}`) runs without BEGIN/COMMIT, and again in a real one when it turns
 * out to need one (`NeedsTransaction`, raised before anything was written). After the commit — never
 * after a rollback — the loops its writes gave work are woken (`onWake` listeners) and its
 * `afterCommit` callbacks run; their exceptions are logged, never thrown.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type Db, isRetryableTxError } from '../db/sql.js';
import type { Logger } from '../log.js';
import { rowKey } from './registry.js';
import { type ActorTx, actorTx, NeedsTransaction, singleTx, TxState, type Wake } from './tx.js';
import { type LoadedActor, OptimisticConflictError, type TransactOptions } from './types.js';

/** The transact stage. */
export interface TransactStage {
  /** Runs `fn` in one transaction, retried as a whole (see the header). */
  transact<T>(fn: (tx: ActorTx) => Promise<T>, options?: TransactOptions): Promise<T>;
  /** Calls `listener` after each commit that gave `what` new work. */
  onWake(listener: (what: Wake) => void): void;
}

/** `actors` by their key in a transaction's maps of rows (`ActorTx.known`). */
function knownActors(
  actors: readonly LoadedActor[] | undefined,
): ReadonlyMap<string, LoadedActor> | undefined {
  if (!actors?.length) return undefined;
  return new Map(actors.map((actor) => [rowKey(actor.def.table, actor.row.id), actor]));
}

/** The transact stage over `db`: `maxAttempts` attempts of a transaction (default 6). */
export function createTransactStage(deps: { db: Db; log: Logger; maxAttempts?: number }): TransactStage {
  const { db, log } = deps;
  const maxAttempts = deps.maxAttempts ?? 6;
  const listeners: Array<(what: Wake) => void> = [];

  function committed(state: TxState): void {
    for (const what of state.wakes) {
      for (const listener of listeners) {
        try {
          listener(what);
        } catch (error) {
          log.error({ err: error, wake: what }, 'wake listener failed');
        }
      }
    }
    for (const callback of state.callbacks) {
      try {
        callback();
      } catch (error) {
        log.error({ err: error }, 'after-commit callback failed');
      }
    }
  }

  return {
    async transact(fn, options = {}) {
      let single = options.single === true;
      const known = knownActors(options.loaded);
      for (let attempt = 1; ; attempt++) {
        const state = new TxState(known);
        try {
          const result = single
            ? await fn(singleTx(db, state, attempt))
            : await db.tx(async (sql) => {
                const tx = actorTx(sql, state, attempt);
                const done = await fn(tx);
                await state.flushGathered(tx);
                return done;
              });
          committed(state);
          return result;
        } catch (error) {
          if (single && error instanceof NeedsTransaction) {
            single = false;
            attempt--;
            continue;
          }
          const retryable = error instanceof OptimisticConflictError || isRetryableTxError(error);
          if (!retryable || attempt >= maxAttempts) throw error;
          log.debug({ err: error, attempt }, 'transaction retried');
          // A little jitter so two contenders do not collide again in lockstep.
          await sleep(Math.random() * 2 * attempt);
        }
      }
    },

    onWake(listener) {
      listeners.push(listener);
    },
  };
}
