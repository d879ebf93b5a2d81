/**
 * What a decision reads, counted over the socket's statements: `POST /reviews/decide` reads the
 * item once (the queue's read, which the subject's transition closes it from) and not the run after
 * its decision (the queue answers the queue, not the run); closing an item another way (a run's
 * cancel) reads it once; `POST /runs/:id/approve` goes through the same choke point (the queue's one
 * read of the run and its item) and still answers the run, read once after.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { itemsOf, pendingSkillRun, type ReviewOrg, setupReviewOrg } from '../../helpers/reviews.js';
import { recordStatements } from '../../helpers/statements.js';

let t: TestApp;
let acme: ReviewOrg;

beforeAll(async () => {
  // No workers: only the request's own statements run.
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  acme = await setupReviewOrg(t, 'acme');
});
afterAll(() => t.close());

/** How many statements of each kind `fn` sent that read a review item or a run's view. */
async function reads(fn: () => Promise<unknown>) {
  const { order } = await recordStatements(fn);
  const sent = order.filter((entry) => entry.startsWith('sent '));
  const count = (match: (entry: string) => boolean) => sent.filter(match).length;
  return {
    // The queue's read of the subject and its open item.
    target: count((e) => e.startsWith('sent reviews_target_')),
    // Any other read of a review item: by its subject, or the host's load of it.
    item: count(
      (e) =>
        e === 'sent review_item_open' || e === 'sent actor_load_review_items' || /from review_items/.test(e),
    ),
    runView: count((e) => e === 'sent run_view_batch'),
  };
}

describe('a decision', () => {
  it('through the queue reads the item once, and not the run after it', async () => {
    const id = await pendingSkillRun(t, acme.owner.token);
    const counted = await reads(async () => {
      const res = await t.request('POST', '/api/v1/reviews/decide', {
        token: acme.owner.token,
        body: { kind: 'skill', id, action: 'approve' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    });
    expect(counted).toEqual({ target: 1, item: 0, runView: 0 });
    expect(await itemsOf(t, id)).toMatchObject([{ status: 'decided', open: false }]);
  });

  it('closes the item of a run cancelled with one read of it', async () => {
    const id = await pendingSkillRun(t, acme.owner.token);
    const counted = await reads(async () => {
      const res = await t.request('POST', `/api/v1/runs/${id}/cancel`, { token: acme.owner.token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    });
    expect(counted.item).toBe(1);
    expect(await itemsOf(t, id)).toMatchObject([{ status: 'cancelled', open: false }]);
  });

  it("on the run's own route reads as the queue does, and answers the run, read once after", async () => {
    const id = await pendingSkillRun(t, acme.owner.token);
    let body: { status?: string } = {};
    const counted = await reads(async () => {
      const res = await t.request('POST', `/api/v1/runs/${id}/approve`, {
        token: acme.owner.token,
        body: {},
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      body = res.body;
    });
    expect(body.status).toBe('approved');
    expect(counted).toEqual({ target: 1, item: 0, runView: 1 });
  });
});
