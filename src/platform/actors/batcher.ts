/**
 * Natural batching of single-statement transitions (group commit in the application): while a
 * kind's statement is in flight, further transitions of that kind queue and go out together as the
 * next statement, up to `maxBatch` at a time and `maxInFlight` statements at once. Under light load
 * every transition goes out alone, at once; under heavy load the per-statement costs (round trip,
 * parse/bind, plan start, commit) are shared by the whole batch.
 *
 * Creations are pipelined (`Pipelining`): their statements go out on one connection, leased while
 * any is in flight, where PostgreSQL runs them one after another — never side by side, where they
 * contended (each takes a key-share lock on the org row for its foreign keys: with three on
 * connections of their own, batches of run creations were smaller and slower). A second statement
 * goes out behind the one in flight once `fill` transitions queue, so the session has its next
 * statement in hand when it finishes one, instead of waiting for the answer's round trip through
 * this process's event loop, the next batch's encoding and its way back; a smaller batch waits for
 * the one in flight to finish, so that pipelining does not trade big batches for many small ones.
 * The connection goes back to the pool as soon as none is in flight, before the next statement is
 * sent: below `fill` a statement borrows one as it did before (kept across, it sent smaller batches
 * and accepted fewer runs). What pipelining gained for the accepts while workers execute, and the
 * variants it was measured against, are in docs/performance.md, "Creations pipelined on one
 * session". The host keeps three update statements in flight on connections of their own, where more
 * statements at once drained faster (docs/performance.md, "Choices in the code").
 *
 * Each transition still succeeds or fails on its own: the statement reports which actors it wrote
 * (a version miss leaves an actor out), two transitions of one actor never share a statement, and a
 * failing statement is retried transition by transition so one bad row cannot fail the others.
 */
import type { Lease, Sql } from '../db/sql.js';
import { mergeRows, type StatementVariants, statementParams, type TransitionRows } from './statements.js';

/** Sends transitions of one kind and mode. */
export interface StatementBatcher {
  /** Writes `rows` (one transition of actor `actorId`); resolves with whether the actor's row was written. */
  submit(rows: TransitionRows, actorId: number): Promise<boolean>;
}

/** A batcher's statements pipelined on one connection (see the file comment). */
export interface Pipelining {
  /** Lends the connection the statements in flight share (the pool's `Db.lease`). */
  lease(): Promise<Lease>;
  /** How many transitions must queue before a statement goes out behind one in flight. */
  fill: number;
}

interface Pending {
  rows: TransitionRows;
  actorId: number;
  resolve(written: boolean): void;
  reject(error: unknown): void;
}

/** A batcher of a kind's `statements` of one mode on `sql`, the pool. */
export function createStatementBatcher(options: {
  sql: Sql;
  statements: StatementVariants;
  maxBatch?: number;
  maxInFlight?: number;
  /** Told the size of every batch as it goes out (a serving process's accept pressure: jobs/hold.ts). */
  onBatch?: (size: number) => void;
  /** The statements in flight (`maxInFlight` of them) share one leased connection. */
  pipelining?: Pipelining;
}): StatementBatcher {
  const { sql, statements, pipelining } = options;
  const maxBatch = options.maxBatch ?? 64;
  const maxInFlight = options.maxInFlight ?? 1;
  const queue: Pending[] = [];
  let inFlight = 0;
  /** Pipelining: the connection the statements in flight went out on, and the first error one of them failed with. */
  let leased: Promise<Lease> | null = null;
  let failure: unknown;

  async function written(rows: TransitionRows, on: Sql = sql): Promise<Set<number>> {
    const statement = statements.for(rows);
    const result = await on.prepared<{ id: number }>(
      statement.name,
      statement.text,
      statementParams(statement, rows),
    );
    return new Set(result.map((r) => r.id));
  }

  /** Where the next statement goes: the pool, or (pipelining) the connection leased while any is in flight. */
  async function connection(): Promise<Sql> {
    if (!pipelining) return sql;
    leased ??= pipelining.lease();
    return (await leased).sql;
  }

  /** Pipelining: gives the connection back once no statement is in flight on it (before the next is sent). */
  function giveBack(): void {
    if (inFlight > 0 || !leased) return;
    const [lease, error] = [leased, failure];
    leased = null;
    failure = undefined;
    lease.then(
      (l) => l.release(error),
      () => undefined,
    );
  }

  async function execute(batch: Pending[]): Promise<void> {
    try {
      const ids = await written(mergeRows(batch.map((item) => item.rows)), await connection());
      for (const item of batch) item.resolve(ids.has(item.actorId));
    } catch (error) {
      if (pipelining) failure ??= error;
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
      // One at a time on the pool: the leased connection may be the one that failed.
      await Promise.all(
        batch.map(async (item) => {
          try {
            item.resolve((await written(item.rows)).has(item.actorId));
          } catch (itemError) {
            item.reject(itemError);
          }
        }),
      );
    }
  }

  /** Whether a statement may go out now: none in flight, or room beside them (pipelining: a full enough batch). */
  function ready(): boolean {
    if (queue.length === 0 || inFlight >= maxInFlight) return false;
    return inFlight === 0 || !pipelining || queue.length >= pipelining.fill;
  }

  /** The next batch: queued transitions in order, at most one per actor. */
  function take(): Pending[] {
    const batch: Pending[] = [];
    const actors = new Set<number>();
    for (let i = 0; i < queue.length && batch.length < maxBatch; ) {
      const item = queue[i] as Pending;
      if (actors.has(item.actorId)) {
        i++;
        continue;
      }
      actors.add(item.actorId);
      batch.push(item);
      queue.splice(i, 1);
    }
    return batch;
  }

  function pump(): void {
    while (ready()) {
      const batch = take();
      options.onBatch?.(batch.length);
      inFlight++;
      void execute(batch).finally(() => {
        inFlight--;
        giveBack();
        pump();
      });
    }
  }

  return {
    submit(rows, actorId) {
      return new Promise<boolean>((resolve, reject) => {
        queue.push({ rows, actorId, resolve, reject });
        pump();
      });
    },
  };
}
