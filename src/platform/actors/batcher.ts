/**
 * Natural batching of single-statement transitions (group commit in the application): while a
 * kind's statement is in flight, further transitions of that kind queue and go out together as the
 * next statement, up to `maxBatch` at a time and `maxInFlight` statements at once. Under light load
 * every transition goes out alone, at once; under heavy load the per-statement costs (round trip,
 * parse/bind, plan start, commit) are shared by the whole batch.
 *
 * For creations, one statement of a kind in flight per process (the default) measured best: with
 * three, batches of run creations were smaller and concurrent statements contended in PostgreSQL
 * (each takes a key-share lock on the org row for its foreign keys). The host keeps three for
 * updates, where more statements at once drained faster (both: docs/performance.md, "Choices in the code").
 *
 * Each transition still succeeds or fails on its own: the statement reports which actors it wrote
 * (a version miss leaves an actor out), two transitions of one actor never share a statement, and a
 * failing statement is retried transition by transition so one bad row cannot fail the others.
 */
import type { Sql } from '../db/sql.js';
import { mergeRows, type StatementVariants, statementParams, type TransitionRows } from './statements.js';

/** Sends transitions of one kind and mode. */
export interface StatementBatcher {
  /** Writes `rows` (one transition of actor `actorId`); resolves with whether the actor's row was written. */
  submit(rows: TransitionRows, actorId: number): Promise<boolean>;
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
}): StatementBatcher {
  const { sql, statements } = options;
  const maxBatch = options.maxBatch ?? 64;
  const maxInFlight = options.maxInFlight ?? 1;
  const queue: Pending[] = [];
  let inFlight = 0;

  async function written(rows: TransitionRows): Promise<Set<number>> {
    const statement = statements.for(rows);
    const result = await sql.prepared<{ id: number }>(
      statement.name,
      statement.text,
      statementParams(statement, rows),
    );
    return new Set(result.map((r) => r.id));
  }

  async function execute(batch: Pending[]): Promise<void> {
    try {
      const ids = await written(mergeRows(batch.map((item) => item.rows)));
      for (const item of batch) item.resolve(ids.has(item.actorId));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
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
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = take();
      options.onBatch?.(batch.length);
      inFlight++;
      void execute(batch).finally(() => {
        inFlight--;
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
