/**
 * `POST /reviews/decide-batch` and MCP `review_decide_batch` (decisions.md §15), through the socket:
 * 1–100 items decided all or nothing through the choke point — one unknown, stale or closed item
 * decides none (409 `details.items`); each item is one rate-limit unit; tenancy, scope, bad input.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { connectHttp, fails, ok } from '../../helpers/mcp.js';
import {
  currentRevision,
  itemsOf,
  pausedWorkflowRun,
  pendingProposal,
  pendingSkillRun,
  setupReviewOrg,
} from '../../helpers/reviews.js';

let t: TestApp;
let owner: CreatedToken;
let foreign: CreatedToken;
let client: Client;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  owner = (await setupReviewOrg(t, 'acme')).owner;
  foreign = (await setupReviewOrg(t, 'other')).owner;
  client = await connectHttp(t.url, owner.token);
});
afterAll(async () => {
  await client?.close();
  await t.close();
});

const batch = (body: unknown, token = owner.token) =>
  t.request('POST', '/api/v1/reviews/decide-batch', { token, body });

/** Whether each item `[kind, id]` still has its open item. */
async function stillOpen(items: Array<[string, number]>): Promise<boolean[]> {
  return Promise.all(items.map(async ([kind, id]) => (await itemsOf(t, id, kind)).at(-1)?.open === true));
}

describe('POST /reviews/decide-batch', () => {
  it('decides every item of each kind, with their revisions, and answers the refreshed queue', async () => {
    const skill = await pendingSkillRun(t, owner.token);
    const workflow = await pausedWorkflowRun(t, owner.token);
    const action = await pendingProposal(t, 'acme');
    const res = await batch({
      items: [
        { kind: 'skill', id: skill, revision: await currentRevision(t, owner.token, 'skill', skill) },
        {
          kind: 'workflow',
          id: workflow,
          revision: await currentRevision(t, owner.token, 'workflow', workflow),
        },
        { kind: 'action', id: action },
      ],
      action: 'reject',
      reason: 'not now',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ ok: true, decided: 3, reviews: expect.any(Array) });
    expect(
      await stillOpen([
        ['skill', skill],
        ['workflow', workflow],
        ['action', action],
      ]),
    ).toEqual([false, false, false]);
    expect((await t.request('GET', `/api/v1/runs/${skill}`, { token: owner.token })).body).toMatchObject({
      status: 'rejected',
      review: { reason: 'not now' },
    });
  });

  it('decides nothing when one item is stale, unknown, another org’s or closed: 409 names each', async () => {
    const a = await pendingSkillRun(t, owner.token);
    const b = await pendingSkillRun(t, owner.token);
    const staleRevision = await currentRevision(t, owner.token, 'skill', b);
    expect(
      (
        await t.request('POST', '/api/v1/reviews/assign', {
          token: owner.token,
          body: { kind: 'skill', id: b, assignedTo: null, note: 'moved' },
        })
      ).status,
    ).toBe(200);
    const closed = await pendingSkillRun(t, owner.token);
    expect((await batch({ items: [{ kind: 'skill', id: closed }], action: 'approve' })).status).toBe(200);
    const theirs = await pendingSkillRun(t, foreign.token);
    const res = await batch({
      items: [
        { kind: 'skill', id: a, revision: await currentRevision(t, owner.token, 'skill', a) },
        { kind: 'skill', id: b, revision: staleRevision },
        { kind: 'skill', id: 999_999 },
        { kind: 'skill', id: theirs },
        { kind: 'skill', id: closed },
      ],
      action: 'approve',
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('CONFLICT');
    expect(res.body.error.details.items).toEqual(
      expect.arrayContaining([
        { kind: 'skill', id: b, reason: 'stale' },
        { kind: 'skill', id: 999_999, reason: 'not_found' },
        { kind: 'skill', id: theirs, reason: 'not_found' },
        { kind: 'skill', id: closed, reason: 'not_open' },
      ]),
    );
    expect(res.body.error.details.items).toHaveLength(4);
    expect(
      await stillOpen([
        ['skill', a],
        ['skill', b],
      ]),
    ).toEqual([true, true]);
    const log = await t.request('GET', `/api/v1/runs/${a}/transitions`, { token: owner.token });
    expect(
      log.body.transitions.some((row: { event: { type: string } }) => row.event.type === 'APPROVE'),
    ).toBe(false);
  });

  it('refuses bad input with 400 (empty, over 100, an item twice, a bad action) and 403 without the approve capability', async () => {
    const id = await pendingSkillRun(t, owner.token);
    const field = async (body: unknown) => {
      const res = await batch(body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      return res.body.error.details.issues[0].field as string;
    };
    expect(await field({ items: [], action: 'approve' })).toBe('body.items');
    const many = Array.from({ length: 101 }, (_, i) => ({ kind: 'skill', id: i + 1 }));
    expect(await field({ items: many, action: 'approve' })).toBe('body.items');
    expect(
      await field({
        items: [
          { kind: 'skill', id },
          { kind: 'skill', id },
        ],
        action: 'approve',
      }),
    ).toBe('body.items');
    expect(await field({ items: [{ kind: 'skill', id }], action: 'request_changes' })).toBe('body.action');
    expect(await field({ items: [{ kind: 'robot', id }], action: 'approve' })).toBe('body.items.0.kind');
    const reader = await t.token({ org: 'acme', user: 'reader', role: 'pm', scopes: ['read:all'] });
    expect((await batch({ items: [{ kind: 'skill', id }], action: 'approve' }, reader.token)).status).toBe(
      403,
    );
    expect(await stillOpen([['skill', id]])).toEqual([true]);
  });

  it('charges one rate-limit unit per item: a batch the bucket cannot pay is 429 and decides nothing', async () => {
    const tight = (await setupReviewOrg(t, 'tight')).owner;
    const ids = [
      await pendingSkillRun(t, tight.token),
      await pendingSkillRun(t, tight.token),
      await pendingSkillRun(t, tight.token),
    ];
    await t.app.db.sql.query(
      `update orgs set rate_limit_per_min = 1, rate_limit_burst = 4 where slug = 'tight'`,
    );
    const items = ids.map((id) => ({ kind: 'skill', id }));
    const first = await batch({ items: items.slice(0, 2), action: 'approve' }, tight.token);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
    const second = await batch(
      {
        items: [items[2], { kind: 'skill', id: 999_998 }, { kind: 'skill', id: 999_997 }],
        action: 'approve',
      },
      tight.token,
    );
    expect(second.status).toBe(429);
    expect(second.body.error.code).toBe('RATE_LIMITED');
    expect((await itemsOf(t, ids[2] as number)).at(-1)?.open).toBe(true);
  });
});

describe('MCP review_decide_batch', () => {
  it('decides all or nothing through the same choke point', async () => {
    const a = await pendingSkillRun(t, owner.token);
    const b = await pendingSkillRun(t, owner.token);
    const refused = await fails(
      client,
      'review_decide_batch',
      {
        items: [
          { kind: 'skill', id: a },
          { kind: 'skill', id: b, revision: 'zz.zz' },
        ],
        action: 'approve',
      },
      'CONFLICT',
    );
    expect(refused.details.items).toEqual([{ kind: 'skill', id: b, reason: 'stale' }]);
    expect(
      await stillOpen([
        ['skill', a],
        ['skill', b],
      ]),
    ).toEqual([true, true]);
    const done = await ok(client, 'review_decide_batch', {
      items: [
        { kind: 'skill', id: a, revision: await currentRevision(t, owner.token, 'skill', a) },
        { kind: 'skill', id: b },
      ],
      action: 'approve',
    });
    expect(done).toEqual({ ok: true, decided: 2 });
    expect(
      await stillOpen([
        ['skill', a],
        ['skill', b],
      ]),
    ).toEqual([false, false]);
  });
});
