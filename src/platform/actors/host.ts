/**
 * The actor host: every persisted actor (run, review item, later webhook delivery and mission)
 * changes state here and nowhere else.
 *
 * Terminology:
 * - kind: one kind of actor (`ActorKindDef`): a machine, a table, a projection, effect handlers.
 * - transition: load the row (org in the WHERE) → resolve the snapshot → `can(event)` → pure
 *   `transition()` → perform the effects into a `TransitionWrites` → ONE statement that writes the
 *   row (guarded by `version`), the transition-log row, run events, outbox rows, jobs, timers and
 *   audit rows (see statements.ts) → follow-ups (other actors' transitions) in the same transaction,
 *   sent without waiting for the write's answer (pipelined; checked before the transition returns,
 *   or at the commit for rows the transaction holds and creations: see `write`).
 *   Creations of several actors of one kind (`createMany`) share that statement, their follow-ups
 *   after it.
 * - refused: the state does not accept the event (`can()` is false). Nothing is written; API callers
 *   answer 409, workers and timers treat it as a duplicate or stale event and move on.
 * - conflict: the row's version moved between load and write (another transaction won). The whole
 *   transaction is retried by `transact`, which is the one entry point.
 * - single transaction (`transact(fn, {single: true})`): one transition and nothing else, run as its
 *   one statement without BEGIN/COMMIT; such statements of one kind are batched (batcher.ts). A
 *   transition with follow-ups reruns `fn` in a real transaction before anything is written.
 *
 * After commit, the loops that consume what a transaction wrote (job workers, the outbox relay, the
 * timer scheduler) are woken; nothing runs after a rollback.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type Effect, toEffects } from '../../../machines/index.js';
import type { Attribution } from '../auth/attribution.js';
import { createGrowthStatistics } from '../db/growth.js';
import { isRetryableTxError, type Sql } from '../db/sql.js';
import { zodIssues } from '../http/validate.js';
import type { Job } from '../jobs/interfaces.js';
import { createStatementBatcher, type StatementBatcher } from './batcher.js';
import { builtinEffects } from './builtin-effects.js';
import { createIdAllocator } from './ids.js';
import type {
  ActorKindDef,
  ActorRef,
  ActorRow,
  ColumnLayout,
  EffectContext,
  EffectHandler,
  MachineKind,
  MachineSnapshotLike,
} from './kind.js';
import { columnLayout } from './kind.js';
import { resolveSnapshot, type TransitionStep, transitionRows } from './rows.js';
import {
  buildStatements,
  type KindStatements,
  mergeRows,
  statementParams,
  type TransitionRows,
} from './statements.js';
import { createStepper, type MachineStepper } from './stepper.js';
import { type ActorTx, actorTx, deeper, NeedsTransaction, singleTx, TxState, type Wake } from './tx.js';
import {
  type ActorHost,
  type ActorHostOptions,
  type CreateArgs,
  type LoadedActor,
  OptimisticConflictError,
  type SendItem,
  type SendOptions,
  type SendResult,
  type TransitionAudit,
  type Transitioned,
} from './types.js';
import { type JobRow, TransitionWrites } from './writes.js';

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

interface KindEntry {
  def: ActorKindDef;
  /** The kind's columns by use. */
  columns: ColumnLayout;
  statements: KindStatements;
  /** Where single-statement transitions of this kind go (see batcher.ts); `urgent`: urgent updates. */
  batchers: Record<'insert' | 'update' | 'urgent', StatementBatcher>;
  /** The machine's pure steps (stepper.ts). */
  stepper: MachineStepper;
  /** The names of the values a locked load reads with the row (`ActorKindDef.lockedWith`). */
  lockedWith: readonly string[];
}

/** How many transitions one write may carry: the first, then settled and `followedBy` events. */
const MAX_CHAINED_STEPS = 32;

/** An actor's key in a transaction's maps of rows (`ActorTx.updated`, `ActorTx.ahead`). */
function rowKey(table: string, id: number): string {
  return `${table}:${id}`;
}

/** The name of a snapshot's state: the value of a flat state, the dotted path of a compound one. */
export function stateName(value: unknown): string {
  if (typeof value === 'string') return value;
  // A compound state as its path, `running.awaitingModel` for `{running: 'awaitingModel'}`.
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    const [only] = entries;
    if (entries.length === 1 && only) return `${only[0]}.${stateName(only[1])}`;
  }
  return JSON.stringify(value);
}

/** The `status` column an actor's snapshot projects to (what a refused caller is told it is). */
export function actorStatus(actor: LoadedActor): string {
  return String(actor.def.project(actor.snapshot).status);
}

/** Creates an actor host on `db`. */
export function createActorHost(options: ActorHostOptions): ActorHost {
  const { db, clock, log } = options;
  const ids = options.ids ?? createIdAllocator();
  const maxAttempts = options.maxAttempts ?? 6;
  const maxDepth = options.maxDepth ?? 4;
  const kinds = new Map<string, KindEntry>();
  const listeners: Array<(what: Wake) => void> = [];
  // The actors' tables and the jobs queue fill fast from empty; their plans follow (growth.ts).
  const growth = createGrowthStatistics({ db, log });

  function entry(name: MachineKind | string): KindEntry {
    const found = kinds.get(name);
    if (!found) throw new Error(`unknown actor kind ${JSON.stringify(name)}`);
    return found;
  }

  function entriesOf(names: MachineKind | readonly MachineKind[]): KindEntry[] {
    const list = (typeof names === 'string' ? [names] : names).map(entry);
    const table = list[0]?.def.table;
    if (!table || list.some((e) => e.def.table !== table)) {
      throw new Error(`actor kinds ${JSON.stringify(names)} do not share one table`);
    }
    return list;
  }

  /** `ref`'s key in a transaction's maps of rows, for kinds `names` (which share one table). */
  function keyOf(names: MachineKind | readonly MachineKind[], ref: ActorRef): string {
    return rowKey((entriesOf(names)[0] as KindEntry).def.table, ref.id);
  }

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

  async function load(
    sql: Sql,
    names: MachineKind | readonly MachineKind[],
    ref: ActorRef,
    lock = false,
  ): Promise<LoadedActor | null> {
    const list = entriesOf(names);
    const first = list[0] as KindEntry;
    const { statements } = first;
    const rows = await sql.prepared<Record<string, unknown>>(
      lock ? statements.lockedLoadName : `actor_load_${first.def.table}`,
      lock ? statements.lockedLoad : statements.load,
      [ref.id, ref.orgId],
    );
    const raw = rows[0];
    return raw ? resolveRow(list, raw) : null;
  }

  function resolveRow(list: KindEntry[], raw: Record<string, unknown>): LoadedActor | null {
    const picked = list.find(
      (e) => !e.def.discriminator || raw[e.def.discriminator.column] === e.def.discriminator.value,
    );
    if (!picked) return null;
    const { def } = picked;
    const columns: Record<string, unknown> = {};
    for (const column of picked.columns.loaded) columns[column] = raw[column];
    for (const name of picked.lockedWith) if (name in raw) columns[name] = raw[name];
    const row: ActorRow = {
      id: raw.id as number,
      orgId: raw.org_id as number,
      version: raw.version as number,
      lastSeq: raw.last_seq as number,
      snapshot: raw.snapshot,
      columns,
    };
    return { def, row, snapshot: resolveSnapshot(def, row.snapshot) };
  }

  /** A transition computed, its effects performed and its rows built; not yet written. */
  interface Prepared {
    kind: KindEntry;
    row: ActorRow;
    from: string | null;
    /** The state written: after the settled events, if any. */
    to: string;
    next: MachineSnapshotLike;
    /** The effects of every transition written. */
    effects: Effect[];
    projection: Record<string, unknown>;
    persisted: unknown;
    writes: TransitionWrites;
    rows: TransitionRows;
    /** A creation (an insert), else an update. */
    created: boolean;
    /**
     * The row is this transaction's until it ends (loaded `for update`, or written by it before), so
     * the update's version check cannot miss: its answer may wait for the commit (`write`).
     */
    locked: boolean;
    /** The jobs written leased to this process, to start after the commit (`leaseJobs`). */
    leased: Job[];
  }

  /** A transition, computed with its effects performed (then `write`, then `finish`). */
  async function prepare(
    tx: ActorTx,
    kind: KindEntry,
    row: ActorRow,
    from: string | null,
    next: MachineSnapshotLike,
    actions: readonly { type: string; params?: unknown }[],
    event: { type: string; [key: string]: unknown },
    by: Attribution,
    at: string,
    insert: Record<string, unknown> | null,
    audit: TransitionAudit | undefined,
    also: Pick<SendOptions, 'extraRows' | 'completesJob' | 'followedBy'>,
    jobs: { queuedAt?: string | undefined; priority?: number | undefined },
  ): Promise<Prepared> {
    const { def } = kind;
    const writes = new TransitionWrites(row.lastSeq, jobs.queuedAt, jobs.priority);
    const steps: TransitionStep[] = [];
    const effects: Effect[] = [];
    let projection: Record<string, unknown> = {};
    /** Performs one transition's effects into `writes`: the first, then each settled event's. */
    const perform = async (
      stepFrom: string | null,
      after: MachineSnapshotLike,
      stepActions: typeof actions,
      stepEvent: typeof event,
    ) => {
      projection = def.project(after);
      const stepEffects = toEffects(stepActions);
      const ctx: EffectContext = {
        tx,
        def,
        row,
        after,
        projection,
        event: stepEvent,
        at,
        actingAs: by,
        writes,
      };
      for (const effect of stepEffects) {
        const handler: EffectHandler | undefined = def.effects[effect.type] ?? builtinEffects[effect.type];
        if (!handler) throw new Error(`actor kind ${def.name} has no handler for effect ${effect.type}`);
        await handler(effect.params, ctx);
      }
      effects.push(...stepEffects);
      steps.push({ from: stepFrom, to: stateName(after.value), event: stepEvent });
    };
    await perform(from, next, actions, event);
    // Then the events the settlers answer (`settle`) and those sent after it
    // (`SendOptions.followedBy`), each a transition of its own written with this one.
    let current = next;
    const chain = async (chained: { type: string }) => {
      if (steps.length >= MAX_CHAINED_STEPS) {
        throw new Error(
          `${def.name} ${row.id}: chained events went on past ${MAX_CHAINED_STEPS} transitions`,
        );
      }
      const parsed = def.eventSchema.safeParse(chained);
      if (!parsed.success) {
        throw new Error(`${def.name} ${row.id}: a chained ${chained.type} does not match the kind's events`);
      }
      const valid: { type: string; [key: string]: unknown } = parsed.data;
      if (!current.can(valid)) {
        log.warn(
          { kind: def.name, actorId: row.id, event: valid.type, state: stateName(current.value) },
          'chained event refused',
        );
        return;
      }
      const [after, chainedActions] = kind.stepper.next(current, valid);
      await perform(stateName(current.value), after, chainedActions, valid);
      current = after;
    };
    const settle = async () => {
      for (let settler = writes.settlers.shift(); settler; settler = writes.settlers.shift()) {
        for (const answered of await settler(tx)) await chain(answered);
      }
    };
    await settle();
    for (const followed of also.followedBy ?? []) {
      await chain(followed);
      await settle();
    }
    const leased = await leaseJobs(tx, writes.jobs, row.orgId);
    if (audit) {
      writes.audit.push({
        action: audit.action,
        target_kind: audit.targetKind ?? null,
        target_id: audit.targetId ?? String(row.id),
        details: audit.details ?? {},
        request_id: audit.requestId ?? null,
      });
    }
    const persisted = def.machine.getPersistedSnapshot(current);
    const rows = transitionRows(def, row, { also, insert, projection, persisted, writes, at, steps, by });
    return {
      kind,
      row,
      from,
      to: stateName(current.value),
      next: current,
      effects,
      projection,
      persisted,
      writes,
      rows,
      created: insert !== null,
      locked: false,
      leased,
    };
  }

  /**
   * Writes `list` (transitions of one kind, all creations or all updates) in one statement; throws
   * `OptimisticConflictError` when one of them was not written. A single transaction writes one.
   */
  async function write(tx: ActorTx, list: readonly Prepared[], urgent: boolean): Promise<void> {
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

  /** After the write: statistics, wake-ups and leased starts for the commit, then the follow-ups. */
  async function finish(tx: ActorTx, p: Prepared): Promise<Transitioned> {
    const { kind, row, writes, rows } = p;
    const { def } = kind;
    if (p.created) growth.grew(def.table, 1);
    if (writes.jobs.length > 0) growth.grew('jobs', writes.jobs.length);
    const claimable = writes.jobs.filter((j) => !j.leased);
    if (claimable.length > 0) tx.wake(claimable.some((j) => j.priority) ? 'urgentJobs' : 'jobs');
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
        for (const job of p.leased) options.jobs?.startLeased(job, origin);
      });
    }
    // Before the follow-ups: one that transitions this actor again (a mission run told that the task
    // it started did) starts from here. A created row is left out (its `read` columns are unset).
    if (!p.created && !tx.single) tx.updated.set(rowKey(def.table, row.id), actor);
    for (const followUp of writes.followUps) await followUp(deeper(tx));
    return { actor, from: p.from, to: p.to, effects: p.effects, projection: p.projection };
  }

  /**
   * Leases the jobs of `jobs` (of org `orgId`) that go first to this process when it can run them at
   * once (`JobQueue.lease`): each gets an id (the allocator's, from `jobs`' sequence) and the lease,
   * and is written claimed. The leased ones as the queue runs them, to start after the commit.
   */
  async function leaseJobs(tx: ActorTx, jobs: readonly JobRow[], orgId: number): Promise<Job[]> {
    const queue = options.jobs;
    if (!queue) return [];
    const leased: Job[] = [];
    for (const job of jobs) {
      if (!job.priority) continue;
      const lease = queue.lease(job.kind);
      if (!lease) continue;
      const id = await ids.next('jobs_id_seq', reader(tx));
      job.leased = { id, ...lease };
      leased.push({
        id,
        orgId,
        kind: job.kind,
        payload: job.payload,
        key: job.key,
        attempts: 1,
        maxAttempts: job.max_attempts ?? 5,
        priority: job.priority,
      });
    }
    return leased;
  }

  /** A creation of `kind` from `args`, prepared (`prepare`): its id allocated, its machine started. */
  async function prepareCreation(tx: ActorTx, kind: KindEntry, args: CreateArgs): Promise<Prepared> {
    const { def } = kind;
    const id = args.id ?? (await ids.next(def.sequence, reader(tx)));
    const at = new Date(clock.now()).toISOString();
    const input = args.input(id, at);
    const [snapshot, actions] = kind.stepper.initial(input);
    const columns: Record<string, unknown> = {};
    for (const column of kind.columns.loaded) columns[column] = args.columns[column];
    if (def.discriminator) columns[def.discriminator.column] = def.discriminator.value;
    const created = { ...args.columns };
    if (def.discriminator) created[def.discriminator.column] = def.discriminator.value;
    const row: ActorRow = { id, orgId: args.orgId, version: 0, lastSeq: 0, snapshot: null, columns };
    return prepare(
      tx,
      kind,
      row,
      null,
      snapshot,
      actions,
      { type: 'xstate.init', input },
      args.actingAs,
      at,
      created,
      args.audit,
      {},
      { queuedAt: args.jobsQueuedAt, priority: args.jobsPriority },
    );
  }

  /** Where a transaction's reads go (a single transaction reads from the pool). */
  function reader(tx: ActorTx): Sql {
    if (!tx.single) return tx.sql;
    if (tx.single.wrote) throw new Error('a single transaction went on after its write');
    return tx.single.pool;
  }

  /**
   * `send`: load (or take `loaded`) → check the event against the kind's event schema → `can()` →
   * transition. `event` is unknown here: `send`'s type or `sendStored`'s caller vouches for nothing.
   */
  async function deliver(
    tx: ActorTx,
    names: MachineKind | readonly MachineKind[],
    ref: ActorRef,
    event: unknown,
    options: SendOptions,
  ): Promise<SendResult> {
    checkDepth(tx);
    const prepared = await prepareSend(tx, names, ref, event, options);
    if (!('kind' in prepared)) return prepared;
    const [done] = await writeAndFinish(tx, [[prepared]], [prepared], options.urgent === true);
    return { outcome: 'applied', ...(done as Transitioned) };
  }

  /**
   * Writes `groups` (a statement each: see `write`) and finishes `order` (`finish`: the follow-ups).
   * In a real transaction the follow-ups do not wait for the writes' answers: the connection
   * pipelines their statements behind the writes (which the server runs first, in order), and the
   * answers are checked before this returns — a version miss still fails the transaction, which
   * rolls back what the follow-ups did — except those `write` leaves to the commit (rows the
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

  /** `send` up to its write: the transition prepared (`prepare`), or why there is none. */
  async function prepareSend(
    tx: ActorTx,
    names: MachineKind | readonly MachineKind[],
    ref: ActorRef,
    event: unknown,
    options: SendOptions,
  ): Promise<Prepared | Exclude<SendResult, { outcome: 'applied' }>> {
    const lock = options.lock === true && !tx.single;
    const own = ownWrite(tx, names, ref);
    const given = own ?? (tx.attempt === 1 && !lock ? options.loaded : undefined);
    const ahead = given || !lock ? undefined : takeAhead(tx, names, ref);
    const loaded = given ?? (ahead ? await ahead : await load(reader(tx), names, ref, lock));
    if (!loaded) return { outcome: 'not_found' };
    const kind = entry(loaded.def.name);
    const parsed = kind.def.eventSchema.safeParse(event);
    if (!parsed.success) {
      const issues = zodIssues(parsed.error, 'event');
      log.warn({ kind: kind.def.name, actorId: ref.id, issues }, 'event refused by its schema');
      return { outcome: 'invalid', issues };
    }
    const valid: { type: string; [key: string]: unknown } = parsed.data;
    if (!loaded.snapshot.can(valid)) return { outcome: 'refused', actor: loaded };
    const [next, actions] = kind.stepper.next(loaded.snapshot, valid);
    const at = new Date(clock.now()).toISOString();
    const prepared = await prepare(
      tx,
      kind,
      loaded.row,
      stateName(loaded.snapshot.value),
      next,
      actions,
      valid,
      options.actingAs,
      at,
      null,
      options.audit,
      options,
      {},
    );
    // Locked: written before in this transaction, or loaded here with the lock.
    prepared.locked = own !== undefined || (given === undefined && lock);
    return prepared;
  }

  /** The locked load of `ref` sent ahead in `tx` (`loadAhead`), taken: a later send loads anew. */
  function takeAhead(
    tx: ActorTx,
    names: MachineKind | readonly MachineKind[],
    ref: ActorRef,
  ): Promise<LoadedActor | null> | undefined {
    if (tx.ahead.size === 0) return undefined;
    const key = keyOf(names, ref);
    const found = tx.ahead.get(key);
    if (!found || found.orgId !== ref.orgId) return undefined;
    tx.ahead.delete(key);
    return found.loaded;
  }

  /** The actor as `tx` last updated it (its row locked by `tx`), if it is one of `names` in `ref`'s org. */
  function ownWrite(
    tx: ActorTx,
    names: MachineKind | readonly MachineKind[],
    ref: ActorRef,
  ): LoadedActor | undefined {
    if (tx.updated.size === 0) return undefined;
    const list = entriesOf(names);
    const own = tx.updated.get(rowKey((list[0] as KindEntry).def.table, ref.id));
    if (!own || own.row.orgId !== ref.orgId || !list.some((e) => e.def === own.def)) return undefined;
    return own;
  }

  function checkDepth(tx: ActorTx): void {
    if (tx.depth > maxDepth) {
      throw new Error(`actor transitions cascaded deeper than ${maxDepth}; a follow-up loop?`);
    }
  }

  return {
    register(def) {
      if (kinds.has(def.name)) throw new Error(`actor kind ${def.name} registered twice`);
      if (def.machine.id !== def.name) {
        throw new Error(`actor kind ${def.name} is not registered with its machine (${def.machine.id})`);
      }
      const columns = columnLayout(def);
      for (const other of kinds.values()) {
        if (other.def.table !== def.table) continue;
        const same = other.columns.loaded.join() === columns.loaded.join();
        if (!same || !other.def.discriminator || !def.discriminator) {
          throw new Error(`actor kinds ${other.def.name} and ${def.name} share ${def.table} incompatibly`);
        }
      }
      const statements = buildStatements(def, columns);
      // Creations go one statement at a time (bigger batches, no contention between them: see
      // batcher.ts); updates keep three in flight unless the kind says otherwise, which the webhook
      // delivery drain needs (each delivery's attempts wait on its updates while others are in flight).
      // Urgent updates have a lane of three of their own: a kind that batches its updates one
      // statement at a time for throughput does not make a transition that work waits on queue
      // behind those batches.
      const batcher = (mode: 'insert' | 'update', maxInFlight: number) =>
        createStatementBatcher({ sql: db, statements: statements[mode], maxInFlight });
      kinds.set(def.name, {
        def,
        columns,
        statements,
        batchers: {
          insert: batcher('insert', 1),
          update: batcher('update', def.updatesInFlight ?? 3),
          urgent: batcher('update', 3),
        },
        stepper: createStepper(def.machine),
        lockedWith: Object.keys(def.lockedWith ?? {}),
      });
    },

    kind: (name) => entry(name).def,

    kinds: () => [...kinds.values()].map((e) => e.def),

    async transact(fn, options = {}) {
      let single = options.single === true;
      for (let attempt = 1; ; attempt++) {
        const state = new TxState();
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

    allocateId: (tx, name) => ids.next(entry(name).def.sequence, reader(tx)),

    async create(tx, name, args) {
      checkDepth(tx);
      const prepared = await prepareCreation(tx, entry(name), args);
      const [done] = await writeAndFinish(tx, [[prepared]], [prepared], false);
      return done as Transitioned;
    },

    async createMany(tx, name, list) {
      checkDepth(tx);
      const kind = entry(name);
      const prepared: Prepared[] = [];
      for (const args of list) prepared.push(await prepareCreation(tx, kind, args));
      return writeAndFinish(tx, [prepared], prepared, false);
    },

    send: deliver,

    sendMany: deliverMany,

    sendStored: (tx, name, ref, event, options) => deliver(tx, entry(name).def.name, ref, event, options),

    load,

    loadAhead(tx, names, ref) {
      if (tx.single) return;
      const key = keyOf(names, ref);
      if (tx.ahead.has(key) || tx.updated.has(key)) return;
      const loaded = load(tx.sql, names, ref, true);
      // Awaited by the send that takes it; a transaction that fails first never does.
      loaded.catch(() => undefined);
      tx.ahead.set(key, { orgId: ref.orgId, loaded });
    },

    resolveRow: (names, raw) => resolveRow(entriesOf(names), raw),

    onWake(listener) {
      listeners.push(listener);
    },
  };
}
