/**
 * Opening r3's database: resolve the URL (DATABASE_URL, else the embedded cluster) and start
 * MikroORM, whose pool is the process's only one, with the migrations and the entities the features
 * declare. `migrate()` applies pending migrations.
 *
 * Terminology: *orm* is MikroORM (fork its `em` per request or job); *sql* is plain SQL
 * (src/platform/db/sql.ts) on connections borrowed from MikroORM's pool, for hot paths and row
 * locking.
 */

import type { EntitySchema, MigrationObject } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { type EmbeddedDatabase, ensureDatabase, startEmbeddedPostgres } from './embedded.js';
import { hotReadConnections, sessionOptions } from './hot-reads.js';
import { laned } from './lanes.js';
import { type ConnectionSource, type Db, sqlOver } from './sql.js';

/** The advisory lock key under which one process at a time migrates a database ("r3migr" in ASCII). */
const MIGRATION_LOCK = 0x7233_6d69_6772;

export interface Database {
  orm: MikroORM;
  sql: Db;
  /**
   * The hot reads' sessions, beside the pool (hot-reads.ts): authentication's batched statements,
   * and nothing else.
   */
  reads: Db;
  url: string;
  /**
   * Holds the job workers' share of `sql`'s connections to one for `ms` (lanes.ts, "held"): a
   * serving process's writes queue (src/platform/jobs/hold.ts).
   */
  holdJobs(ms: number): void;
  /** Applies pending migrations; returns their names. */
  migrate(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * The hot reads' sessions (hot-reads.ts): authentication has three batched statements (unknown
 * tokens, known ones with and without rate limits), each with at most two batches out at once;
 * one client's burst is mostly one of them.
 */
const HOT_READ_SESSIONS = 3;

/** Resolves the database URL: DATABASE_URL, or an embedded cluster under R3_DATA_DIR. */
export async function resolveDatabaseUrl(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  log: Logger,
): Promise<{ url: string; embedded: EmbeddedDatabase | null }> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: null };
  const embedded = await startEmbeddedPostgres(config.dataDir, log);
  return { url: embedded.urlFor('r3'), embedded };
}

/** Opens the database for `config` (embedded when DATABASE_URL is unset). */
export async function openConfiguredDatabase(
  config: Config,
  log: Logger,
  migrations: readonly MigrationObject[],
  // biome-ignore lint/suspicious/noExplicitAny: entities of any row type
  entities: readonly EntitySchema<any>[] = [],
): Promise<Database> {
  const { url, embedded } = await resolveDatabaseUrl(config, log);
  return openDatabase(url, { poolSize: config.dbPoolSize, log, embedded, migrations, entities });
}

/**
 * The connections of MikroORM's pool (knex's, of pg clients): statements through `sql` borrow them
 * as the ORM's own queries do.
 */
function connectionsOf(orm: MikroORM): ConnectionSource {
  const client = orm.em.getConnection().getKnex().client as {
    acquireConnection(): Promise<pg.Client>;
    releaseConnection(connection: pg.Client): Promise<void>;
  };
  return {
    acquire: () => client.acquireConnection(),
    release: (connection) => void client.releaseConnection(connection),
  };
}

/**
 * Creates the database `url` names when the server has none by that name (PostgreSQL's 3D000), as
 * MikroORM does on start — it cannot here, since each connection takes the whole URL — through the
 * server's `postgres` database.
 */
async function createMissingDatabase(sql: Db, url: string): Promise<void> {
  try {
    await sql.query('select 1');
  } catch (error) {
    if ((error as { code?: string }).code !== '3D000') throw error;
    const maintenance = new URL(url);
    const name = decodeURIComponent(maintenance.pathname.slice(1));
    maintenance.pathname = '/postgres';
    await ensureDatabase(maintenance.toString(), name);
  }
}

/**
 * Opens the ORM, and with it the pool, on `url`: `poolSize` connections at most, each opened with
 * its settings for the whole session — the application name, and generic plans for named
 * statements (why: src/platform/db/sql.ts). A connection that fails or ends is dropped by the pool
 * (knex marks it, and the pool checks before lending it) and replaced when next needed; one idle
 * for 30 s is closed.
 */
export async function openDatabase(
  url: string,
  options: {
    poolSize: number;
    log: Logger;
    /** The ordered list of every owner's migrations (src/migrations.ts). */
    migrations: readonly MigrationObject[];
    /** The entities ORM queries read (the features': `defineFeature`'s `entities`); none by default. */
    // biome-ignore lint/suspicious/noExplicitAny: entities of any row type
    entities?: readonly EntitySchema<any>[];
    embedded?: EmbeddedDatabase | null;
    applicationName?: string;
  },
): Promise<Database> {
  const settings = { url, applicationName: options.applicationName ?? 'r3' };
  const orm = await MikroORM.init({
    clientUrl: url,
    entities: [...(options.entities ?? [])],
    extensions: [Migrator],
    migrations: {
      migrationsList: [...options.migrations],
      transactional: true,
      allOrNothing: true,
      snapshot: false,
    },
    pool: { min: 0, max: options.poolSize, idleTimeoutMillis: 30_000 },
    driverOptions: {
      // All of the URL (TLS and other parameters too), not only the parts MikroORM reads; pg's
      // pipelining: a transaction's BEGIN travels with its first statement (sql.ts). Each statement
      // still gets its own answer, in order, and one that fails in a transaction fails those after
      // it, as before.
      connection: sessionOptions(settings),
      // knex's own messages (a dropped connection) into the log, not onto stdout.
      log: {
        debug: (message: unknown) => options.log.debug({ knex: message }, 'database pool'),
        warn: (message: unknown) => options.log.warn({ knex: message }, 'database pool'),
        error: (message: unknown) => options.log.error({ knex: message }, 'database pool'),
        deprecate: (message: unknown) => options.log.debug({ knex: message }, 'database pool'),
      },
    },
    // Connections open on first use; createMissingDatabase stands for MikroORM's own check.
    connect: false,
    ensureDatabase: false,
    discovery: { warnWhenNoEntities: false },
    debug: false,
    allowGlobalContext: false,
    logger: (message) => options.log.debug({ orm: message }, 'mikro-orm'),
  });
  // Plain SQL borrows through lanes (lanes.ts): urgent work first when every connection is out.
  const connections = laned(connectionsOf(orm), options.poolSize);
  const sql = sqlOver(connections);
  const hot = hotReadConnections(settings, HOT_READ_SESSIONS);
  try {
    await createMissingDatabase(sql, url);
  } catch (error) {
    await orm.close(true).catch(() => undefined);
    throw error;
  }
  return {
    orm,
    sql,
    reads: sqlOver(hot),
    url,
    holdJobs: (ms) => connections.holdJobs(ms),
    async migrate() {
      // Processes starting together on one database take turns: MikroORM creates its migrations
      // table and applies what is pending without a lock of its own, so a second process would fail
      // on the table the first one just created (or apply a migration twice). The lock is held by a
      // session of the pool (the migrator runs on another) and freed with it, also when this process
      // dies; a session whose unlock failed is closed, not pooled, which frees the lock.
      return sql.session(async (session) => {
        await session.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
        try {
          const applied = await orm.getMigrator().up();
          return applied.map((m) => m.name);
        } finally {
          await session.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]);
        }
      });
    },
    async close() {
      await hot.close();
      await orm.close(true).catch(() => undefined);
      await options.embedded?.stop();
    },
  };
}
