/**
 * The actor host's API: what callers (run service, step executor, timers, review queue, webhooks)
 * pass to and get from `ActorHost` (host.ts).
 */
import type { Effect } from '../../../machines/index.js';
import type { Attribution } from '../auth/attribution.js';
import type { Db, Sql } from '../db/sql.js';
import type { FieldIssue } from '../errors.js';
import type { JobQueue } from '../jobs/interfaces.js';
import type { Logger } from '../log.js';
import type { Clock } from '../util/clock.js';
import type { IdAllocator } from './ids.js';
import type {
  ActorKindDef,
  ActorRef,
  ActorRow,
  InputOf,
  MachineKind,
  MachineSnapshotLike,
  SharedEventOf,
} from './kind.js';
import type { ActorTx, Wake } from './tx.js';

/** The version of an actor moved between load and write; `transact` retries on it. */
export class OptimisticConflictError extends Error {
  override readonly name = 'OptimisticConflictError';
  constructor(
    readonly kind: string,
    readonly id: number,
  ) {
    super(`${kind} ${id} was changed by another transaction`);
  }
}

/** A loaded actor: its kind, its row and its resolved snapshot. */
export interface LoadedActor {
  def: ActorKindDef;
  row: ActorRow;
  snapshot: MachineSnapshotLike;
}

/** What a transition did. */
export interface Transitioned {
  /** The actor after the transition (row version and snapshot updated). */
  actor: LoadedActor;
  from: string | null;
  to: string;
  effects: Effect[];
  projection: Record<string, unknown>;
}

/**
 * The outcome of `send`. `invalid`: the event does not match the machine's event schema (`issues`
 * name its fields, `event.<path>`); it never reached the machine, and nothing was loaded or written.
 */
export type SendResult =
  | ({ outcome: 'applied' } & Transitioned)
  | { outcome: 'refused'; actor: LoadedActor }
  | { outcome: 'not_found' }
  | { outcome: 'invalid'; issues: FieldIssue[] };

/** An audit row written with the transition (org, actor, token and time come from it). */
export interface TransitionAudit {
  action: string;
  targetKind?: string | null;
  /** Defaults to the actor's id. */
  targetId?: string | null;
  details?: Record<string, unknown>;
  requestId?: string | null;
}

/** Arguments of `create` for kind `K`. */
export interface CreateArgs<K extends MachineKind = MachineKind> {
  orgId: number;
  /** The id, when the caller took it beforehand (`ActorHost.allocateId`); else the host takes one. */
  id?: number;
  /** The machine's input, given the new actor's id and the creation time (ISO). */
  input(id: number, at: string): InputOf<K>;
  /** The kind's `create` and `load` columns. */
  columns: Record<string, unknown>;
  actingAs: Attribution;
  audit?: TransitionAudit;
  /**
   * Where the jobs this creation enqueues stand in the queue: claimed as if enqueued at this time
   * (ISO) instead of now. A mission run's child runs pass the mission run's creation, so work of
   * earlier missions goes before later missions' (see missions/children.ts); undefined: now.
   */
  jobsQueuedAt?: string;
  /**
   * The priority of the jobs this creation enqueues (`Job.priority`: claimed first, their statements
   * first in line for a connection); undefined: 0. A mission's task whose dependencies finished passes
   * 1: its mission waits on it (see missions/children.ts).
   */
  jobsPriority?: number;
}

/** Options of `send`. */
export interface SendOptions {
  actingAs: Attribution;
  audit?: TransitionAudit;
  /**
   * The actor as the caller already read it (saves the load). Safe however old: the write checks its
   * version, and a conflict reruns the transaction, whose later attempts load afresh.
   */
  loaded?: LoadedActor | undefined;
  /**
   * Lock the actor's row when loading it (a real transaction only; `loaded` is then not used): for a
   * transition that other transactions are likely to make at the same moment (siblings reporting to
   * one parent), which then wait for each other instead of all but one failing the version check at
   * their write and rerunning the whole transaction.
   */
  lock?: boolean;
  /**
   * Events applied after `event`, in order, in the same write (a transition-log row each; one the
   * machine refuses by then is skipped with a warning): what several senders of one transaction
   * told the actor (`ActorTx.gather`). The first event itself must be taken, or nothing is.
   */
  followedBy?: ReadonlyArray<{ type: string; [key: string]: unknown }>;
  /** Rows for the kind's `extraWrites`, by name: written with the transition, only if it applies. */
  extraRows?: Record<string, Record<string, unknown>[]>;
  /** The job this transition reports on: completed (deleted) with it, if `workerId` still holds it. */
  completesJob?: { id: number; workerId: string };
  /**
   * Work waits on this transition's commit (a tool call executes only once its TOOLS_REQUESTED is
   * committed): an update in a single transaction goes through the kind's urgent lane, three
   * statements in flight, instead of queueing behind the kind's batches (`updatesInFlight`).
   */
  urgent?: boolean;
}

/** One send of `sendMany`. */
export interface SendItem {
  ref: ActorRef;
  event: unknown;
  options: SendOptions;
}

/** Options of `transact`. */
export interface TransactOptions {
  /** `fn` makes exactly one transition (see `ActorHost.transact`). */
  single?: boolean;
  /**
   * Actors the caller read before the transaction: a send to one of them in it — the caller's own,
   * or a follow-up's — starts from that copy on the first attempt without lock, as
   * `SendOptions.loaded` (safe however old: the write checks its version, and a conflict reruns the
   * transaction, whose later attempts load afresh). Found by `ActorTx.known`.
   */
  loaded?: readonly LoadedActor[];
}

export interface ActorHostOptions {
  db: Db;
  clock: Clock;
  log: Logger;
  ids?: IdAllocator;
  /** Attempts of a transaction that hits optimistic conflicts or serialization failures (default 6). */
  maxAttempts?: number;
  /** How deep follow-up transitions may cascade (default 4). */
  maxDepth?: number;
  /**
   * The job queue of this process, for jobs that go first: one it can run at once is written leased
   * to it and started after the commit (`JobQueue.lease`). Without it every job is claimed.
   */
  jobs?: Pick<JobQueue, 'lease' | 'startLeased'>;
  /**
   * Told the size of every batch of single-statement transitions as it goes out (batcher.ts): a
   * serving process that runs no jobs tells the workers to step back when its writes queue
   * (src/platform/jobs/hold.ts).
   */
  onBatch?: (size: number) => void;
}

/** The actor host. */
export interface ActorHost {
  /**
   * Adds a kind; its name must be its machine's id (and its feature's key for the machine: see
   * feature.ts). Kinds sharing a table must share their `load` columns and have discriminators.
   */
  register(def: ActorKindDef): void;
  /** A registered kind; throws for an unknown name. */
  kind(name: MachineKind): ActorKindDef;
  /** Every registered kind, in the order registered. */
  kinds(): ActorKindDef[];
  /**
   * Runs `fn` in one database transaction, retrying the whole of it on an optimistic conflict or a
   * serialization failure; after commit, wakes the loops that have new work. The one entry point.
   * With `single`, `fn` makes one transition: when that is one statement it runs without BEGIN and
   * COMMIT (a round trip each); anything more reruns `fn` in a real transaction (see tx.ts).
   */
  transact<T>(fn: (tx: ActorTx) => Promise<T>, options?: TransactOptions): Promise<T>;
  /**
   * An id for an actor of `kind` to be created later (`CreateArgs.id`), from the kind's sequence as
   * `create` takes them: so a transition can name an actor its follow-up creates.
   */
  allocateId(tx: ActorTx, kind: MachineKind): Promise<number>;
  /** Creates an actor of `kind`: id, initial transition, row and effects in one statement. */
  create<K extends MachineKind>(tx: ActorTx, kind: K, args: CreateArgs<K>): Promise<Transitioned>;
  /**
   * Creates several actors of `kind` in `tx` with one statement (`create` each writes its own): their
   * ids and machines in `list`'s order, their follow-ups after the write, in that order. A single
   * transaction needs a real one for more than one.
   */
  createMany<K extends MachineKind>(
    tx: ActorTx,
    kind: K,
    list: readonly CreateArgs<K>[],
  ): Promise<Transitioned[]>;
  /**
   * Sends `event` to the actor `ref`. `kinds` names one kind, or several sharing a table (the row's
   * discriminator picks the one; the event must then be one every kind of them takes). The event is
   * checked against the kind's event schema first: a mismatch is answered `invalid` and never
   * reaches the machine. Not found covers another org's id.
   */
  send<K extends MachineKind>(
    tx: ActorTx,
    kinds: K | readonly K[],
    ref: ActorRef,
    event: SharedEventOf<K>,
    options: SendOptions,
  ): Promise<SendResult>;
  /**
   * Several `send`s in `tx` (to `kinds`, each as `send` would) whose writes share one statement per
   * kind, their follow-ups after it, in order; each item's outcome. The events are the caller's to
   * vouch for (checked at run time, as `sendStored`'s). A single transaction needs a real one for
   * more than one write.
   */
  sendMany(
    tx: ActorTx,
    kinds: MachineKind | readonly MachineKind[],
    items: readonly SendItem[],
  ): Promise<SendResult[]>;
  /**
   * `send` for an event read from storage (a timer row): the kind is a name and the event plain
   * JSON, both checked at run time (an unknown kind throws; an event the kind does not take is
   * `invalid`).
   */
  sendStored(
    tx: ActorTx,
    kind: string,
    ref: ActorRef,
    event: unknown,
    options: SendOptions,
  ): Promise<SendResult>;
  /**
   * `sendMany` for events read from storage (timer rows), as `sendStored` checks them: the kind is a
   * name. Items with `lock` have their locked loads sent together first (`loadAhead`), so the
   * connection pipelines them in one write instead of a round trip each.
   */
  sendStoredMany(tx: ActorTx, kind: string, items: readonly SendItem[]): Promise<SendResult[]>;
  /**
   * Sends the locked load of `ref` (as `SendOptions.lock` would) now, without waiting for it: the
   * connection pipelines it with the statements that follow (the transition being written), and a
   * later `send` to it with `lock` in this transaction takes its answer instead of a round trip of its
   * own. For a transition known to come (a child's report to its parent). Nothing in a single
   * transaction.
   */
  loadAhead(tx: ActorTx, kinds: MachineKind | readonly MachineKind[], ref: ActorRef): void;
  /** Loads an actor (without locking it). */
  load(sql: Sql, kinds: MachineKind | readonly MachineKind[], ref: ActorRef): Promise<LoadedActor | null>;
  /**
   * The actor in `raw`, a row the caller read itself with the columns a load reads (`id`, `org_id`,
   * `version`, `last_seq`, `snapshot` and the kind's `loadColumns`); null when it is none of `kinds`.
   */
  resolveRow(kinds: MachineKind | readonly MachineKind[], raw: Record<string, unknown>): LoadedActor | null;
  /**
   * The select list of a load of `kinds`' rows from the table aliased `alias`, each column named
   * `<prefix><column>`: for a caller that reads an actor beside rows of its own (one statement), then
   * hands it to `resolveRow` with the same prefix, and to its transaction as `TransactOptions.loaded`
   * so the transition starts from it instead of a load of its own. With an empty prefix the names are
   * the columns' own, for `resolveRow` of the whole row.
   */
  loadColumns(kinds: MachineKind | readonly MachineKind[], alias: string, prefix: string): string;
  /** `resolveRow` of the columns of `raw` named `<prefix><column>` (`loadColumns`). */
  resolvePrefixed(
    kinds: MachineKind | readonly MachineKind[],
    raw: Record<string, unknown>,
    prefix: string,
  ): LoadedActor | null;
  /** Calls `listener` after each commit that gave `what` new work. */
  onWake(listener: (what: Wake) => void): void;
}
