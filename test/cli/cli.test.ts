/** The r3 CLI as a user runs it: token create/list/revoke, org limits, migrate, config errors. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { runCli } from '../helpers/process.js';

let database: TestDatabase;
let t: TestApp;
let env: Record<string, string>;

beforeAll(async () => {
  database = await createTestDatabase();
  env = { DATABASE_URL: database.url };
  t = await startTestApp({}, { database });
});
afterAll(async () => {
  await t.close();
  await database.drop();
});

describe('r3 token', () => {
  it('create --json prints exactly one JSON object, and the token works', async () => {
    const res = await runCli(
      [
        'token',
        'create',
        '--org',
        'cli-org',
        '--user',
        'ann',
        '--role',
        'pm',
        '--name',
        'ci',
        '--scope',
        'read:all,run:approve',
        '--json',
      ],
      env,
    );
    expect(res.code).toBe(0);
    const created = JSON.parse(res.stdout);
    expect(Object.keys(created).sort()).toEqual([
      'expiresAt',
      'id',
      'org',
      'role',
      'scope',
      'token',
      'userId',
    ]);
    expect(created).toMatchObject({
      org: 'cli-org',
      userId: 'ann',
      role: 'pm',
      scope: 'read:all,run:approve',
      expiresAt: null,
    });
    expect(created.token).toMatch(new RegExp(`^svc_test_${created.id}_[0-9A-Za-z]{46}$`));
    expect(res.stdout.trim().split('\n')).toHaveLength(1);
    const call = await request(t.url, 'GET', '/api/v1/tokens', { token: created.token });
    expect(call.status).toBe(200);
    expect(call.body.tokens[0]).toMatchObject({ id: created.id, userId: 'ann', role: 'pm' });
  });

  it('create defaults the scope to read:all,run:invoke and takes --expires', async () => {
    const res = await runCli(
      [
        'token',
        'create',
        '--org',
        'cli-org',
        '--user',
        'bo',
        '--role',
        'owner',
        '--name',
        'x',
        '--expires',
        '2030-01-01T00:00:00Z',
        '--json',
      ],
      env,
    );
    expect(JSON.parse(res.stdout)).toMatchObject({
      scope: 'read:all,run:invoke',
      expiresAt: '2030-01-01T00:00:00.000Z',
    });
  });

  it('create without --json prints the token once with a warning', async () => {
    const res = await runCli(
      ['token', 'create', '--org', 'cli-org', '--user', 'cy', '--role', 'specialist', '--name', 'y'],
      env,
    );
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/svc_test_[a-z2-7]{16}_/);
    expect(res.stdout).toContain('not shown again');
  });

  it.each([
    [['--role', 'admin'], /--role must be one of/],
    [['--role', 'pm', '--scope', 'read:all,admin'], /unknown scope/],
    [['--role', 'pm', '--expires', 'tomorrow'], /--expires/],
    [['--role', 'pm', '--bogus'], /bogus/],
  ])('create refuses bad arguments %j with exit code 2', async (extra, message) => {
    const res = await runCli(
      ['token', 'create', '--org', 'cli-org', '--user', 'dee', '--name', 'z', ...extra],
      env,
    );
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(message);
    expect(res.stdout).toBe('');
  });

  it('list --json shows tokens without secrets; revoke stops the token', async () => {
    const created = JSON.parse(
      (
        await runCli(
          [
            'token',
            'create',
            '--org',
            'cli-list',
            '--user',
            'e',
            '--role',
            'owner',
            '--name',
            'to-revoke',
            '--json',
          ],
          env,
        )
      ).stdout,
    );
    const listed = await runCli(['token', 'list', '--org', 'cli-list', '--json'], env);
    expect(listed.code).toBe(0);
    const tokens = JSON.parse(listed.stdout);
    expect(tokens).toEqual([expect.objectContaining({ id: created.id, name: 'to-revoke', revokedAt: null })]);
    expect(listed.stdout).not.toContain(created.token.split('_')[3]);
    const revoked = await runCli(['token', 'revoke', created.id], env);
    expect(revoked.code).toBe(0);
    expect((await request(t.url, 'GET', '/api/v1/tokens', { token: created.token })).status).toBe(401);
    const again = JSON.parse((await runCli(['token', 'list', '--org', 'cli-list', '--json'], env)).stdout);
    expect(again[0].revokedAt).not.toBeNull();
    expect((await runCli(['token', 'revoke', 'aaaaaaaaaaaaaaaa'], env)).code).toBe(1);
    expect((await runCli(['token', 'list', '--org', 'no-such-org'], env)).code).toBe(1);
  });
});

describe('r3 org limits', () => {
  it('sets, disables and resets the per-org override', async () => {
    await runCli(
      ['token', 'create', '--org', 'ent', '--user', 'f', '--role', 'owner', '--name', 'x', '--json'],
      env,
    );
    const raised = await runCli(
      ['org', 'limits', '--org', 'ent', '--per-min', '600', '--burst', '50', '--json'],
      env,
    );
    expect(JSON.parse(raised.stdout)).toEqual({
      org: 'ent',
      tier: 'enterprise',
      rateLimitPerMin: 600,
      rateLimitBurst: 50,
    });
    const off = await runCli(['org', 'limits', '--org', 'ent', '--unlimited', '--json'], env);
    expect(JSON.parse(off.stdout)).toMatchObject({ rateLimitPerMin: 0 });
    const reset = await runCli(['org', 'limits', '--org', 'ent', '--default', '--json'], env);
    expect(JSON.parse(reset.stdout)).toMatchObject({
      tier: 'standard',
      rateLimitPerMin: null,
      rateLimitBurst: null,
    });
    expect((await runCli(['org', 'limits', '--org', 'ent'], env)).code).toBe(2);
  });
});

describe('configuration errors and migrate', () => {
  it('stops with exit code 2 and a message naming the variable', async () => {
    const res = await runCli(['serve'], { ...env, PORT: 'eighty' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('PORT');
    const backoff = await runCli(['migrate'], { ...env, R3_WEBHOOK_BACKOFF: '1s,soon' });
    expect(backoff.code).toBe(2);
    expect(backoff.stderr).toContain('R3_WEBHOOK_BACKOFF');
    const sampler = await runCli(['serve'], { ...env, OTEL_TRACES_SAMPLER: 'bogus' });
    expect(sampler.code).toBe(2);
    expect(sampler.stderr).toMatch(/OTEL_TRACES_SAMPLER: must be one of .* \(got "bogus"\)/);
  });

  it('migrate reports an up-to-date database', async () => {
    const res = await runCli(['migrate'], env);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('up to date');
  });

  it('prints usage for unknown commands', async () => {
    const res = await runCli(['frobnicate'], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('Usage');
  });
});
