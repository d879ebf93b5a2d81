/**
 * The zero-setup database: an embedded PostgreSQL under R3_DATA_DIR starts, keeps its data across a
 * restart, is reused (not started twice) while running, and works both as root (it runs the server
 * as the `postgres` user) and as an unprivileged user. As root it also works when the checkout sits
 * in a private (0700) directory, as `/root` or a `mktemp -d` directory is, and fails at once, saying
 * what to do, when the data directory itself is out of the `postgres` user's reach.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type EmbeddedOptions,
  installedPackageDir,
  startEmbeddedPostgres,
} from '../../../src/platform/db/embedded.js';
import { createLogger } from '../../../src/platform/log.js';

const log = createLogger('warn', 2);
const isRoot = process.getuid?.() === 0;
const checkout = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'r3-embedded-'));
  await fs.chmod(dir, 0o755);
  dirs.push(dir);
  return dir;
}

/** Whether `uid` may enter every directory from `/` down to `dir` (as "other": no group or owner match). */
async function othersCanReach(dir: string): Promise<boolean> {
  for (let current = dir; ; current = path.dirname(current)) {
    if (((await fs.stat(current)).mode & 0o001) === 0) return false;
    if (path.dirname(current) === current) return true;
  }
}
const checkoutReachable = await othersCanReach(checkout);

/** Hard links (copies across file systems) of a tree: the package as `npm ci` would lay it out. */
async function linkTree(from: string, to: string): Promise<void> {
  await fs.mkdir(to, { recursive: true });
  for (const entry of await fs.readdir(from, { withFileTypes: true })) {
    const a = path.join(from, entry.name);
    const b = path.join(to, entry.name);
    if (entry.isDirectory()) await linkTree(a, b);
    else if (entry.isSymbolicLink()) await fs.symlink(await fs.readlink(a), b);
    else await fs.link(a, b).catch(() => fs.copyFile(a, b));
  }
}

/** A private directory as `mktemp -d` makes it (0700, root's), holding a copy of the PostgreSQL package. */
async function privateCheckout(): Promise<{ privateDir: string; packageDir: string }> {
  const privateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'r3-private-'));
  dirs.push(privateDir);
  expect((await fs.stat(privateDir)).mode & 0o777).toBe(0o700);
  const installed = await installedPackageDir();
  const packageDir = path.join(
    privateDir,
    'r3',
    'node_modules',
    path.relative(path.dirname(path.dirname(installed)), installed),
  );
  await linkTree(installed, packageDir);
  return { privateDir, packageDir };
}

async function query(url: string, text: string, values: unknown[] = []): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows.map((r) => String(Object.values(r)[0]));
  } finally {
    await client.end();
  }
}

/** Starts the cluster, checks it answers and runs `check` while it runs, stops it, and starts it again. */
async function startCheckRestart(
  dataDir: string,
  options: EmbeddedOptions,
  check: () => Promise<void>,
): Promise<void> {
  const db = await startEmbeddedPostgres(dataDir, log, 'r3', options);
  try {
    expect(await query(db.urlFor('r3'), 'select 1 + 1')).toEqual(['2']);
    await check();
  } finally {
    await db.stop();
  }
  const again = await startEmbeddedPostgres(dataDir, log, 'r3', options);
  try {
    expect(await query(again.urlFor('r3'), 'select 1')).toEqual(['1']);
  } finally {
    await again.stop();
  }
}

describe('embedded PostgreSQL', () => {
  it(`starts as the current user (${os.userInfo().username}), keeps data across a restart and is reused while running`, async () => {
    const dir = await tempDir();
    const first = await startEmbeddedPostgres(dir, log);
    expect(first.startedHere).toBe(true);
    await query(first.urlFor('r3'), 'create table kept (v text)');
    await query(first.urlFor('r3'), "insert into kept values ('before restart')");

    // A second start on the same directory (the CLI while the server runs) reuses the cluster.
    const reused = await startEmbeddedPostgres(dir, log);
    expect(reused.startedHere).toBe(false);
    expect(await query(reused.urlFor('r3'), 'select v from kept')).toEqual(['before restart']);
    await reused.stop();
    expect(await query(first.urlFor('r3'), 'select count(*) from kept')).toEqual(['1']);

    await first.stop();
    await expect(query(first.urlFor('r3'), 'select 1')).rejects.toThrow();

    const again = await startEmbeddedPostgres(dir, log);
    expect(again.startedHere).toBe(true);
    expect(await query(again.urlFor('r3'), 'select v from kept')).toEqual(['before restart']);
    await again.stop();
    const meta = await fs.stat(path.join(dir, 'pg.json'));
    expect(meta.mode & 0o077).toBe(0);
  });

  it.runIf(isRoot)(
    'as root, starts in a data directory the master key made 0700, and opens only its search bit',
    async () => {
      const dir = path.join(await tempDir(), 'data');
      await fs.mkdir(dir, { mode: 0o700 });
      await fs.writeFile(path.join(dir, 'secret.key'), 'k\n', { mode: 0o600 });
      const db = await startEmbeddedPostgres(dir, log);
      try {
        expect(await query(db.urlFor('r3'), 'select 1')).toEqual(['1']);
      } finally {
        await db.stop();
      }
      expect((await fs.stat(dir)).mode & 0o777).toBe(0o711);
      expect((await fs.stat(path.join(dir, 'secret.key'))).mode & 0o777).toBe(0o600);
    },
    120_000,
  );

  it.runIf(isRoot && checkoutReachable)(
    checkoutReachable
      ? 'also works for an unprivileged user when the tests run as root'
      : `also works for an unprivileged user when the tests run as root (skipped: uid 65534 cannot reach the checkout ${checkout})`,
    async () => {
      const dir = await tempDir();
      const own = path.join(dir, 'nobody');
      await fs.mkdir(own);
      await fs.chown(own, 65534, 65534);
      const root = checkout;
      const run = (...args: string[]) =>
        new Promise<{ uid: number; values: string[] }>((resolve, reject) => {
          execFile(
            process.execPath,
            ['--import', 'tsx', path.join(root, 'test/fixtures/embedded-roundtrip.ts'), own, ...args],
            {
              cwd: root,
              uid: 65534,
              gid: 65534,
              env: { PATH: process.env.PATH ?? '', HOME: own },
              timeout: 60_000,
            },
            (error, stdout, stderr) =>
              error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
          );
        });
      expect(await run('write', 'from nobody')).toEqual({ uid: 65534, values: ['from nobody'] });
      expect(await run('read')).toEqual({ uid: 65534, values: ['from nobody'] });
    },
  );

  it.runIf(isRoot)(
    'as root, runs binaries from a checkout in a private (0700) directory: copies them where the postgres user can run them',
    async () => {
      const { packageDir } = await privateCheckout();
      const dir = await tempDir();
      // A restart reuses the copy.
      await startCheckRestart(dir, { packageDir }, async () => {
        const { version } = JSON.parse(await fs.readFile(path.join(packageDir, 'package.json'), 'utf8'));
        const runtime = path.join(dir, 'pg-runtime', version);
        const pid = (await fs.readFile(path.join(dir, 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0];
        expect(await fs.readlink(`/proc/${pid}/exe`)).toBe(path.join(runtime, 'bin', 'postgres'));
        expect((await fs.stat(path.join(runtime, 'bin', 'postgres'))).uid).toBe(0);
      });
    },
    120_000,
  );

  it.runIf(isRoot)(
    'as root, with the data directory itself in a private directory (npm start in /root/r3): the cluster lives where the postgres user can reach it',
    async () => {
      const { privateDir, packageDir } = await privateCheckout();
      const dataDir = path.join(privateDir, 'r3', '.r3');
      const clustersDir = path.join(await tempDir(), 'clusters');
      await startCheckRestart(dataDir, { packageDir, clustersDir }, async () => {
        const [home] = await fs.readdir(clustersDir);
        expect(home).toMatch(/^[0-9a-f]{16}$/);
        const pid = (
          await fs.readFile(path.join(clustersDir, home as string, 'pg', 'postmaster.pid'), 'utf8')
        ).split('\n')[0];
        expect(Number(pid)).toBeGreaterThan(0);
        // The port and password stay with the data directory; the private directory stays private.
        expect(await fs.stat(path.join(dataDir, 'pg.json'))).toBeTruthy();
        expect((await fs.stat(privateDir)).mode & 0o777).toBe(0o700);
      });
    },
    120_000,
  );

  it.runIf(isRoot)(
    'as root, when no place the postgres user can reach can be made, fails at once saying what to do',
    async () => {
      const { privateDir, packageDir } = await privateCheckout();
      const dataDir = path.join(privateDir, 'r3', '.r3');
      // The clusters directory is inside the private directory too: nowhere to go.
      const clustersDir = path.join(privateDir, 'clusters');
      const started = Date.now();
      await expect(startEmbeddedPostgres(dataDir, log, 'r3', { packageDir, clustersDir })).rejects.toThrow(
        `cannot enter ${privateDir} on the way to the data directory ${dataDir}. Set R3_DATA_DIR to a directory it can reach`,
      );
      expect(Date.now() - started).toBeLessThan(5_000);
    },
  );

  it('a binary it cannot execute fails the start at once with a message, not an unhandled error event', async () => {
    const installed = await installedPackageDir();
    const packageDir = path.join(await tempDir(), 'package');
    await linkTree(installed, packageDir);
    const initdb = path.join(packageDir, 'native', 'bin', 'initdb');
    await fs.rm(initdb);
    await fs.copyFile(path.join(installed, 'native', 'bin', 'initdb'), initdb);
    await fs.chmod(initdb, 0o644);
    const started = Date.now();
    await expect(startEmbeddedPostgres(await tempDir(), log, 'r3', { packageDir })).rejects.toThrow(
      /could not run \S+initdb as .* \(EACCES\): .*set DATABASE_URL/,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  if (!isRoot) it.skip('the private (0700) directory cases run as root only: these tests do not', () => {});
});
