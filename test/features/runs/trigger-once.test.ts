/**
 * A trigger computes its run's creation once, through the socket: a gated skill (its review item
 * opened in a follow-up) triggered without an idempotency key starts in a real transaction instead of
 * a single one it would leave to compute the creation again; an ungated one too.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { createSkill } from '../../helpers/resources.js';
import { itemsOf } from '../../helpers/reviews.js';

let t: TestApp;
let admin: CreatedToken;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  admin = await t.token({ org: 'acme', scopes: ALL_SCOPES });
  await createSkill(t, admin.token, { slug: 'gated', name: 'Gated draft', requiresApproval: true });
  await createSkill(t, admin.token, { slug: 'plain', name: 'Plain' });
});
afterAll(() => t.close());

/** Triggers `slug` without a key: the run, and how often its creation was computed. */
async function trigger(slug: string) {
  const create = vi.spyOn(t.app.actors, 'create');
  try {
    const res = await t.request('POST', `/api/v1/skills/${slug}/runs`, {
      token: admin.token,
      body: { input: { text: 'x' } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    // The review item's creation (a follow-up of the gated run's) is not the run's.
    const runs = create.mock.calls.filter(([, kind]) => kind === 'skill-run');
    return { runId: res.body.runId as number, creations: runs.length };
  } finally {
    create.mockRestore();
  }
}

describe('a trigger without an idempotency key', () => {
  it('of a gated skill computes the creation once, with its review item', async () => {
    const { runId, creations } = await trigger('gated');
    expect(creations).toBe(1);
    expect(await itemsOf(t, runId)).toMatchObject([{ status: 'unassigned', open: true }]);
  });

  it('of an ungated skill computes it once', async () => {
    const { runId, creations } = await trigger('plain');
    expect(creations).toBe(1);
    expect(await itemsOf(t, runId)).toEqual([]);
  });
});
