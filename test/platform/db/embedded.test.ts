/**
 * The zero-setup database: an embedded PostgreSQL under R3_DATA_DIR starts, keeps its data across a
 * restart, is reused (not started twice) while running, and works both as root (it runs the server
 * as the `postgres` user) and as an unprivileged user.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../../src/platform/db/embedded.js';
import { createLogger } from '../../../src/platform/log.js';

const log = createLogger('warn', 2);
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

async function query(url: string, text: string, values: unknown[] = []): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows.map((r) => String(Object.values(r)[0]));
  } finally {
    await client.end();
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

  it.runIf(process.getuid?.() === 0)(
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

  it.runIf(process.getuid?.() === 0)(
    'also works for an unprivileged user when the tests run as root',
    async () => {
      const dir = await tempDir();
      const own = path.join(dir, 'nobody');
      await fs.mkdir(own);
      await fs.chown(own, 65534, 65534);
      const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
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
});
