/**
 * The actor host's registered kinds: each kind's definition with what the stages need of it, built
 * once when it registers — its columns by use, its statements (statements.ts), its batchers
 * (batcher.ts), its machine's stepper (stepper.ts) and the names of the values its locked load reads.
 * Every stage finds a kind here by name, or the kinds of a send to several kinds sharing a table.
 */
import type { Lease, Sql } from '../db/sql.js';
import { createStatementBatcher, type Pipelining, type StatementBatcher } from './batcher.js';
import type { ActorKindDef, ActorRef, ColumnLayout, MachineKind } from './kind.js';
import { columnLayout } from './kind.js';
import { buildStatements, type KindStatements } from './statements.js';
import { createStepper, type MachineStepper } from './stepper.js';

/** A registered kind, with what the stages need of it. */
export interface KindEntry {
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

/** The registered kinds. */
export interface KindRegistry {
  /**
   * Adds a kind: its name must be its machine's id; kinds sharing a table must share their `load`
   * columns and have discriminators.
   */
  register(def: ActorKindDef): void;
  /** A registered kind by name; throws for an unknown one. */
  entry(name: MachineKind | string): KindEntry;
  /** The kinds `names` (one, or several sharing a table); throws unless they share one table. */
  entriesOf(names: MachineKind | readonly MachineKind[]): KindEntry[];
  /** Every registered kind, in the order registered. */
  all(): KindEntry[];
}

/** An actor's key in a transaction's maps of rows (`ActorTx.updated`, `ActorTx.ahead`). */
export function rowKey(table: string, id: number): string {
  return `${table}:${id}`;
}

/** `ref`'s key in a transaction's maps of rows, for kinds `names` of `kinds` (which share one table). */
export function keyOf(
  kinds: KindRegistry,
  names: MachineKind | readonly MachineKind[],
  ref: ActorRef,
): string {
  return rowKey((kinds.entriesOf(names)[0] as KindEntry).def.table, ref.id);
}

/**
 * How many creations must queue before a kind's creation statement goes out behind the one in
 * flight (`Pipelining.fill`). Measured with 64 clients accepting runs while workers execute
 * (docs/performance.md, "Creations pipelined on one session"): 24 and 32 gave 7.9–8.8 thousand
 * accepts a second, 16 and the size of the batch in flight (adaptive) smaller batches and 7.1–7.9.
 */
export const CREATION_FILL = 24;

/**
 * A registry whose kinds' single-statement transitions go to `db` (the pool). With `lease` (the
 * pool's `Db.lease`), each kind's creations are pipelined, two statements at most, on one leased
 * connection (batcher.ts); without it they go one statement at a time.
 */
export function createKindRegistry(
  db: Sql,
  options: { onBatch?: (size: number) => void; lease?: () => Promise<Lease> } = {},
): KindRegistry {
  const { onBatch, lease } = options;
  const kinds = new Map<string, KindEntry>();

  function entry(name: MachineKind | string): KindEntry {
    const found = kinds.get(name);
    if (!found) throw new Error(`unknown actor kind ${JSON.stringify(name)}`);
    return found;
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
      // Creations go pipelined on one connection (bigger batches, no contention between them: see
      // batcher.ts); updates keep three in flight unless the kind says otherwise, which the webhook
      // delivery drain needs (each delivery's attempts wait on its updates while others are in flight).
      // Urgent updates have a lane of three of their own: a kind that batches its updates one
      // statement at a time for throughput does not make a transition that work waits on queue
      // behind those batches.
      const batcher = (mode: 'insert' | 'update', maxInFlight: number, pipelining?: Pipelining) =>
        createStatementBatcher({
          sql: db,
          statements: statements[mode],
          maxInFlight,
          ...(onBatch ? { onBatch } : {}),
          ...(pipelining ? { pipelining } : {}),
        });
      kinds.set(def.name, {
        def,
        columns,
        statements,
        batchers: {
          insert: lease ? batcher('insert', 2, { lease, fill: CREATION_FILL }) : batcher('insert', 1),
          update: batcher('update', def.updatesInFlight ?? 3),
          urgent: batcher('update', 3),
        },
        stepper: createStepper(def.machine),
        lockedWith: Object.keys(def.lockedWith ?? {}),
      });
    },

    entry,

    entriesOf(names) {
      const list = (typeof names === 'string' ? [names] : names).map(entry);
      const table = list[0]?.def.table;
      if (!table || list.some((e) => e.def.table !== table)) {
        throw new Error(`actor kinds ${JSON.stringify(names)} do not share one table`);
      }
      return list;
    },

    all: () => [...kinds.values()],
  };
}
