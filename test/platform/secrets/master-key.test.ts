/** The master secret: R3_SECRET_KEY when set, else generated once under R3_DATA_DIR (0600) and reused. */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMasterSecret, SECRET_KEY_FILE } from '../../../src/platform/secrets/master-key.js';
import { createSecretStore } from '../../../src/platform/secrets/secret-store.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'r3-key-'));
  dirs.push(dir);
  return path.join(dir, 'data');
}
afterAll(async () => {
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
});

describe('loadMasterSecret', () => {
  it('prefers the configured key and writes nothing', async () => {
    const dir = await tempDir();
    expect(await loadMasterSecret('configured-secret-key-0123456789abcdef', dir)).toBe(
      'configured-secret-key-0123456789abcdef',
    );
    await expect(fs.stat(dir)).rejects.toThrow();
  });

  it('generates a key once (mode 0600) and reads it back on the next start', async () => {
    const dir = await tempDir();
    const first = await loadMasterSecret(undefined, dir);
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stat = await fs.stat(path.join(dir, SECRET_KEY_FILE));
    expect(stat.mode & 0o777).toBe(0o600);
    expect(await loadMasterSecret(undefined, dir)).toBe(first);
    expect((await fs.readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('gives concurrent first starts one and the same key', async () => {
    const dir = await tempDir();
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadMasterSecret(undefined, dir)));
    expect(new Set(keys).size).toBe(1);
  });

  it('keys a secret store whose sealed values open only for the same org', async () => {
    const store = createSecretStore(await loadMasterSecret(undefined, await tempDir()));
    const sealed = store.seal(7, 'whsec_abc');
    expect(sealed).not.toContain('whsec_abc');
    expect(store.open(7, sealed)).toBe('whsec_abc');
    expect(() => store.open(8, sealed)).toThrow();
  });
});
