/**
 * The write stage: prepared transitions of one kind (all creations or all updates) written in ONE
 * statement (statements.ts) — the actor rows guarded by their versions, and everything the
 * transitions wrote besides: transition-log rows, run events, outbox rows, jobs, timers, audit rows,
 * the kind's extra rows. An actor the statement did not write (its version moved: another
 * transaction won) fails the write with `OptimisticConflictError`, which `transact` retries.
 *
 * - In a single transaction (tx.ts) the one transition goes to its kind's batcher (batcher.ts), its
 *   statement shared with concurrent ones of the kind; more than one, or follow-ups, need a real
 *   transaction (`NeedsTransaction`: nothing is written yet).
 * - In a real transaction the statement is sent on the transaction's connection. Its answer is
 *   awaited here, except for rows the transaction holds and creations, which cannot miss: their
 *   answer is checked at the commit (`Sql.atCommit`), so the COMMIT goes out behind the statement.
 */
import type { Prepared } from './prepare.js';
import { mergeRows, statementParams } from './statements.js';
import { type ActorTx, NeedsTransaction } from './tx.js';
import { OptimisticConflictError } from './types.js';

/**
 * Writes `list` (prepared transitions of one kind, all creations or all updates) in one statement;
 * throws `OptimisticConflictError` when one of them was not written. A single transaction writes one;
 * `urgent` sends its update through the kind's urgent lane.
 */
export async function write(tx: ActorTx, list: readonly Prepared[], urgent: boolean): Promise<void> {
  const [first] = list;
  if (!first) return;
  const { kind } = first;
  const mode = first.created ? 'insert' : 'update';
  if (tx.single) {
    if (tx.single.wrote) throw new Error('a single transaction made a second write');
    // Follow-ups mean more statements: that needs a real transaction (nothing is written yet).
    if (list.length > 1 || first.writes.followUps.length > 0) throw new NeedsTransaction();
    tx.single.wrote = true;
    const lane = mode === 'update' && urgent ? 'urgent' : mode;
    if (!(await kind.batchers[lane].submit(first.rows, first.row.id))) {
      throw new OptimisticConflictError(kind.def.name, first.row.id);
    }
    return;
  }
  const rows = list.length === 1 ? first.rows : mergeRows(list.map((p) => p.rows));
  const statement = kind.statements[mode].for(rows);
  const answer = tx.sql.prepared<{ id: number }>(
    statement.name,
    statement.text,
    statementParams(statement, rows),
  );
  // Rows this transaction holds cannot miss (nor can a creation: it writes every row or fails), so
  // nothing here waits for the answer: the COMMIT goes out behind the statement, and the answer is
  // checked there — an error of PostgreSQL's turned the COMMIT into a rollback.
  if (tx.sql.atCommit && list.every((p) => p.created || p.locked)) {
    tx.sql.atCommit(
      answer.then((ids) => {
        if (ids.length !== list.length) {
          throw new Error(`${kind.def.name}: a row this transaction held was not written`);
        }
      }),
    );
    return;
  }
  const written = new Set((await answer).map((r) => Number(r.id)));
  for (const p of list) {
    if (!written.has(Number(p.row.id))) throw new OptimisticConflictError(kind.def.name, p.row.id);
  }
}
