/**
 * Opening r3's database: resolve the URL (DATABASE_URL, else the embedded cluster), start MikroORM
 * (entities, migrations) and the plain-SQL pool. `migrate()` applies pending migrations.
 *
 * Terminology: *orm* is MikroORM (fork its `em` per request or job); *sql* is the plain pool of
 * src/platform/db/sql.ts for hot paths and row locking.
 */

import type { MigrationObject } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { type EmbeddedDatabase, startEmbeddedPostgres } from './embedded.js';
import { allEntities } from './entities/index.js';
import { createDb, type Db } from './sql.js';

/** The advisory lock key under which one process at a time migrates a database ("r3migr" in ASCII). */
const MIGRATION_LOCK = 0x7233_6d69_6772;

export interface Database {
  orm: MikroORM;
  sql: Db;
  url: string;
  /** Applies pending migrations; returns their names. */
  migrate(): Promise<string[]>;
  close(): Promise<void>;
}

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
): Promise<Database> {
  const { url, embedded } = await resolveDatabaseUrl(config, log);
  return openDatabase(url, { poolSize: config.dbPoolSize, log, embedded, migrations });
}

/** Opens the ORM and pool on `url`. */
export async function openDatabase(
  url: string,
  options: {
    poolSize: number;
    log: Logger;
    /** The ordered list of every owner's migrations (src/migrations.ts). */
    migrations: readonly MigrationObject[];
    embedded?: EmbeddedDatabase | null;
    applicationName?: string;
  },
): Promise<Database> {
  const orm = await MikroORM.init({
    clientUrl: url,
    entities: allEntities,
    extensions: [Migrator],
    migrations: {
      migrationsList: [...options.migrations],
      transactional: true,
      allOrNothing: true,
      snapshot: false,
    },
    pool: { min: 0, max: 4 },
    discovery: { warnWhenNoEntities: false },
    debug: false,
    allowGlobalContext: false,
    logger: (message) => options.log.debug({ orm: message }, 'mikro-orm'),
  });
  const sql = createDb(url, { max: options.poolSize, applicationName: options.applicationName ?? 'r3' });
  return {
    orm,
    sql,
    url,
    async migrate() {
      // Processes starting together on one database take turns: MikroORM creates its migrations
      // table and applies what is pending without a lock of its own, so a second process would fail
      // on the table the first one just created (or apply a migration twice). The lock is held by a
      // session of the pool and freed with it, also when this process dies.
      const client = await sql.pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
        try {
          const applied = await orm.getMigrator().up();
          return applied.map((m) => m.name);
        } finally {
          await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch((error: Error) => {
            broken = error;
          });
        }
      } finally {
        // A session whose unlock failed is closed, not pooled: closing it frees the lock.
        client.release(broken ?? false);
      }
    },
    async close() {
      await Promise.allSettled([orm.close(true), sql.close()]);
      await options.embedded?.stop();
    },
  };
}
