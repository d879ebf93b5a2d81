/**
 * Plain SQL on connections of MikroORM's pool, for the paths where an ORM unit of work would be
 * waste: authentication, rate limiting, actor transitions, job claims (`for update skip locked`), the
 * outbox, search. The process has one pool (src/platform/db/database.ts opens it); MikroORM's
 * EntityManager and migrator run on the same connections.
 *
 * Results are parsed with pg's own type parsers (`timestamptz` as a Date), not MikroORM's (which
 * leave dates as strings for its hydrator): each statement names them. `int8` columns arrive as JS
 * numbers (ids stay far below 2^53), for MikroORM too.
 */
import pg from 'pg';
import { holding } from './lanes.js';

pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Row = Record<string, unknown>;

/**
 * `values` as a list of SQL string literals (`'a', 'b'`), for statements whose `in (…)` list is one of
 * the vocabulary's constants (machines/shared/vocabulary.ts): the text stays constant (one plan), and
 * the list is the one the TypeScript reads.
 */
export function sqlStrings(values: readonly string[]): string {
  return values.map((value) => `'${value.replaceAll("'", "''")}'`).join(', ');
}

/** A statement runner: the pool, or one transaction's connection. */
export interface Sql {
  query<T = Row>(text: string, values?: readonly unknown[]): Promise<T[]>;
  /** Exactly one row, or throws. */
  one<T = Row>(text: string, values?: readonly unknown[]): Promise<T>;
  /** The first row or null. */
  maybeOne<T = Row>(text: string, values?: readonly unknown[]): Promise<T | null>;
  /** A named prepared statement (parsed once per connection): for hot paths. */
  prepared<T = Row>(name: string, text: string, values?: readonly unknown[]): Promise<T[]>;
  /**
   * In a transaction (`Db.tx`) only: `answer` — of statements sent on it that can fail only with an
   * error of PostgreSQL's — is checked at the commit instead of by the caller, so the COMMIT goes out
   * right behind them (pipelined: one round trip fewer). PostgreSQL runs the COMMIT after them and
   * rolls back instead when one failed; the transaction then fails with that error.
   */
  atCommit?(answer: Promise<unknown>): void;
}

export interface Db extends Sql {
  /**
   * Runs `fn` in one transaction; commits when it resolves, rolls back when it throws. `settings`
   * (`name = value`) are set locally, sent right behind the `begin` with the first statement (no
   * round trip of their own).
   */
  tx<T>(
    fn: (sql: Sql) => Promise<T>,
    options?: {
      isolation?: 'read committed' | 'repeatable read' | 'serializable';
      settings?: readonly string[];
    },
  ): Promise<T>;
  /**
   * Runs `fn` on one session of the pool outside a transaction (session-level advisory locks). When
   * `fn` throws, the session is closed rather than pooled: closing it frees what it held.
   */
  session<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  /**
   * One connection of the pool, lent until its `release`. Statements sent on it go out at once,
   * without waiting for the answers of those before them, and PostgreSQL runs them one after
   * another in order, each its own transaction (pipelining: database.ts): for a writer that keeps
   * one session busy with statements that must not run side by side (the actor host's creations:
   * src/platform/actors/batcher.ts).
   */
  lease(): Promise<Lease>;
  /**
   * Tells `listener` how long each committed transaction's COMMIT took, in seconds: from its sending
   * to PostgreSQL's answer read, which waits for the statements sent ahead of it and, when the
   * transaction wrote and `synchronous_commit` is on, for the WAL's flush to disk
   * (`r3_db_commit_duration_seconds`). Returns the function that stops telling it.
   */
  observeCommits(listener: (seconds: number) => void): () => void;
}

/** A connection of the pool lent by `Db.lease`. */
export interface Lease {
  sql: Sql;
  /** Gives it back; `failure`, the error a statement on it failed with, if one did (`ConnectionSource.release`). */
  release(failure?: unknown): void;
}

/** Where the connections come from: a pool that lends pg clients (MikroORM's, database.ts). */
export interface ConnectionSource {
  acquire(): Promise<pg.Client>;
  /**
   * Gives a client back; the pool drops one that has ended. `failure` is the error its statement
   * failed with, if it did: a source may drop a session whose connection that error says is gone
   * before pg reports the connection's end (hot-reads.ts).
   */
  release(client: pg.Client, failure?: unknown): void;
}

/** pg's parsers (with the int8 one above), whatever the client's own are. */
const types = pg.types;

function statement(text: string, values: readonly unknown[] | undefined, name?: string): pg.QueryConfig {
  return { name, text, values: values as unknown[] | undefined, types };
}

/** A client's socket, as pg keeps it. */
type Corkable = { cork(): void; uncork(): void };
const corked = new WeakSet<Corkable>();

/**
 * Holds `client`'s outgoing messages until the current turn of the event loop has run its
 * callbacks and promise continuations (`process.nextTick`, Node's own advice for `cork`), so that
 * the statements it sends in one turn — a BEGIN, its settings and the first statement, or a write
 * and its follow-ups (pipelined: database.ts) — go out in one write to the socket instead of one
 * each. pg corks each statement's own messages the same way; a socket corked twice is written
 * when both uncork.
 */
function batchWrites(client: pg.Client): void {
  const stream = (client as unknown as { connection?: { stream?: Partial<Corkable> } }).connection?.stream;
  if (stream?.cork === undefined || stream.uncork === undefined) return;
  const socket = stream as Corkable;
  if (corked.has(socket)) return;
  corked.add(socket);
  socket.cork();
  process.nextTick(() => {
    corked.delete(socket);
    socket.uncork();
  });
}

/** Sends `config` on `client`, written with the others of this turn (`batchWrites`). */
function send(client: pg.Client, config: pg.QueryConfig | string): Promise<pg.QueryResult> {
  batchWrites(client);
  return client.query(config as pg.QueryConfig);
}

async function rowsOf<T>(client: pg.Client, config: pg.QueryConfig): Promise<T[]> {
  return (await send(client, config)).rows as T[];
}

function exactlyOne<T>(rows: T[]): T {
  if (rows.length !== 1) throw new Error(`expected one row, got ${rows.length}`);
  return rows[0] as T;
}

/** Statements on one connection (a transaction's or a session's). */
function runner(client: pg.Client): Sql {
  return {
    query: (text, values) => rowsOf(client, statement(text, values)),
    one: async (text, values) => exactlyOne(await rowsOf(client, statement(text, values))),
    maybeOne: async <T>(text: string, values?: readonly unknown[]) =>
      (await rowsOf<T>(client, statement(text, values)))[0] ?? null,
    prepared: (name, text, values) => rowsOf(client, statement(text, values, name)),
  };
}

/** The error of the first of `answers` (in order) that fails, once all are in; null if none does. */
async function firstFailure(answers: readonly Promise<unknown>[]): Promise<unknown> {
  const settled = await Promise.allSettled(answers);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  return failed ? (failed.reason ?? new Error('a statement failed')) : null;
}

/**
 * The statement runner over `source`: each statement outside a transaction borrows a connection
 * for itself, as pg's `Pool.query` did.
 *
 * The sessions must plan named prepared statements generically, always (`plan_cache_mode`, set when
 * database.ts opens each connection). Each of them is a hot path written for one plan — most take
 * their keys as arrays (`unnest`), one statement per batch of requests — and left to itself
 * PostgreSQL would see that a custom plan for a batch of 1 to 20 keys is estimated cheaper than the
 * generic plan for an array of unknown length, and plan every execution anew: binding then cost as
 * much as executing, or far more (docs/performance.md, "Choices in the code"). The setting applies to unnamed statements too: a statement that needs its
 * values planned as constants runs in a transaction that sets `plan_cache_mode = force_custom_plan`
 * locally (search candidates, the domain tools' page).
 */
export function sqlOver(source: ConnectionSource): Db {
  const commitListeners = new Set<(seconds: number) => void>();
  async function borrow<T>(config: pg.QueryConfig): Promise<T[]> {
    const client = await source.acquire();
    let failure: unknown;
    try {
      return await rowsOf<T>(client, config);
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      source.release(client, failure);
    }
  }
  async function onOne<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = await source.acquire();
    try {
      // Another connection it asks for is not held back by the job workers' share (lanes.ts).
      return await holding(() => fn(client));
    } finally {
      source.release(client);
    }
  }
  return {
    query: (text, values) => borrow(statement(text, values)),
    one: async (text, values) => exactlyOne(await borrow(statement(text, values))),
    maybeOne: async <T>(text: string, values?: readonly unknown[]) =>
      (await borrow<T>(statement(text, values)))[0] ?? null,
    prepared: (name, text, values) => borrow(statement(text, values, name)),
    tx: (fn, options) =>
      onOne(async (client) => {
        let begun: Promise<unknown> | undefined;
        const checks: Promise<unknown>[] = [];
        try {
          const begin = options?.isolation ? `begin isolation level ${options.isolation}` : 'begin';
          const settings = options?.settings ?? [];
          // Not awaited: the connections pipeline (database.ts), so the transaction's first statement
          // goes out right behind its BEGIN, one round trip for both, as Npgsql sends them. The BEGIN
          // goes alone (its text cannot fail), the settings after it: a setting that fails, even one
          // that does not parse, fails inside the transaction, and so do the statements behind it.
          begun = Promise.all([
            send(client, begin),
            ...(settings.length > 0
              ? [send(client, settings.map((setting) => `set local ${setting}`).join('; '))]
              : []),
          ]);
          begun.catch(() => undefined);
          const sql: Sql = {
            ...runner(client),
            atCommit(answer) {
              answer.catch(() => undefined);
              checks.push(answer);
            },
          };
          const result = await fn(sql);
          await begun;
          const committing = performance.now();
          const commit = send(client, 'commit');
          commit.catch(() => undefined);
          // A failed statement among them made the COMMIT a rollback (PostgreSQL answers it so).
          const failed = await firstFailure(checks);
          if (failed !== null) throw failed;
          await commit;
          const seconds = (performance.now() - committing) / 1000;
          for (const listener of commitListeners) listener(seconds);
          return result;
        } catch (error) {
          await send(client, 'rollback').catch(() => undefined);
          // Settings that failed are why the statements after them failed; so is a failed statement
          // whose answer waited for the commit, for the ones after it.
          throw (await firstFailure(begun ? [begun, ...checks] : checks)) ?? error;
        }
      }),
    session: (fn) =>
      onOne(async (client) => {
        try {
          return await fn(runner(client));
        } catch (error) {
          await client.end().catch(() => undefined);
          throw error;
        }
      }),
    async lease() {
      const client = await source.acquire();
      return { sql: runner(client), release: (failure) => source.release(client, failure) };
    },
    observeCommits(listener) {
      commitListeners.add(listener);
      return () => commitListeners.delete(listener);
    },
  };
}

/**
 * Runs one statement planned for its values, as constants: in a transaction that sets
 * `plan_cache_mode = force_custom_plan` locally (the pool's sessions plan every statement generically,
 * unnamed ones too: see `sqlOver`), with `settings` (more `name = value` planner settings) set with it,
 * all sent with the `begin`: two round trips (begin, settings and the statement; commit).
 */
export function plannedForValues<T = Row>(
  db: Db,
  text: string,
  values: readonly unknown[],
  settings: readonly string[] = [],
): Promise<T[]> {
  return db.tx((sql) => sql.query<T>(text, values), {
    settings: [...settings, 'plan_cache_mode = force_custom_plan'],
  });
}

/**
 * Sends a write whose answer nothing reads: in a transaction it is checked at the commit
 * (`Sql.atCommit`, so it goes out pipelined with the statements after it and the COMMIT), elsewhere
 * awaited.
 */
export async function writeAtCommit(sql: Sql, answer: Promise<unknown>): Promise<void> {
  if (sql.atCommit) sql.atCommit(answer);
  else await answer;
}

/** True for PostgreSQL's unique-violation error (optionally on one constraint). */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string };
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

/** True for a serialization failure or deadlock: the transaction may be retried. */
export function isRetryableTxError(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code === '40001' || code === '40P01';
}
