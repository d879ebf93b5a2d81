/**
 * `GET /api/v1/machines` and `/machines/:name` through the socket: the registered actor kinds (the
 * features' machines), by name, with their versions; a kind's definition with its eventless
 * transitions; 404 for a name that is no kind; 401 without a token and 403 without `read:all`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureMachines } from '../../../src/features.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  token = (await t.token()).token;
});
afterAll(() => t.close());

describe('machine routes', () => {
  it("list every feature's actor kind by name, with its machine's version", async () => {
    const res = await t.request('GET', '/api/v1/machines', { token });
    expect(res.status).toBe(200);
    expect(res.body.machines).toEqual(
      Object.keys(featureMachines)
        .sort()
        .map((name) => ({ name, version: '1' })),
    );
  });

  it("answer a kind's definition, with its eventless transitions", async () => {
    const res = await t.request('GET', '/api/v1/machines/mission-run', { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 'mission-run', version: '1' });
    expect(JSON.stringify(res.body)).toContain('"always"');
  });

  it('answer 404 for a name that is no kind, 401 without a token, 403 without read:all', async () => {
    expect((await t.request('GET', '/api/v1/machines/no-such-kind', { token })).status).toBe(404);
    expect((await t.request('GET', '/api/v1/machines')).status).toBe(401);
    const runner = (await t.token({ scopes: ['run:invoke'] })).token;
    expect((await t.request('GET', '/api/v1/machines', { token: runner })).status).toBe(403);
  });
});
