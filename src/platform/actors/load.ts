/**
 * The load stage: the actor a transition starts from. A send starts from, in this order: the actor as
 * its own transaction last updated it (`ActorTx.updated`: its row is locked by the transaction, so
 * no one else moved it); the actor its caller already read (`SendOptions.loaded`, or for any send of
 * the transaction `TransactOptions.loaded`; on a first attempt without lock: the write's version
 * check covers its age); the locked load sent ahead for it
 * (`loadAhead`, pipelined with the statements before); or a load of its row, `for update` when asked
 * to lock — each a named prepared statement with the org in the WHERE clause, so another org's id is
 * not found.
 */
import type { Sql } from '../db/sql.js';
import type { ActorRef, ActorRow, MachineKind } from './kind.js';
import { type KindEntry, type KindRegistry, keyOf, rowKey } from './registry.js';
import { resolveSnapshot } from './rows.js';
import { type ActorTx, reader } from './tx.js';
import type { LoadedActor, SendOptions } from './types.js';

/** The actor a send starts from. */
export interface StartingActor {
  actor: LoadedActor;
  /**
   * Its row is this transaction's until it ends (written by it before, or loaded here `for update`),
   * so the write's version check cannot miss: its answer may wait for the commit (write.ts).
   */
  locked: boolean;
}

/** The load stage of a host's kinds. */
export interface LoadStage {
  /** Loads an actor of `names` (locked `for update` with `lock`); null when none is `ref`. */
  load(
    sql: Sql,
    names: MachineKind | readonly MachineKind[],
    ref: ActorRef,
    lock?: boolean,
  ): Promise<LoadedActor | null>;
  /** The actor in `raw`, a row read with a load's columns; null when it is none of `names`. */
  resolveRow(names: MachineKind | readonly MachineKind[], raw: Record<string, unknown>): LoadedActor | null;
  /** The select list of a load from alias `alias`, columns named `<prefix><column>` (see `ActorHost`). */
  loadColumns(names: MachineKind | readonly MachineKind[], alias: string, prefix: string): string;
  /** `resolveRow` of the columns of `raw` named `<prefix><column>`. */
  resolvePrefixed(
    names: MachineKind | readonly MachineKind[],
    raw: Record<string, unknown>,
    prefix: string,
  ): LoadedActor | null;
  /** Sends the locked load of `ref` now, for a later locked send in `tx` to take (see `ActorHost`). */
  loadAhead(tx: ActorTx, names: MachineKind | readonly MachineKind[], ref: ActorRef): void;
  /** The actor a send to `ref` starts from (see the header); null when there is none. */
  forSend(
    tx: ActorTx,
    names: MachineKind | readonly MachineKind[],
    ref: ActorRef,
    options: Pick<SendOptions, 'lock' | 'loaded'>,
  ): Promise<StartingActor | null>;
}

/** The load stage of `kinds`. */
export function createLoadStage(kinds: KindRegistry): LoadStage {
  async function load(
    sql: Sql,
    names: MachineKind | readonly MachineKind[],
    ref: ActorRef,
    lock = false,
  ): Promise<LoadedActor | null> {
    const list = kinds.entriesOf(names);
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
    for (const column of picked.columns.loaded) {
      // A caller's own read that left a column out would load a context without its field.
      if (!(column in raw)) {
        throw new Error(`${def.name}: row read without its column ${column} (select what loadColumns lists)`);
      }
      columns[column] = raw[column];
    }
    for (const name of picked.lockedWith) if (name in raw) columns[name] = raw[name];
    const row: ActorRow = {
      id: raw.id as number,
      orgId: raw.org_id as number,
      version: raw.version as number,
      lastSeq: raw.last_seq as number,
      snapshot: raw.snapshot,
      columns,
    };
    return { def, row, snapshot: resolveSnapshot(def, row.snapshot, columns) };
  }

  /** The locked load of `ref` sent ahead in `tx` (`loadAhead`), taken: a later send loads anew. */
  function takeAhead(
    tx: ActorTx,
    names: MachineKind | readonly MachineKind[],
    ref: ActorRef,
  ): Promise<LoadedActor | null> | undefined {
    if (tx.ahead.size === 0) return undefined;
    const key = keyOf(kinds, names, ref);
    const found = tx.ahead.get(key);
    if (!found || found.orgId !== ref.orgId) return undefined;
    tx.ahead.delete(key);
    return found.loaded;
  }

  /** The actor of `ref` in `actors` (a transaction's map of rows) if it is one of `names` in `ref`'s org. */
  function found(
    actors: ReadonlyMap<string, LoadedActor>,
    names: MachineKind | readonly MachineKind[],
    ref: ActorRef,
  ): LoadedActor | undefined {
    if (actors.size === 0) return undefined;
    const list = kinds.entriesOf(names);
    const actor = actors.get(rowKey((list[0] as KindEntry).def.table, ref.id));
    if (!actor || actor.row.orgId !== ref.orgId || !list.some((e) => e.def === actor.def)) return undefined;
    return actor;
  }

  return {
    load,

    resolveRow: (names, raw) => resolveRow(kinds.entriesOf(names), raw),

    loadColumns(names, alias, prefix) {
      const { def, columns } = kinds.entriesOf(names)[0] as KindEntry;
      if (!/^[a-z_][a-z0-9_]*$/.test(alias) || !/^([a-z_][a-z0-9_.]*)?$/.test(prefix)) {
        throw new Error(`unsafe load alias or prefix ${JSON.stringify([alias, prefix])}`);
      }
      const seq = def.runEvents ? `${alias}.last_seq` : '0';
      const list = [
        ['id', `${alias}.id`],
        ['org_id', `${alias}.org_id`],
        ['version', `${alias}.version`],
        ['last_seq', seq],
        ['snapshot', `${alias}.snapshot`],
        ...columns.loaded.map((c) => [c, `${alias}.${c}`]),
      ];
      return list.map(([name, value]) => `${value} as "${prefix}${name}"`).join(', ');
    },

    resolvePrefixed(names, raw, prefix) {
      const own: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(raw)) {
        if (key.startsWith(prefix)) own[key.slice(prefix.length)] = value;
      }
      return own.id == null ? null : resolveRow(kinds.entriesOf(names), own);
    },

    loadAhead(tx, names, ref) {
      if (tx.single) return;
      const key = keyOf(kinds, names, ref);
      if (tx.ahead.has(key) || tx.updated.has(key)) return;
      const loaded = load(tx.sql, names, ref, true);
      // Awaited by the send that takes it; a transaction that fails first never does.
      loaded.catch(() => undefined);
      tx.ahead.set(key, { orgId: ref.orgId, loaded });
    },

    async forSend(tx, names, ref, options) {
      const lock = options.lock === true && !tx.single;
      // As the transaction last updated it (its row locked by the transaction), or the caller's copy.
      const own = found(tx.updated, names, ref);
      const given =
        own ?? (tx.attempt === 1 && !lock ? (options.loaded ?? found(tx.known, names, ref)) : undefined);
      const ahead = given || !lock ? undefined : takeAhead(tx, names, ref);
      const actor = given ?? (ahead ? await ahead : await load(reader(tx), names, ref, lock));
      if (!actor) return null;
      // Locked: written before in this transaction, or loaded here with the lock.
      return { actor, locked: own !== undefined || (given === undefined && lock) };
    },
  };
}
