/**
 * `r3 secrets rekey`: after it ran with the new master secret configured and the previous one in a
 * file, an r3 on the new secret signs webhooks with the same secrets (the current and the rotated-out
 * one) and opens the stored source credentials; a wrong previous secret changes nothing; a dry run
 * changes nothing; a second run finds everything current.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../../fakes/webhook-receiver.js';
import { secretsCommand } from '../../src/cli/secrets.js';
import { createCredentialBox } from '../../src/features/connectors/credentials.js';
import { UsageError } from '../../src/platform/cli.js';
import { loadConfig } from '../../src/platform/config.js';
import { ALL_SCOPES, startTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { TEST_SECRET_KEY } from '../helpers/process.js';
import { orgIdOf } from '../helpers/runs.js';
import {
  createObjectType,
  independentVerify,
  ingest,
  register,
  watchDispatcher,
} from '../helpers/webhooks.js';

const NEW_KEY = 'the-new-master-secret-after-rotation-0123456789';
const FIRST = 'whsec_first_0123456789abcdef';
const CREDENTIALS = { accessToken: 'hubspot-token-123' };

let database: TestDatabase;
let receiver: Receiver;
let dir: string;
let hookOrg: number;
let rotated: string;

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startReceiver();
  dir = mkdtempSync(path.join(tmpdir(), 'r3-rekey-'));
  const t = await startTestApp({ R3_WEBHOOK_ALLOW_PRIVATE: 'true' }, { database });
  try {
    const token = (await t.token({ org: 'acme', scopes: ALL_SCOPES })).token;
    await createObjectType(t, token);
    const id = await register(t, token, {
      url: `${receiver.url}/in`,
      events: ['object.created'],
      secret: FIRST,
    });
    const res = await t.request('POST', `/api/v1/webhooks/${id}/rotate-secret`, { token, body: {} });
    expect(res.status, res.text).toBe(200);
    rotated = res.body.secret;
    hookOrg = await orgIdOf(t.app);
    await t.app.connections.setCredentials(
      hookOrg,
      { slug: 'crm', kind: 'crm', connection: {}, sync: null },
      CREDENTIALS,
    );
  } finally {
    await t.close();
  }
});
afterAll(async () => {
  await receiver?.close();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `r3 secrets <args>` with `key` as R3_SECRET_KEY (none: unset); answers the exit code and output. */
async function rekey(
  key: string | undefined,
  args: string[],
): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const config = loadConfig({
    DATABASE_URL: database.url,
    R3_SECRET_KEY: key,
    R3_DATA_DIR: path.join(dir, 'data'),
    R3_LOG_LEVEL: 'silent',
  });
  const code = await secretsCommand.run(args, {
    config,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    open: () => Promise.reject(new Error('not used')),
  });
  return { code, out, err };
}

function keyFile(name: string, key: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, `${key}\n`);
  return file;
}

async function query<T>(text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

const sealedValues = () =>
  query<{ v: string }>(
    `select secret_sealed || coalesce(old_secret_sealed, '') as v from webhooks
     union all select credentials from source_connections`,
  ).then((rows) => rows.map((r) => r.v).sort());

describe('r3 secrets rekey', () => {
  it('refuses a previous secret that does not open the stored values, changing nothing', async () => {
    const before = await sealedValues();
    const wrong = await rekey(NEW_KEY, ['rekey', '--previous-key-file', keyFile('wrong', 'x'.repeat(40))]);
    expect(wrong.code).toBe(1);
    expect(wrong.err.join('\n')).toMatch(/webhooks\.secret_sealed opens with neither/);
    expect(await sealedValues()).toEqual(before);
  });

  it('checks everything and changes nothing with --dry-run', async () => {
    const before = await sealedValues();
    const dry = await rekey(NEW_KEY, [
      'rekey',
      '--previous-key-file',
      keyFile('old', TEST_SECRET_KEY),
      '--dry-run',
    ]);
    expect(dry.code, dry.err.join('\n')).toBe(0);
    expect(dry.out).toContain('webhooks.secret_sealed: 1 resealed, 0 already on the current secret');
    expect(await sealedValues()).toEqual(before);
  });

  it('reseals every stored secret under the new master secret; a second run finds them current', async () => {
    const run = await rekey(NEW_KEY, ['rekey', '--previous-key-file', keyFile('old', TEST_SECRET_KEY)]);
    expect(run.code, run.err.join('\n')).toBe(0);
    expect(run.out).toEqual([
      'webhooks.secret_sealed: 1 resealed, 0 already on the current secret',
      'webhooks.old_secret_sealed: 1 resealed, 0 already on the current secret',
      'source_connections.credentials: 1 resealed, 0 already on the current secret',
      'done',
    ]);
    const again = await rekey(NEW_KEY, ['rekey', '--previous-key-file', keyFile('old', TEST_SECRET_KEY)]);
    expect(again.out[0]).toBe('webhooks.secret_sealed: 0 resealed, 1 already on the current secret');
    const [row] = await query<{ credentials: string }>('select credentials from source_connections');
    expect(createCredentialBox(NEW_KEY).open(hookOrg, 'crm', row?.credentials as string)).toEqual(
      CREDENTIALS,
    );
  });

  it('leaves an r3 on the new secret signing with the same webhook secrets', async () => {
    const t = await startTestApp({ R3_WEBHOOK_ALLOW_PRIVATE: 'true', R3_SECRET_KEY: NEW_KEY }, { database });
    try {
      const token = (await t.token({ org: 'acme', scopes: ALL_SCOPES })).token;
      const from = receiver.received.items.length;
      await ingest(t, token, watchDispatcher(t), 'after rotation');
      await t.app.jobs.drain();
      const [got] = (await receiver.received.untilCount(from + 1, 'the delivery')).slice(from);
      const now = Math.floor(t.clock.now() / 1000);
      const signature = got?.headers['x-service-signature'] as string | undefined;
      expect(independentVerify(got?.raw ?? '', signature, rotated, now)).toBe(true);
      expect(independentVerify(got?.raw ?? '', signature, FIRST, now)).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('refuses to run without a current secret rather than generate one', async () => {
    const none = await rekey(undefined, ['rekey', '--previous-key-file', keyFile('old', TEST_SECRET_KEY)]);
    expect(none.code).toBe(1);
    expect(none.err[0]).toMatch(/R3_SECRET_KEY is unset and .*secret\.key does not exist/);
    expect(existsSync(path.join(dir, 'data', 'secret.key'))).toBe(false);
  });

  it('refuses to run when the previous secret is the current one', async () => {
    const same = await rekey(NEW_KEY, ['rekey', '--previous-key-file', keyFile('same', NEW_KEY)]);
    expect(same.code).toBe(1);
    expect(same.err[0]).toMatch(/the previous secret is the current one/);
    await expect(rekey(NEW_KEY, ['rekey'])).rejects.toThrow(UsageError);
    await expect(rekey(NEW_KEY, ['rotate'])).rejects.toThrow(UsageError);
  });
});
