/**
 * The prepare stage: a transition computed, its effects performed and its rows built, nothing written
 * yet. For a send: the event checked against the kind's event schema (a mismatch is `invalid`) and
 * against the state (`can()`; false is `refused`), then the machine's pure step (stepper.ts); for a
 * creation: its id taken and its machine started. Then each effect goes to its kind's handler (or the
 * host's own: builtin-effects.ts), which puts rows into the transition's `TransitionWrites`; the
 * events its settlers answer (`writes.settle`) and those sent after it (`SendOptions.followedBy`) are
 * applied one after the other, each a transition of its own written with the first; the jobs that go
 * first are leased to this process (`JobQueue.lease`); and the rows of the transition's one
 * statement are built (rows.ts).
 */
import { type Effect, toEffects } from '../../../machines/index.js';
import type { Attribution } from '../auth/attribution.js';
import { zodIssues } from '../http/validate.js';
import type { Job, JobQueue } from '../jobs/interfaces.js';
import type { Logger } from '../log.js';
import type { Clock } from '../util/clock.js';
import { builtinEffects } from './builtin-effects.js';
import type { IdAllocator } from './ids.js';
import type { ActorRow, EffectContext, EffectHandler, MachineSnapshotLike } from './kind.js';
import type { StartingActor } from './load.js';
import type { KindEntry, KindRegistry } from './registry.js';
import { stateName, storedSnapshot, type TransitionStep, transitionRows } from './rows.js';
import type { TransitionRows } from './statements.js';
import { type ActorTx, reader } from './tx.js';
import type { CreateArgs, SendOptions, SendResult, TransitionAudit } from './types.js';
import { type JobRow, TransitionWrites } from './writes.js';

/** A transition computed, its effects performed and its rows built; not yet written. */
export interface Prepared {
  kind: KindEntry;
  row: ActorRow;
  from: string | null;
  /** The state written: after the settled events, if any. */
  to: string;
  next: MachineSnapshotLike;
  /** The effects of every transition written. */
  effects: Effect[];
  projection: Record<string, unknown>;
  /** The snapshot as stored (`storedSnapshot`: without the context fields the kind keeps in columns). */
  persisted: unknown;
  writes: TransitionWrites;
  rows: TransitionRows;
  /** A creation (an insert), else an update. */
  created: boolean;
  /**
   * The row is this transaction's until it ends (loaded `for update`, or written by it before), so
   * the update's version check cannot miss: its answer may wait for the commit (write.ts).
   */
  locked: boolean;
  /** The jobs written leased to this process, to start after the commit (finish.ts). */
  leased: Job[];
}

/** The prepare stage. */
export interface PrepareStage {
  /**
   * `event` sent to `starting` (the load stage's), prepared; or why there is none. `event` is unknown
   * here: `send`'s type or `sendStored`'s caller vouches for nothing.
   */
  send(
    tx: ActorTx,
    starting: StartingActor,
    event: unknown,
    options: SendOptions,
  ): Promise<Prepared | Exclude<SendResult, { outcome: 'applied' | 'not_found' }>>;
  /** A creation of `kind` from `args`, prepared: its id allocated, its machine started. */
  creation(tx: ActorTx, kind: KindEntry, args: CreateArgs): Promise<Prepared>;
}

/** How many transitions one write may carry: the first, then settled and `followedBy` events. */
const MAX_CHAINED_STEPS = 32;

/** One machine step to prepare, with what its rows need. */
interface Step {
  row: ActorRow;
  from: string | null;
  next: MachineSnapshotLike;
  actions: readonly { type: string; params?: unknown }[];
  event: { type: string; [key: string]: unknown };
  by: Attribution;
  at: string;
  /** A creation's `create` and `load` columns; null for an update. */
  insert: Record<string, unknown> | null;
  audit: TransitionAudit | undefined;
  also: Pick<SendOptions, 'extraRows' | 'completesJob' | 'followedBy'>;
  jobs: { queuedAt?: string | undefined; priority?: number | undefined };
}

/** The prepare stage of `kinds`. `jobs`: this process's queue, for jobs that go first (else none are leased). */
export function createPrepareStage(deps: {
  kinds: KindRegistry;
  ids: IdAllocator;
  clock: Clock;
  log: Logger;
  jobs?: Pick<JobQueue, 'lease'> | undefined;
}): PrepareStage {
  const { kinds, ids, clock, log } = deps;

  /** The transition of `step`, its effects performed, the events it settles applied, its rows built. */
  async function prepare(tx: ActorTx, kind: KindEntry, step: Step): Promise<Prepared> {
    const { def } = kind;
    const { row, at, by } = step;
    const writes = new TransitionWrites(row.lastSeq, step.jobs.queuedAt, step.jobs.priority);
    const steps: TransitionStep[] = [];
    const effects: Effect[] = [];
    let projection: Record<string, unknown> = {};
    /** Performs one transition's effects into `writes`: the first, then each settled event's. */
    const perform = async (
      stepFrom: string | null,
      after: MachineSnapshotLike,
      stepActions: Step['actions'],
      stepEvent: Step['event'],
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
    await perform(step.from, step.next, step.actions, step.event);
    // Then the events the settlers answer (`settle`) and those sent after it
    // (`SendOptions.followedBy`), each a transition of its own written with this one.
    let current = step.next;
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
      const valid: Step['event'] = parsed.data;
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
    for (const followed of step.also.followedBy ?? []) {
      await chain(followed);
      await settle();
    }
    const leased = await leaseJobs(tx, writes.jobs, row.orgId);
    const { audit } = step;
    if (audit) {
      writes.audit.push({
        action: audit.action,
        target_kind: audit.targetKind ?? null,
        target_id: audit.targetId ?? String(row.id),
        details: audit.details ?? {},
        request_id: audit.requestId ?? null,
      });
    }
    const persisted = storedSnapshot(def, def.machine.getPersistedSnapshot(current));
    const rows = transitionRows(def, row, {
      also: step.also,
      insert: step.insert,
      projection,
      persisted,
      writes,
      at,
      steps,
      by,
    });
    return {
      kind,
      row,
      from: step.from,
      to: stateName(current.value),
      next: current,
      effects,
      projection,
      persisted,
      writes,
      rows,
      created: step.insert !== null,
      locked: false,
      leased,
    };
  }

  /**
   * Leases the jobs of `jobs` (of org `orgId`) that go first to this process when it can run them at
   * once (`JobQueue.lease`): each gets an id (the allocator's, from `jobs`' sequence) and the lease,
   * and is written claimed. The leased ones as the queue runs them, to start after the commit.
   */
  async function leaseJobs(tx: ActorTx, jobs: readonly JobRow[], orgId: number): Promise<Job[]> {
    const queue = deps.jobs;
    if (!queue) return [];
    const leased: Job[] = [];
    for (const job of jobs) {
      if (!job.priority || job.priority < 0) continue;
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

  return {
    async send(tx, starting, event, options) {
      const { actor, locked } = starting;
      const kind = kinds.entry(actor.def.name);
      const parsed = kind.def.eventSchema.safeParse(event);
      if (!parsed.success) {
        const issues = zodIssues(parsed.error, 'event');
        log.warn({ kind: kind.def.name, actorId: actor.row.id, issues }, 'event refused by its schema');
        return { outcome: 'invalid', issues };
      }
      const valid: Step['event'] = parsed.data;
      if (!actor.snapshot.can(valid)) return { outcome: 'refused', actor };
      const [next, actions] = kind.stepper.next(actor.snapshot, valid);
      const prepared = await prepare(tx, kind, {
        row: actor.row,
        from: stateName(actor.snapshot.value),
        next,
        actions,
        event: valid,
        by: options.actingAs,
        at: new Date(clock.now()).toISOString(),
        insert: null,
        audit: options.audit,
        also: options,
        jobs: { priority: kind.def.jobsPriority?.(actor.row) },
      });
      prepared.locked = locked;
      return prepared;
    },

    async creation(tx, kind, args) {
      const { def } = kind;
      const id = args.id ?? (await ids.next(def.sequence, reader(tx)));
      const at = new Date(clock.now()).toISOString();
      const input = args.input(id, at);
      const [snapshot, actions] = kind.stepper.initial(input);
      // Not `{ ...def.createDefaults, ...args.columns }`: V8 (Node 20) copies a second spread into an
      // object literal property by property through its runtime, many times slower than these loops
      // (same keys, same order; docs/performance.md, "Accepts while workers execute").
      const created: Record<string, unknown> = {};
      const defaults = def.createDefaults;
      if (defaults) for (const column of Object.keys(defaults)) created[column] = defaults[column];
      for (const column of Object.keys(args.columns)) created[column] = args.columns[column];
      if (def.discriminator) created[def.discriminator.column] = def.discriminator.value;
      const columns: Record<string, unknown> = {};
      for (const column of kind.columns.loaded) columns[column] = created[column];
      if (def.discriminator) columns[def.discriminator.column] = def.discriminator.value;
      const row: ActorRow = { id, orgId: args.orgId, version: 0, lastSeq: 0, snapshot: null, columns };
      return prepare(tx, kind, {
        row,
        from: null,
        next: snapshot,
        actions,
        event: { type: 'xstate.init', input },
        by: args.actingAs,
        at,
        insert: created,
        audit: args.audit,
        also: {},
        jobs: { queuedAt: args.jobsQueuedAt, priority: args.jobsPriority ?? def.jobsPriority?.(row) },
      });
    },
  };
}
