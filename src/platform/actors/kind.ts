/**
 * What the actor host needs to know about one kind of persisted actor: its machine, its table, how a
 * snapshot projects onto queryable columns, and how its effects are performed.
 */
import type { AnyStateMachine, SnapshotFrom } from 'xstate';
import type { z } from 'zod';
import type { Effect } from '../../../machines/index.js';
import type { Attribution } from '../auth/attribution.js';
import type { ActorTx } from './tx.js';
import type { TransitionWrites } from './writes.js';

/** An actor's row as the host loads it: identity, snapshot, version and the kind's `loadColumns`. */
export interface ActorRow {
  id: number;
  orgId: number;
  version: number;
  /** The last run-event sequence (0 for kinds without run events). */
  lastSeq: number;
  /** The persisted snapshot, as stored. */
  snapshot: unknown;
  /** The kind's `loadColumns`, by column name. */
  columns: Record<string, unknown>;
}

/** What an effect handler sees: the transition that produced the effect. */
export interface EffectContext {
  tx: ActorTx;
  def: ActorKindDef;
  /** The actor's row before the transition (`id` is set on creation too). */
  row: ActorRow;
  /** The snapshot after the transition (resolved). */
  after: MachineSnapshotLike;
  /** The projected columns after the transition. */
  projection: Record<string, unknown>;
  /** The event that caused the transition (`{type: 'xstate.init', input}` on creation). */
  event: { type: string; [key: string]: unknown };
  /** ISO time of the transition (the host's clock). */
  at: string;
  actingAs: Attribution;
  /** Where handlers put rows (written in the transition's statement) and follow-up work. */
  writes: TransitionWrites;
}

/** Performs one effect; add rows to `ctx.writes`, or queue follow-up work with `ctx.writes.followUp()`. */
export type EffectHandler = (params: unknown, ctx: EffectContext) => void | Promise<void>;

/** The part of an xstate snapshot the host uses. */
export interface MachineSnapshotLike {
  value: unknown;
  context: unknown;
  can(event: { type: string }): boolean;
}

/**
 * One kind of persisted actor, typed by its machine: `project` gets the machine's own snapshot type,
 * so a kind's projection needs no cast (the host holds them all as `ActorKindDef`).
 */
export interface ActorKindDef<M extends AnyStateMachine = AnyStateMachine> {
  /** The kind's name (the machine's id): `actor_kind` in the transition log and the timers table. */
  readonly name: string;
  readonly machine: M;
  /** Table of the actor rows: `id`, `org_id`, `snapshot`, `version`, `created_at`, `updated_at` (+ `last_seq`). */
  readonly table: string;
  /** Sequence the ids come from (allocated before the row is written: the machine's input names the id). */
  readonly sequence: string;
  /** For kinds sharing a table: the column and value that mark this kind's rows. */
  readonly discriminator?: { column: string; value: string };
  /** Validates a loaded snapshot's context (zod at the database edge). */
  readonly contextSchema: z.ZodType;
  /** Snapshot → projected columns (snake_case). Called after every transition. */
  project(snapshot: Pick<SnapshotFrom<M>, 'value' | 'context'>): Record<string, unknown>;
  /** The keys `project` returns, in a fixed order. */
  readonly projectedColumns: readonly string[];
  /** Columns the creator supplies (fixed for the actor's life), in a fixed order. */
  readonly createColumns: readonly string[];
  /** Columns read with the snapshot, for effect handlers. */
  readonly loadColumns: readonly string[];
  /** Columns (projected or created) stored as json/jsonb: values are JSON-encoded. */
  readonly jsonColumns: ReadonlySet<string>;
  /** Whether rows keep a run-event log (`last_seq` column, `run_events` rows). */
  readonly runEvents: boolean;
  /** The event log's table when it is not `run_events` (same columns; `run_id` names the actor). */
  readonly eventsTable?: string;
  /** Handlers of this kind's effects; the host supplies enqueueJob, scheduleTimer and cancelTimer. */
  readonly effects?: Partial<Record<Effect['type'], EffectHandler>>;
  /**
   * Extra tables a transition of this kind may write (rows given with `send`'s `extraRows`), written
   * only when the actor's row is: name → the CTE's SQL, given the `$n` of the rows' JSON array. The SQL
   * must join `a` (the written actors, column `id`) so a version miss writes nothing.
   */
  readonly extraWrites?: Readonly<Record<string, (rows: string) => string>>;
  /**
   * Update statements of this kind in flight at once (default 3; see batcher.ts). Fewer means
   * bigger batches; more lets transitions that wait on each other's updates overlap.
   */
  readonly updatesInFlight?: number;
}

/** Identifies one actor: the org is part of every lookup (tenancy), so a foreign id is not found. */
export interface ActorRef {
  orgId: number;
  id: number;
}
