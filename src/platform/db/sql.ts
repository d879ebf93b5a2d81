/**
 * Plain SQL on a pg pool, for the paths where an ORM unit of work would be waste: authentication,
 * rate limiting, actor transitions, job claims (`for update skip locked`), the outbox, search.
 * MikroORM's EntityManager serves the CRUD-shaped code; both use the same database.
 *
 * `int8` columns arrive as JS numbers (ids stay far below 2^53).
 */
import pg from 'pg';

pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Row = Record<string, unknown>;

/** A statement runner: the pool, or one transaction's connection. */
export interface Sql {
  query<T = Row>(text: string, values?: readonly unknown[]): Promise<T[]>;
  /** Exactly one row, or throws. */
  one<T = Row>(text: string, values?: readonly unknown[]): Promise<T>;
  /** The first row or null. */
  maybeOne<T = Row>(text: string, values?: readonly unknown[]): Promise<T | null>;
  /** A named prepared statement (parsed once per connection): for hot paths. */
  prepared<T = Row>(name: string, text: string, values?: readonly unknown[]): Promise<T[]>;
}

export interface Db extends Sql {
  /** Runs `fn` in one transaction; commits when it resolves, rolls back when it throws. */
  tx<T>(
    fn: (sql: Sql) => Promise<T>,
    options?: { isolation?: 'read committed' | 'repeatable read' | 'serializable' },
  ): Promise<T>;
  readonly pool: pg.Pool;
  close(): Promise<void>;
}

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

function runner(target: Queryable): Sql {
  const query = async <T>(text: string, values?: readonly unknown[]): Promise<T[]> => {
    const result = await target.query(text, values as unknown[] | undefined);
    return result.rows as T[];
  };
  return {
    query,
    async one<T>(text: string, values?: readonly unknown[]) {
      const rows = await query<T>(text, values);
      if (rows.length !== 1) throw new Error(`expected one row, got ${rows.length}`);
      return rows[0] as T;
    },
    async maybeOne<T>(text: string, values?: readonly unknown[]) {
      const rows = await query<T>(text, values);
      return (rows[0] as T | undefined) ?? null;
    },
    async prepared<T>(name: string, text: string, values?: readonly unknown[]) {
      const result = await target.query({ name, text, values: values as unknown[] | undefined });
      return result.rows as T[];
    },
  };
}

/**
 * Opens a pool on `url`.
 *
 * Its sessions plan named prepared statements generically, always (`plan_cache_mode`). Each of them
 * is a hot path written for one plan — most take their keys as arrays (`unnest`), one statement per
 * batch of requests — and left to itself PostgreSQL would see that a custom plan for a batch of 1
 * to 20 keys is estimated cheaper than the generic plan for an array of unknown length, and plan
 * every execution anew: binding then cost as much as executing (0.16 ms a batch for authentication,
 * 0.07 ms for the webhook candidates, whose execution took 0.005 ms). A statement that needs its
 * values planned as constants is sent unnamed (search candidates), and is planned per execution.
 */
export function createDb(url: string, options: { max: number; applicationName?: string }): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max,
    application_name: options.applicationName ?? 'r3',
    idleTimeoutMillis: 30_000,
    options: '-c plan_cache_mode=force_generic_plan',
  });
  // An idle client's error (server restart) must not crash the process; the pool drops it.
  pool.on('error', () => undefined);
  const base = runner(pool);
  return {
    ...base,
    pool,
    async tx(fn, options) {
      const client = await pool.connect();
      try {
        await client.query(options?.isolation ? `begin isolation level ${options.isolation}` : 'begin');
        const result = await fn(runner(client));
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
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
