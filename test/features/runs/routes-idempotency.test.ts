/**
 * Idempotent run triggers (docs/api.md "Runs"): per token, 24 hours, bound to the
 * request; replays answer the same body with `Idempotent-Replayed: true`; concurrent duplicates
 * create exactly one run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { createSkill } from '../../helpers/resources.js';

let t: TestApp;
let admin: CreatedToken;
let colleague: CreatedToken;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0', R3_DB_POOL_SIZE: '5' });
  admin = await t.token({ scopes: ALL_SCOPES });
  colleague = await t.token({ scopes: ALL_SCOPES });
  await createSkill(t, admin.token, { slug: 'sum' });
  await createSkill(t, admin.token, { slug: 'other' });
});
afterAll(() => t.close());

const trigger = (body: unknown, token = admin.token, slug = 'sum') =>
  t.request('POST', `/api/v1/skills/${slug}/runs`, { token, body });
const runCount = async () => (await t.app.db.sql.one<{ n: number }>('select count(*)::int as n from runs')).n;

describe('idempotency keys', () => {
  it('replay the first answer for the same key and body, creating nothing', async () => {
    const before = await runCount();
    const first = await trigger({ input: { text: 'a' }, idempotencyKey: 'k1' });
    expect(first.status).toBe(202);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    await t.app.jobs.drain();
    const again = await trigger({ input: { text: 'a' }, idempotencyKey: 'k1' });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // The same body as the first answer (status as it was then), not the run's current status.
    expect(again.body).toEqual(first.body);
    expect(await runCount()).toBe(before + 1);
  });

  it('do not care about key order or whitespace in the body', async () => {
    const first = await trigger({ idempotencyKey: 'k2', input: { b: 2, a: 1 } });
    const again = await t.request('POST', '/api/v1/skills/sum/runs', {
      token: admin.token,
      rawBody: '{ "input": {"a": 1, "b": 2},\n  "idempotencyKey": "k2" }',
      headers: { 'content-type': 'application/json' },
    });
    expect(again.status).toBe(202);
    expect(again.body.runId).toBe(first.body.runId);
  });

  it.each([
    ['another body', { input: { text: 'b' }, idempotencyKey: 'k3' }, 'sum'],
    ['another skill', { input: { text: 'a' }, idempotencyKey: 'k3' }, 'other'],
  ])('answer 409 CONFLICT for the same key with %s', async (_name, body, slug) => {
    await trigger({ input: { text: 'a' }, idempotencyKey: 'k3' });
    const before = await runCount();
    const res = await trigger(body, admin.token, slug);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'CONFLICT', details: { idempotencyKey: 'k3' } });
    expect(await runCount()).toBe(before);
  });

  it('are scoped per token', async () => {
    const mine = await trigger({ input: { text: 'a' }, idempotencyKey: 'k4' });
    const theirs = await trigger({ input: { text: 'a' }, idempotencyKey: 'k4' }, colleague.token);
    expect(theirs.status).toBe(202);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.runId).not.toBe(mine.body.runId);
  });

  it('expire after 24 hours', async () => {
    const first = await trigger({ input: { text: 'a' }, idempotencyKey: 'k5' });
    t.clock.advance(24 * 3_600_000 - 1);
    expect((await trigger({ input: { text: 'a' }, idempotencyKey: 'k5' })).body.runId).toBe(first.body.runId);
    t.clock.advance(1);
    const later = await trigger({ input: { text: 'other body, now allowed' }, idempotencyKey: 'k5' });
    expect(later.status).toBe(202);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.runId).not.toBe(first.body.runId);
  });

  it('are not taken by a request that fails validation', async () => {
    const bad = await trigger({ input: 'nope', idempotencyKey: 'k6' });
    expect(bad.status).toBe(400);
    const unknown = await trigger({ input: {}, idempotencyKey: 'k6' }, admin.token, 'missing');
    expect(unknown.status).toBe(404);
    const good = await trigger({ input: { text: 'a' }, idempotencyKey: 'k6' });
    expect(good.status).toBe(202);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('let exactly one of 50 concurrent duplicates create the run', async () => {
    const before = await runCount();
    const body = { input: { text: 'race' }, idempotencyKey: 'k-race' };
    const answers = await Promise.all(Array.from({ length: 50 }, () => trigger(body)));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(202));
    const runIds = new Set(answers.map((a) => a.body.runId));
    expect(runIds.size).toBe(1);
    const fresh = answers.filter((a) => a.headers.get('idempotent-replayed') === null);
    expect(fresh).toHaveLength(1);
    for (const answer of answers) expect(answer.body).toEqual(fresh[0]?.body);
    expect(await runCount()).toBe(before + 1);
    const keys = await t.app.db.sql.query('select run_id from idempotency_keys where key = $1', ['k-race']);
    expect(keys).toEqual([{ run_id: fresh[0]?.body.runId }]);
  });

  it('let one of 50 concurrent requests with mixed bodies win; the rest replay or conflict', async () => {
    const before = await runCount();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        trigger({ input: { text: i % 2 ? 'odd' : 'even' }, idempotencyKey: 'k-mixed' }),
      ),
    );
    expect(await runCount()).toBe(before + 1);
    const created = answers.filter((a) => a.status === 202 && a.headers.get('idempotent-replayed') === null);
    expect(created).toHaveLength(1);
    const replays = answers.filter((a) => a.headers.get('idempotent-replayed') === 'true');
    const conflicts = answers.filter((a) => a.status === 409);
    expect(replays.length).toBe(24);
    expect(conflicts.length).toBe(25);
  });
});
