/**
 * The actor host: every persisted actor (run, review item, webhook delivery and endpoint, mission
 * run, proposal) changes state here and nowhere else. It composes five stages, each a module of its
 * own:
 *
 * - transact (transact.ts): the one entry point — one database transaction, retried as a whole on a
 *   conflict; the loops woken after its commit.
 * - load (load.ts): the actor a transition starts from — the transaction's own write of it, the
 *   caller's copy, a locked load sent ahead, or its row (org in the WHERE).
 * - prepare (prepare.ts): the machine step — the event checked (schema, then `can()`), the pure
 *   transition, the effects performed into a `TransitionWrites`, settled and `followedBy` events
 *   applied, the statement's rows built. Nothing written yet.
 * - write (write.ts): ONE statement per kind writes the transitions — the rows guarded by their
 *   versions, the transition log, run events, outbox rows, jobs, timers, audit rows.
 * - finish (finish.ts): after the write — wake-ups and leased job starts for the commit, then the
 *   follow-ups (other actors' transitions), one transition deeper.
 *
 * Terminology:
 * - refused: the state does not accept the event (`can()` is false). Nothing is written; API callers
 *   answer 409, workers and timers treat it as a duplicate or stale event and move on.
 * - conflict: the row's version moved between load and write (another transaction won). The whole
 *   transaction is retried by `transact`.
 * - single transaction (`transact(fn, {single: true})`): one transition and nothing else, run as its
 *   one statement without BEGIN/COMMIT; such statements of one kind are batched (batcher.ts). A
 *   transition with follow-ups reruns `fn` in a real transaction before anything is written.
 *
 * Here the stages are composed: a send is load → prepare → write and finish; several sends or
 * creations share a write per kind (`sendMany`, `createMany`). In a real transaction the follow-ups
 * do not wait for the write's answer (`writeAndFinish`).
 */
import { createGrowthStatistics } from '../db/growth.js';
import { createFinishStage } from './finish.js';
import { createIdAllocator } from './ids.js';
import type { ActorRef, MachineKind } from './kind.js';
import { createLoadStage } from './load.js';
import { createPrepareStage, type Prepared } from './prepare.js';
import { createKindRegistry } from './registry.js';
import { createTransactStage } from './transact.js';
import { type ActorTx, reader } from './tx.js';
import type {
  ActorHost,
  ActorHostOptions,
  SendItem,
  SendOptions,
  SendResult,
  Transitioned,
} from './types.js';
import { write } from './write.js';

export { actorStatus, stateName } from './rows.js';
export type { ActorTx } from './tx.js';
export {
  type ActorHost,
  type ActorHostOptions,
  type LoadedActor,
  OptimisticConflictError,
  type SendResult,
  type TransitionAudit,
  type Transitioned,
} from './types.js';

/** Creates an actor host on `db`. */
export function createActorHost(options: ActorHostOptions): ActorHost {
  const { db, clock, log, jobs } = options;
  const ids = options.ids ?? createIdAllocator();
  const maxDepth = options.maxDepth ?? 4;
  const kinds = createKindRegistry(db, { onBatch: options.onBatch, lease: () => db.lease() });
  const transact = createTransactStage({ db, log, maxAttempts: options.maxAttempts });
  const load = createLoadStage(kinds);
  const prepare = createPrepareStage({ kinds, ids, clock, log, jobs });
  // The actors' tables and the jobs queue fill fast from empty; their plans follow (growth.ts).
  const finish = createFinishStage({ growth: createGrowthStatistics({ db, log }), jobs });

  function checkDepth(tx: ActorTx): void {
    if (tx.depth > maxDepth) {
      throw new Error(`actor transitions cascaded deeper than ${maxDepth}; a follow-up loop?`);
    }
  }

  /** `send` up to its write: loaded, then prepared; or why there is nothing to write. */
  async function prepareSend(
    tx: ActorTx,
    names: MachineKind | readonly MachineKind[],
    ref: ActorRef,
    event: unknown,
    sendOptions: SendOptions,
  ): Promise<Prepared | Exclude<SendResult, { outcome: 'applied' }>> {
    const starting = await load.forSend(tx, names, ref, sendOptions);
    if (!starting) return { outcome: 'not_found' };
    return prepare.send(tx, starting, event, sendOptions);
  }

  /** `send`: load → prepare → write and finish. */
  async function deliver(
    tx: ActorTx,
    names: MachineKind | readonly MachineKind[],
    ref: ActorRef,
    event: unknown,
    sendOptions: SendOptions,
  ): Promise<SendResult> {
    checkDepth(tx);
    const prepared = await prepareSend(tx, names, ref, event, sendOptions);
    if (!('kind' in prepared)) return prepared;
    const [done] = await writeAndFinish(tx, [[prepared]], [prepared], sendOptions.urgent === true);
    return { outcome: 'applied', ...(done as Transitioned) };
  }

  /**
   * Writes `groups` (a statement each: see write.ts) and finishes `order` (finish.ts: the follow-ups).
   * In a real transaction the follow-ups do not wait for the writes' answers: the connection
   * pipelines their statements behind the writes (which the server runs first, in order), and the
   * answers are checked before this returns — a version miss still fails the transaction, which
   * rolls back what the follow-ups did — except those the write leaves to the commit (rows the
   * transaction holds, creations). A single transaction has no follow-ups.
   */
  async function writeAndFinish(
    tx: ActorTx,
    groups: readonly (readonly Prepared[])[],
    order: readonly Prepared[],
    urgent: boolean,
  ): Promise<Transitioned[]> {
    const done: Transitioned[] = [];
    if (tx.single) {
      for (const group of groups) await write(tx, group, urgent);
      for (const p of order) done.push(await finish(tx, p));
      return done;
    }
    const written = Promise.all(groups.map((group) => write(tx, group, urgent)));
    written.catch(() => undefined);
    try {
      for (const p of order) done.push(await finish(tx, p));
    } catch (error) {
      // A write that failed is why the statements after it failed.
      await written;
      throw error;
    }
    await written;
    return done;
  }

  /**
   * Several sends in `tx` whose writes share statements (one per kind: see `sendMany`); each item's
   * outcome, in order.
   */
  async function deliverMany(
    tx: ActorTx,
    names: MachineKind | readonly MachineKind[],
    items: readonly SendItem[],
  ): Promise<SendResult[]> {
    checkDepth(tx);
    const results: SendResult[] = [];
    let pending: Array<{ index: number; prepared: Prepared }> = [];
    const flush = async () => {
      const order = pending.map((p) => p.prepared);
      const groups = [...new Set(order.map((p) => p.kind))].map((kind) =>
        order.filter((p) => p.kind === kind),
      );
      const done = await writeAndFinish(tx, groups, order, false);
      for (const [i, p] of pending.entries())
        results[p.index] = { outcome: 'applied', ...(done[i] as Transitioned) };
      pending = [];
    };
    for (const [index, item] of items.entries()) {
      // A second send to one actor starts from the first's write.
      if (pending.some((p) => p.prepared.row.id === item.ref.id)) await flush();
      const prepared = await prepareSend(tx, names, item.ref, item.event, item.options);
      if ('kind' in prepared) pending.push({ index, prepared });
      else results[index] = prepared;
    }
    await flush();
    return results;
  }

  return {
    register: (def) => kinds.register(def),

    kind: (name) => kinds.entry(name).def,

    kinds: () => kinds.all().map((e) => e.def),

    transact: (fn, transactOptions) => transact.transact(fn, transactOptions),

    allocateId: (tx, name) => ids.next(kinds.entry(name).def.sequence, reader(tx)),

    async create(tx, name, args) {
      checkDepth(tx);
      const prepared = await prepare.creation(tx, kinds.entry(name), args);
      const [done] = await writeAndFinish(tx, [[prepared]], [prepared], false);
      return done as Transitioned;
    },

    async createMany(tx, name, list) {
      checkDepth(tx);
      const kind = kinds.entry(name);
      const prepared: Prepared[] = [];
      for (const args of list) prepared.push(await prepare.creation(tx, kind, args));
      return writeAndFinish(tx, [prepared], prepared, false);
    },

    send: deliver,

    sendMany: deliverMany,

    sendStored: (tx, name, ref, event, sendOptions) =>
      deliver(tx, kinds.entry(name).def.name, ref, event, sendOptions),

    sendStoredMany(tx, name, items) {
      const kind = kinds.entry(name).def.name;
      for (const item of items) if (item.options.lock) load.loadAhead(tx, kind, item.ref);
      return deliverMany(tx, kind, items);
    },

    load: (sql, names, ref) => load.load(sql, names, ref),

    loadAhead: (tx, names, ref) => load.loadAhead(tx, names, ref),

    resolveRow: (names, raw) => load.resolveRow(names, raw),

    loadColumns: (names, alias, prefix) => load.loadColumns(names, alias, prefix),

    resolvePrefixed: (names, raw, prefix) => load.resolvePrefixed(names, raw, prefix),

    onWake: (listener) => transact.onWake(listener),
  };
}
