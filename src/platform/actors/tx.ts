/**
 * One database transaction as the actor host hands it out (`host.transact`). It carries what must
 * happen once the transaction commits: wake-ups of the loops that consume what it wrote (jobs,
 * outbox, timers) and any `afterCommit` callbacks. Nothing of that runs when it rolls back.
 *
 * A *single* transaction (`transact(fn, {single: true})`) is for exactly one transition: its load
 * and its one statement run on the pool without BEGIN/COMMIT, since one statement is atomic by
 * itself and the version check covers the gap after the load. Anything more (a follow-up transition,
 * any other statement) raises `NeedsTransaction` before anything was written, and the host runs
 * the function again in a real transaction.
 */
import type { Sql } from '../db/sql.js';
import type { LoadedActor } from './types.js';

/**
 * A background loop that a commit may have given work; `urgentJobs`: jobs, some of a priority above 0
 * (the queue's `Job.priority`).
 */
export type Wake = 'jobs' | 'urgentJobs' | 'outbox' | 'timers';

/** A transaction of the actor host. */
export interface ActorTx {
  /** Statements inside the transaction. (In a single transaction, using it falls back to a real one.) */
  readonly sql: Sql;
  /** How many transitions deep this is (a transition's follow-ups run at depth + 1). */
  readonly depth: number;
  /** 1 on the first run of the transaction's function, 2 after a retry, … */
  readonly attempt: number;
  /** Set in a single transaction: the pool, and whether its one statement ran. */
  readonly single: { pool: Sql; wrote: boolean } | null;
  /** Asks for `what` to be woken after commit. */
  wake(what: Wake): void;
  /** Runs `fn` after commit (not after a rollback). Exceptions are logged, never thrown. */
  afterCommit(fn: () => void): void;
  /**
   * Adds `item` to the items gathered under `key` in this transaction; once the transaction's
   * function is done, before the commit, `flush` (the first one given for the key) gets them all, in
   * order, in the transaction. For what several transitions of one transaction each tell one other
   * actor — siblings reporting to their parent — to reach it as one transition of it. Flushes run in
   * the order their keys were first gathered; one may gather more (flushed after it). In a single
   * transaction it asks for a real one.
   */
  gather<T>(key: string, item: T, flush: (tx: ActorTx, items: T[]) => Promise<void>): void;
  /**
   * The actors this transaction updated, as it left them (by `<table>:<id>`): their rows are locked
   * until it ends, so a later transition of one in it starts from here instead of loading it again.
   */
  readonly updated: Map<string, LoadedActor>;
  /** Locked loads sent ahead (`ActorHost.loadAhead`), by `<table>:<id>`, until a send takes one. */
  readonly ahead: Map<string, { orgId: number; loaded: Promise<LoadedActor | null> }>;
  /** The actors the caller read before the transaction (`TransactOptions.loaded`), by `<table>:<id>`. */
  readonly known: ReadonlyMap<string, LoadedActor>;
}

/** Raised inside a single transaction that turns out to need a real one; nothing was written yet. */
export class NeedsTransaction extends Error {
  override readonly name = 'NeedsTransaction';
  constructor() {
    super('this work needs a database transaction');
  }
}

interface Gathered {
  items: unknown[];
  flush: (tx: ActorTx, items: unknown[]) => Promise<void>;
}

/** The commit-side bookkeeping shared by a transaction and its nested (follow-up) views. */
export class TxState {
  readonly wakes = new Set<Wake>();
  readonly callbacks: Array<() => void> = [];
  readonly updated = new Map<string, LoadedActor>();
  readonly ahead = new Map<string, { orgId: number; loaded: Promise<LoadedActor | null> }>();
  readonly gathered = new Map<string, Gathered>();

  /** `known`: the actors the caller read before the transaction, by `<table>:<id>`. */
  constructor(readonly known: ReadonlyMap<string, LoadedActor> = new Map()) {}

  /** Runs the flushes of what was gathered (`ActorTx.gather`), oldest key first, until none is left. */
  async flushGathered(tx: ActorTx): Promise<void> {
    for (let next = this.gathered.entries().next(); !next.done; next = this.gathered.entries().next()) {
      const [key, gathered] = next.value;
      this.gathered.delete(key);
      await gathered.flush(tx, gathered.items);
    }
  }
}

/** An `ActorTx` over `sql` at `depth`, recording into `state`. */
export function actorTx(sql: Sql, state: TxState, attempt = 1): ActorTx {
  return {
    sql,
    depth: 0,
    attempt,
    single: null,
    wake: (what) => state.wakes.add(what),
    afterCommit: (fn) => state.callbacks.push(fn),
    gather(key, item, flush) {
      const found = state.gathered.get(key);
      if (found) found.items.push(item);
      else state.gathered.set(key, { items: [item], flush: flush as Gathered['flush'] });
    },
    updated: state.updated,
    ahead: state.ahead,
    known: state.known,
  };
}

const refuse = (): never => {
  throw new NeedsTransaction();
};

/** Direct statements in a single transaction: each one asks for a real transaction. */
const noStatements: Sql = { query: refuse, one: refuse, maybeOne: refuse, prepared: refuse };

/** A single transaction over `pool`. */
export function singleTx(pool: Sql, state: TxState, attempt = 1): ActorTx {
  return { ...actorTx(noStatements, state, attempt), single: { pool, wrote: false }, gather: refuse };
}

/** The same transaction one transition deeper. */
export function deeper(tx: ActorTx): ActorTx {
  return { ...tx, depth: tx.depth + 1 };
}

/** Where a transaction's reads go: its own statements, or the pool in a single transaction. */
export function reader(tx: ActorTx): Sql {
  if (!tx.single) return tx.sql;
  if (tx.single.wrote) throw new Error('a single transaction went on after its write');
  return tx.single.pool;
}
