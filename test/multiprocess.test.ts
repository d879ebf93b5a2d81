/**
 * Several r3 processes on one database: the rate limit is shared, revocation is seen by the other
 * process at once, and SIGTERM shuts a process down cleanly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './helpers/app.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { runCli, type ServeProcess, spawnServe } from './helpers/process.js';

let database: TestDatabase;
let a: ServeProcess;
let b: ServeProcess;
let env: Record<string, string>;

beforeAll(async () => {
  database = await createTestDatabase();
  env = { DATABASE_URL: database.url, R3_RATE_LIMIT_PER_MIN: '1', R3_RATE_LIMIT_BURST: '6' };
  [a, b] = await Promise.all([spawnServe(env), spawnServe(env)]);
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await database?.drop();
});

async function createToken(user: string): Promise<{ id: string; token: string }> {
  const res = await runCli(
    ['token', 'create', '--org', 'multi', '--user', user, '--role', 'owner', '--name', user, '--json'],
    env,
  );
  expect(res.code).toBe(0);
  return JSON.parse(res.stdout);
}

describe('two r3 processes sharing one database', () => {
  it('share one rate-limit bucket per token', async () => {
    const { token } = await createToken('limited');
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await request(i % 2 === 0 ? a.url : b.url, 'GET', '/api/v1/tokens', { token });
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(6);
    expect(statuses.slice(6)).toEqual([429, 429, 429, 429, 429, 429]);
  });

  it('see a revocation made on the other process immediately', async () => {
    const { id, token } = await createToken('revoked');
    expect((await request(b.url, 'GET', '/api/v1/tokens', { token })).status).toBe(200);
    expect((await request(a.url, 'DELETE', `/api/v1/tokens/${id}`, { token })).status).toBe(200);
    const after = await request(b.url, 'GET', '/api/v1/tokens', { token });
    expect(after.status).toBe(401);
    expect(after.body.error.details.reason).toBe('revoked');
  });

  it('stop on SIGTERM: refuse new connections and exit 0', async () => {
    const c = await spawnServe({ ...env, R3_LOG_LEVEL: 'info' });
    expect((await request(c.url, 'GET', '/healthz')).status).toBe(200);
    expect(await c.stop()).toBe(0);
    await expect(request(c.url, 'GET', '/healthz')).rejects.toThrow();
    expect(c.output()).toContain('shutting down');
    expect(c.output()).toContain('r3 stopped');
  });
});
