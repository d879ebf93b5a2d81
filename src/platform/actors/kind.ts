/**
 * What the actor host needs to know about one kind of persisted actor: its machine, its table, how a
 * snapshot projects onto queryable columns, and how its effects are performed.
 */
import type {
  AnyMachineSnapshot,
  AnyStateMachine,
  ContextFrom,
  EventFrom,
  InputFrom,
  SnapshotFrom,
  StateMachine,
} from 'xstate';
import type { z } from 'zod';
import type { Effect } from '../../../machines/index.js';
import type { Attribution } from '../auth/attribution.js';
import type { ActorTx } from './tx.js';
import type { TransitionWrites } from './writes.js';

/** An actor's row as the host loads it: identity, snapshot, version and the kind's `load` columns. */
export interface ActorRow {
  id: number;
  orgId: number;
  version: number;
  /** The last run-event sequence (0 for kinds without run events). */
  lastSeq: number;
  /** The persisted snapshot, as stored. */
  snapshot: unknown;
  /** The kind's `load` columns, by column name. */
  columns: Record<string, unknown>;
}

/**
 * What an effect handler sees: the transition that produced the effect, typed by the kind's machine
 * `M` (its snapshot and events; any kind's by default).
 */
export interface EffectContext<M extends AnyStateMachine = AnyStateMachine> {
  tx: ActorTx;
  def: ActorKindDef;
  /** The actor's row before the transition (`id` is set on creation too). */
  row: ActorRow;
  /** The snapshot after the transition (resolved). */
  after: SnapshotFrom<M>;
  /** The projected columns after the transition. */
  projection: Record<string, unknown>;
  /** The event that caused the transition (`{type: 'xstate.init', input}` on creation). */
  event: EventFrom<M> | { type: 'xstate.init'; input: InputFrom<M> };
  /** ISO time of the transition (the host's clock). */
  at: string;
  actingAs: Attribution;
  /** Where handlers put rows (written in the transition's statement) and follow-up work. */
  writes: TransitionWrites;
}

/**
 * Performs one effect, given its params `P` (the effect's own, by its type); add rows to
 * `ctx.writes`, or queue follow-up work with `ctx.writes.followUp()`. (Declared as a method, so a
 * kind's handler typed by its own effect and machine is one of any kind's.)
 */
export type EffectHandler<P = unknown, M extends AnyStateMachine = AnyStateMachine> = {
  perform(params: P, ctx: EffectContext<M>): void | Promise<void>;
}['perform'];

/** The actions `M` emits, as xstate types them (`{type, params}` each). */
type ActionOf<M extends AnyStateMachine> =
  // biome-ignore lint/suspicious/noExplicitAny: only the action type is read
  M extends StateMachine<any, any, any, any, infer A, any, any, any, any, any, any, any, any, any, any>
    ? A
    : never;

/**
 * The effects machine `M` emits (those its `setup` names with `effectActionsOf`): a union
 * discriminated by `type`, each member with its own params.
 */
export type EffectOf<M extends AnyStateMachine> = Extract<ActionOf<M>, Effect>;

/** The effects the host performs for every kind (builtin-effects.ts): jobs and durable timers. */
export type BuiltinEffectType = 'enqueueJob' | 'scheduleTimer' | 'cancelTimer';

/**
 * A kind's effect handlers: one for each effect its machine `M` emits that the host does not perform
 * itself, each given that effect's params. For any kind's machine: handlers by effect name.
 */
export type EffectHandlers<M extends AnyStateMachine> = 0 extends 1 & ActionOf<M>
  ? Readonly<Partial<Record<string, EffectHandler>>>
  : {
      readonly [E in Exclude<EffectOf<M>, { type: BuiltinEffectType }> as E['type']]: EffectHandler<
        E['params'],
        M
      >;
    };

/** A machine snapshot as the host holds it (any kind's). */
export type MachineSnapshotLike = AnyMachineSnapshot;

/**
 * The kinds' registry: each kind name's machine, which `send` and `create` are typed by. Empty here:
 * the features declare their machines (`defineFeature`'s `machines`), and src/features.ts merges them
 * all into this interface, so the platform is typed by every kind without knowing a feature.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging (src/features.ts)
export interface KindMachines {}

/** A persisted actor kind (a key of `KindMachines`). */
export type MachineKind = keyof KindMachines & string;

/** An event of kind `K`'s machine. */
export type EventOf<K extends MachineKind> = EventFrom<KindMachines[K]>;

/** The input kind `K`'s machine is created with. */
export type InputOf<K extends MachineKind> = InputFrom<KindMachines[K]>;

/**
 * An event every kind of `K` understands: for a send to several kinds sharing a table (a run, skill
 * or workflow), only what both machines take (the intersection of their event unions).
 */
export type SharedEventOf<K extends MachineKind> = {
  [k in K]: (event: EventOf<k>) => void;
}[K] extends (event: infer E) => void
  ? E
  : never;

/**
 * What the host does with one of a kind's own columns: `project` — written from `project` after
 * every transition; `create` — supplied by the creator, fixed for the actor's life; `load` — as
 * `create`, and read with the snapshot for effect handlers (`ActorRow.columns`); `read` — read with
 * the snapshot only (a column the table fills itself, such as `created_at`).
 */
export type ColumnUse = 'project' | 'create' | 'load' | 'read';

/** A kind's own columns (beyond `id`, `org_id`, `snapshot`, `version`…), declared once, in a fixed order. */
export type ColumnMap = Readonly<Record<string, ColumnUse>>;

/** The columns `project` fills: the `project` entries of a column map. */
export type Projected<C extends ColumnMap> = string extends keyof C
  ? Record<string, unknown>
  : { [K in keyof C as C[K] extends 'project' ? K : never]: unknown };

/** A column map's columns by use, in the map's order (`load` columns are both created and loaded). */
export interface ColumnLayout {
  projected: readonly string[];
  created: readonly string[];
  loaded: readonly string[];
}

/**
 * The columns of `def` by use. The `project` columns that hold a context field (`contextInColumns`)
 * are read with the snapshot too, after the `load` and `read` ones.
 */
export function columnLayout(def: Pick<ActorKindDef, 'name' | 'columns' | 'contextInColumns'>): ColumnLayout {
  const entries = Object.entries(def.columns);
  const named = (...uses: ColumnUse[]) => entries.filter(([, use]) => uses.includes(use)).map(([c]) => c);
  const projected = named('project');
  // The values of a typed map (field → one of the kind's projected columns; absent fields aside).
  const held = Object.values(def.contextInColumns ?? {}) as string[];
  for (const column of held) {
    if (!projected.includes(column)) {
      throw new Error(`actor kind ${def.name}: context column ${column} is not a projected column`);
    }
  }
  return { projected, created: named('create', 'load'), loaded: [...named('load', 'read'), ...held] };
}

/**
 * One kind of persisted actor, typed by its machine: `project` gets the machine's own snapshot type
 * and returns exactly the columns the map declares `project`, so a kind's projection needs no cast
 * (the host holds them all as `ActorKindDef`).
 */
export interface ActorKindDef<M extends AnyStateMachine = AnyStateMachine, C extends ColumnMap = ColumnMap> {
  /** The kind's name (the machine's id, its feature's key for it): `actor_kind` in the transition log and the timers table. */
  readonly name: MachineKind;
  readonly machine: M;
  /** Every event the machine understands: an event is checked against it before it reaches the machine. */
  readonly eventSchema: z.ZodType<EventFrom<M>>;
  /** Table of the actor rows: `id`, `org_id`, `snapshot`, `version`, `created_at`, `updated_at` (+ `last_seq`). */
  readonly table: string;
  /** Sequence the ids come from (allocated before the row is written: the machine's input names the id). */
  readonly sequence: string;
  /** For kinds sharing a table: the column and value that mark this kind's rows. */
  readonly discriminator?: { column: string; value: string };
  /** Validates a loaded snapshot's context (zod at the database edge). */
  readonly contextSchema: z.ZodType;
  /** The kind's own columns and what fills each. */
  readonly columns: C;
  /**
   * Values of `create`/`load` columns a creator may leave out. The insert fills the row from JSON
   * (`json_populate_recordset`), which knows no column defaults: a left-out column is NULL, so a
   * NOT NULL column with a default in the schema needs its default here too.
   */
  readonly createDefaults?: Readonly<Record<string, unknown>>;
  /**
   * Context fields kept in their projected column only (field → column; the column's projection must
   * be the field as it is): left out of the stored snapshot and put back from the column when the
   * actor is loaded, so a large value (a run's output, its steps' results) is written once per
   * transition, not twice. A snapshot stored with the field (before the kind named it) still loads:
   * the column's value replaces it.
   */
  readonly contextInColumns?: {
    readonly [F in keyof ContextFrom<M> & string]?: keyof Projected<C> & string;
  };
  /** Snapshot → the projected columns (snake_case). Called after every transition. */
  project(snapshot: Pick<SnapshotFrom<M>, 'value' | 'context'>): Projected<C>;
  /** Whether rows keep a run-event log (`last_seq` column, `run_events` rows). */
  readonly runEvents: boolean;
  /** The event log's table when it is not `run_events` (same columns; `run_id` names the actor). */
  readonly eventsTable?: string;
  /**
   * Handlers of this kind's effects, one per effect its machine emits (typed by it: each gets its own
   * effect's params); the host performs enqueueJob, scheduleTimer and cancelTimer.
   */
  readonly effects: EffectHandlers<M>;
  /**
   * Extra tables a transition of this kind may write (rows given with `send`'s `extraRows`), written
   * only when the actor's row is: name → the CTE's SQL, given the `$n` of the rows' JSON array. The SQL
   * must join `a` (the written actors, column `id`) so a version miss writes nothing.
   */
  readonly extraWrites?: Readonly<Record<string, (rows: string) => string>>;
  /**
   * Values read with a locked load (`SendOptions.lock`) in the same round trip, by name: SQL
   * expressions over the row (`t`), for what the transitions that follow such a load need (a mission
   * run's next tasks' agents and skills). Effect handlers find them in `ctx.row.columns`, after a
   * locked load only.
   */
  readonly lockedWith?: Readonly<Record<string, string>>;
  /**
   * Update statements of this kind in flight at once (default 3; see batcher.ts). Fewer means
   * bigger batches; more lets transitions that wait on each other's updates overlap. Urgent updates
   * (`SendOptions.urgent`) have a lane of their own with three.
   */
  readonly updatesInFlight?: number;
  /**
   * The priority of the jobs a transition of actor `row` enqueues (`Job.priority`), for every
   * transition of it — its creation's and each later one's (a retry, a step run again) — unless the
   * creation names its own (`CreateArgs.jobsPriority`); undefined: 0. For what an actor is rather
   * than what one event asks: an evaluation's shadow run keeps all its jobs in the background.
   * `row.columns` holds the kind's `load` columns.
   */
  jobsPriority?(row: ActorRow): number | undefined;
  /**
   * Fields the jobs a transition of actor `row` enqueues carry in their payload besides their
   * effect's params, for every transition of it (like `jobsPriority`, for what the actor is): a
   * mission's child run's jobs name their mission run (see runs/run-kinds.ts). Undefined: none.
   */
  jobsPayload?(row: ActorRow): Record<string, unknown> | undefined;
}

/** Identifies one actor: the org is part of every lookup (tenancy), so a foreign id is not found. */
export interface ActorRef {
  orgId: number;
  id: number;
}
