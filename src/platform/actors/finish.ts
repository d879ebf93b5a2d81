/**
 * The finish stage: what follows a transition's write, in its transaction. Its tables' growth is
 * counted (growth.ts: their plans are renewed as they fill); the loops that consume what it wrote are
 * asked to wake after the commit — job workers (`urgentJobs` when a job goes first), the outbox relay,
 * the timer scheduler; the jobs leased to this process start after the commit, a creation's with the
 * actor as created (`JobQueue.startLeased`); the actor as updated is kept for a later transition of it
 * in the transaction (`ActorTx.updated`); then the follow-ups run, one transition deeper.
 */
import type { GrowthStatistics } from '../db/growth.js';
import type { JobQueue } from '../jobs/interfaces.js';
import type { ActorRow } from './kind.js';
import type { Prepared } from './prepare.js';
import { rowKey } from './registry.js';
import { type ActorTx, deeper } from './tx.js';
import type { LoadedActor, Transitioned } from './types.js';

/** Finishes a written transition (see the header); resolves with what it did once its follow-ups ran. */
export type FinishStage = (tx: ActorTx, p: Prepared) => Promise<Transitioned>;

/** The finish stage, counting growth in `growth` and starting leased jobs on `jobs`. */
export function createFinishStage(deps: {
  growth: Pick<GrowthStatistics, 'grew'>;
  jobs?: Pick<JobQueue, 'startLeased'> | undefined;
}): FinishStage {
  const { growth } = deps;
  return async (tx, p) => {
    const { kind, row, writes, rows } = p;
    const { def } = kind;
    if (p.created) growth.grew(def.table, 1);
    if (writes.jobs.length > 0) growth.grew('jobs', writes.jobs.length);
    const claimable = writes.jobs.filter((j) => !j.leased);
    if (claimable.length > 0) tx.wake(claimable.some((j) => (j.priority ?? 0) > 0) ? 'urgentJobs' : 'jobs');
    if (writes.outbox.length > 0) tx.wake('outbox');
    if (rows.timersSet.length > 0) tx.wake('timers');
    const after: ActorRow = {
      ...row,
      version: row.version + 1,
      lastSeq: writes.seq,
      snapshot: p.persisted,
    };
    const actor: LoadedActor = { def, row: after, snapshot: p.next };
    if (p.leased.length > 0) {
      // A creation's jobs get the actor as created.
      const origin = p.created ? { actor, row: rows.actors[0] ?? {} } : undefined;
      tx.afterCommit(() => {
        for (const job of p.leased) deps.jobs?.startLeased(job, origin);
      });
    }
    // Before the follow-ups: one that transitions this actor again (a mission run told that the task
    // it started did) starts from here. A created row is left out (its `read` columns are unset).
    if (!p.created && !tx.single) tx.updated.set(rowKey(def.table, row.id), actor);
    for (const followUp of writes.followUps) await followUp(deeper(tx));
    return { actor, from: p.from, to: p.to, effects: p.effects, projection: p.projection };
  };
}
