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

  it('through the queue sends no read of the run nor of its policy besides the target, and the ledger with the COMMIT', async () => {
    for (const action of ['approve', 'reject'] as const) {
      const id = await pendingSkillRun(t, acme.owner.token);
      const read = await t.request('GET', `/api/v1/reviews/skill/${id}`, { token: acme.owner.token });
      const revision = read.body.review.revision as string;
      const { order, on } = await recordStatements(async () => {
        const res = await t.request('POST', '/api/v1/reviews/decide', {
          token: acme.owner.token,
          body: { kind: 'skill', id, action, revision },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      });
      const sent = order.filter((entry) => entry.startsWith('sent '));
      // The run as the host loads it, and the facts of its policy, come with the target.
      expect(sent.filter((e) => e === 'sent reviews_target_runs_with_subject')).toHaveLength(1);
      expect(
        sent.filter((e) => e.startsWith('sent actor_load_') || e.startsWith('sent actor_lock_')),
      ).toEqual([]);
      expect(sent.filter((e) => / as started_by/.test(e))).toEqual([]);
      // The pending ledger entry goes out with the COMMIT, whose answer says whether it was written.
      const connection = on('actor_update_skill-run');
      const update = connection.findIndex((e) => e.startsWith('sent actor_update_skill-run'));
      const begin = connection.lastIndexOf('sent begin', update);
      const tx = connection
        .slice(begin, connection.indexOf('answered commit', update) + 1)
        .map((e) => e.replace(/#\d+$/, ''));
      expect(tx.filter((e) => e.startsWith('sent '))).toEqual([
        'sent begin',
        'sent actor_update_skill-run',
        'sent actor_update_review-item',
        'sent review_ledger_pending',
        'sent commit',
      ]);
      expect(tx.indexOf('sent commit')).toBeLessThan(tx.indexOf('answered review_ledger_pending'));
      expect(await itemsOf(t, id)).toMatchObject([{ status: 'decided', open: false }]);
      const run = await t.request('GET', `/api/v1/runs/${id}`, { token: acme.owner.token });
      expect(run.body.status).toBe(action === 'approve' ? 'approved' : 'rejected');
    }
  });

  it('of a batch reads its runs, their items and their policies in one statement, and no run again', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(await pendingSkillRun(t, acme.owner.token));
    const { order } = await recordStatements(async () => {
      const res = await t.request('POST', '/api/v1/reviews/decide-batch', {
        token: acme.owner.token,
        body: { items: ids.map((id) => ({ kind: 'skill', id })), action: 'approve' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    });
    const sent = order.filter((entry) => entry.startsWith('sent '));
    expect(sent.filter((e) => e.startsWith('sent reviews_target_'))).toEqual([
      'sent reviews_target_runs_with_subject',
    ]);
    expect(sent.filter((e) => e.startsWith('sent actor_load_') || e.startsWith('sent actor_lock_'))).toEqual(
      [],
    );
    expect(sent.filter((e) => e.startsWith('sent review_policy_facts_'))).toEqual([]);
    for (const id of ids) expect(await itemsOf(t, id)).toMatchObject([{ status: 'decided', open: false }]);
  });

  it('is shown (GET /reviews/:kind/:id) with its policy from the statement that reads the item', async () => {
    const id = await pendingSkillRun(t, acme.owner.token);
    const { result, order } = await recordStatements(() =>
      t.request('GET', `/api/v1/reviews/skill/${id}`, { token: acme.owner.token }),
    );
    expect(result.status).toBe(200);
    expect(result.body.policy.source).toEqual(expect.any(String));
    const sent = order.filter((entry) => entry.startsWith('sent '));
    expect(sent.filter((e) => e === 'sent reviews_get_run')).toHaveLength(1);
    expect(sent.filter((e) => e.startsWith('sent review_policy_facts_'))).toEqual([]);
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
