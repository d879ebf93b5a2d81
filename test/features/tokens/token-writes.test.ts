/**
 * Token writes go through plain SQL: the first AsyncLocalStorage context in a process (MikroORM runs
 * its transactions and flushes in one) turns on Node's promise hooks for good, and every later
 * request pays for them. Creating and revoking tokens — by the CLI's service and through the API —
 * must not enter one.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('token writes', () => {
  it('create, revoke (operator) and revoke (API) without entering an AsyncLocalStorage context', async () => {
    const run = vi.spyOn(AsyncLocalStorage.prototype, 'run');
    const enterWith = vi.spyOn(AsyncLocalStorage.prototype, 'enterWith');
    try {
      const owner = await t.token({ org: 'plain-sql' });
      const other = await t.token({ org: 'plain-sql', user: 'someone', role: 'pm' });
      const third = await t.token({ org: 'plain-sql', user: 'third', role: 'pm' });
      const revoked = await t.request('DELETE', `/api/v1/tokens/${other.id}`, { token: owner.token });
      expect(revoked.status).toBe(200);
      expect(revoked.body).toMatchObject({
        id: other.id,
        userId: 'someone',
        role: 'pm',
        revokedAt: expect.any(String),
      });
      expect(await t.app.tokens.revoke(third.id)).toBe(true);
      expect(await t.app.tokens.revoke('aaaaaaaaaaaaaaaa')).toBe(false);
      expect((await t.request('GET', '/api/v1/tokens', { token: third.token })).status).toBe(401);
      expect(run).not.toHaveBeenCalled();
      expect(enterWith).not.toHaveBeenCalled();
    } finally {
      run.mockRestore();
      enterWith.mockRestore();
    }
  });
});
