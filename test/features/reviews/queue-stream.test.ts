/**
 * `GET /api/v1/reviews/stream`: `ready` once subscribed, then one `review` event per change of an
 * item of the caller's org (opened, assigned, decided), each with the revision it left, never
 * another org's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { pendingSkillRun, type ReviewOrg, setupReviewOrg } from '../../helpers/reviews.js';
import { openSse } from '../../helpers/sse.js';

let t: TestApp;
let acme: ReviewOrg;
let other: ReviewOrg;

beforeAll(async () => {
  t = await startTestApp();
  acme = await setupReviewOrg(t, 'acme');
  other = await setupReviewOrg(t, 'other');
});
afterAll(async () => {
  await t.close();
});

describe('the review queue stream', () => {
  it("streams the org's review changes after `ready`, and no other org's", async () => {
    const stream = await openSse(t.url, '/api/v1/reviews/stream', { token: acme.owner.token });
    expect(stream.status).toBe(200);
    await stream.events.until((events) => events.some((e) => e.event === 'ready'), 'ready');
    await pendingSkillRun(t, other.owner.token);
    const id = await pendingSkillRun(t, acme.owner.token);
    await t.request('POST', '/api/v1/reviews/assign', {
      token: acme.owner.token,
      body: { kind: 'skill', id, assignedTo: 'acme-owner' },
    });
    await t.request('POST', '/api/v1/reviews/decide', {
      token: acme.owner.token,
      body: { kind: 'skill', id, action: 'approve' },
    });
    const events = await stream.events.until(
      (all) => all.some((e) => e.event === 'review.decided'),
      'decided',
    );
    // The draft arrives (`updated`) whenever the worker gets to it: before or after the assignment.
    const changes = events.filter((e) => e.event.startsWith('review.') && e.event !== 'review.updated');
    expect(changes.map((c) => c.event)).toEqual(['review.requested', 'review.assigned', 'review.decided']);
    expect(changes.map((c) => c.json.event)).toEqual(['opened', 'assigned', 'decided']);
    expect(changes.every((c) => c.json.kind === 'skill' && c.json.id === id)).toBe(true);
    expect(changes[1]?.json).toMatchObject({ assignedTo: 'acme-owner', status: 'pending' });
    expect(changes[2]?.json).toMatchObject({ action: 'approve', status: 'decided', revision: null });
    // Each change names the revision it left, the one the queue lists.
    const revisions = events.filter((e) => e.json?.revision).map((e) => e.json.revision);
    expect(new Set(revisions).size).toBe(revisions.length);
    expect(changes[0]?.json.revision).toEqual(expect.any(String));
    stream.close();
  });

  it('needs read:all', async () => {
    const narrow = await t.token({ org: 'acme', scopes: ['read:skills'] });
    const stream = await openSse(t.url, '/api/v1/reviews/stream', { token: narrow.token });
    expect(stream.status).toBe(403);
    stream.close();
    const wide = await t.token({ org: 'acme', scopes: ALL_SCOPES });
    const ok = await openSse(t.url, '/api/v1/reviews/stream', { token: wide.token });
    expect(ok.status).toBe(200);
    ok.close();
  });
});
