/**
 * The deployment's master secret for data sealed at rest (webhook signing secrets): `R3_SECRET_KEY`
 * when set, otherwise a random one generated once under `R3_DATA_DIR` (`secret.key`, mode 0600) and
 * read back on every later start, so a single node needs no configuration. Several nodes must share
 * one value: set `R3_SECRET_KEY` (or share the file) there.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** Name of the generated key file inside the data directory. */
export const SECRET_KEY_FILE = 'secret.key';

/**
 * The master secret: `configured` when given, else the content of `<dataDir>/secret.key`, created
 * (atomically, 0600) with 32 random bytes when missing. Concurrent first starts agree on one file.
 */
export async function loadMasterSecret(configured: string | undefined, dataDir: string): Promise<string> {
  if (configured) return configured;
  const file = path.join(dataDir, SECRET_KEY_FILE);
  const existing = await readKey(file);
  if (existing) return existing;
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  // Written in full under a private name, then linked into place: a concurrent reader never sees a
  // half-written key, and when two processes race, link() lets exactly one of them win.
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(temp, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await fs.link(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await fs.unlink(temp).catch(() => undefined);
  }
  const key = await readKey(file);
  if (!key) throw new Error(`${file} is empty; delete it or set R3_SECRET_KEY`);
  return key;
}

async function readKey(file: string): Promise<string | null> {
  try {
    const text = (await fs.readFile(file, 'utf8')).trim();
    return text === '' ? null : text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
