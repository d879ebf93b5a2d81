/**
 * The decision ledger through the socket (decisions §16): every review event of an org appended to
 * its hash chain with the change (open, assign, snooze, decide; a skill's item and a workflow gate's), `GET /audit/reviews` (filters,
 * pages, tenancy, scope, bad input), nothing recorded by a refused change, and concurrent appends
 * forming one chain.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerEntry as Entry } from '../../../src/features/reviews/ledger.js';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { fields } from '../../helpers/api.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { pausedWorkflowRun, pendingSkillRun, setupReviewOrg } from '../../helpers/reviews.js';

let t: TestApp;
let owner: CreatedToken;
let other: CreatedToken;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  owner = (await setupReviewOrg(t, 'acme')).owner;
  other = (await setupReviewOrg(t, 'globex')).owner;
  await t.token({ org: 'acme', user: 'ann', role: 'pm' });
});
afterAll(() => t.close());

const audit = (query: string, token = owner.token) =>
  t.request('GET', `/api/v1/audit/reviews${query}`, { token });

/** Every entry of the caller's org, page by page. */
async function allEntries(token = owner.token, filter = ''): Promise<Entry[]> {
  const entries: Entry[] = [];
  let cursor: string | null = null;
  do {
    const res = await audit(`?limit=200${filter}${cursor ? `&cursor=${cursor}` : ''}`, token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    entries.push(...res.body.entries);
    cursor = res.body.nextCursor;
  } while (cursor);
  return entries;
}

/** The test's own canonical JSON (keys sorted at every level), independent of the server's. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** Checks `entries` (a whole org's) form the chain the contract describes. */
function expectChain(entries: Entry[]): void {
  let prev = '0'.repeat(64);
  entries.forEach((entry, index) => {
    const { hash, ...rest } = entry;
    expect(entry.seq).toBe(index + 1);
    expect(entry.prevHash).toBe(prev);
    expect(hash).toBe(
      createHash('sha256')
        .update(JSON.stringify(sorted(rest)))
        .digest('hex'),
    );
    prev = hash;
  });
}

const post = (path: string, body: unknown) =>
  t.request('POST', `/api/v1${path}`, { token: owner.token, body });

describe('the decision ledger', () => {
  let run: number;

  it('records opened, assigned, snoozed and decided in one chain, with who and what', async () => {
    run = await pendingSkillRun(t, owner.token);
    expect(
      (await post('/reviews/assign', { kind: 'skill', id: run, assignedTo: 'ann', note: 'yours' })).status,
    ).toBe(200);
    const until = new Date(t.clock.now() + 60_000).toISOString();
    expect((await post('/reviews/snooze', { kind: 'skill', id: run, until })).status).toBe(200);
    const decided = await post('/reviews/decide', { kind: 'skill', id: run, action: 'reject', reason: 'no' });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);

    const entries = await allEntries(owner.token, `&kind=skill&id=${run}`);
    expect(entries.map((e) => e.event)).toEqual(['opened', 'assigned', 'snoozed', 'decided']);
    const by = `token:${owner.id}`;
    expect(entries.every((e) => e.kind === 'skill' && e.id === run && e.by === by)).toBe(true);
    expect(entries[1]?.details).toMatchObject({ assignedTo: 'ann', note: 'yours' });
    expect(entries[2]?.details).toMatchObject({ snoozedUntil: until });
    expect(entries[3]?.details).toMatchObject({ status: 'decided', action: 'reject', reason: 'no' });
    for (const e of entries) expect(Date.parse(e.at)).not.toBeNaN();
    expectChain(await allEntries());
  });

  it('records nothing for a refused change', async () => {
    const before = (await allEntries()).length;
    const again = await post('/reviews/decide', { kind: 'skill', id: run, action: 'approve' });
    expect(again.status).toBe(409);
    expect((await allEntries()).length).toBe(before);
  });

  it('filters by kind and id', async () => {
    const second = await pendingSkillRun(t, owner.token);
    const onlySecond = await allEntries(owner.token, `&id=${second}`);
    expect(onlySecond.map((e) => [e.id, e.event])).toEqual([[second, 'opened']]);
    expect(await allEntries(owner.token, `&kind=workflow`)).toEqual([]);
    const gated = await pausedWorkflowRun(t, owner.token);
    const gate = await allEntries(owner.token, `&kind=workflow`);
    expect(gate.map((e) => [e.id, e.event])).toEqual([[gated, 'opened']]);
    expect(gate[0]?.details.title).toMatch(/^Go\?/);
    const skills = (await allEntries()).filter((e) => e.kind === 'skill');
    expect(await allEntries(owner.token, '&kind=skill')).toEqual(skills);
  });

  it('pages in chain order with a cursor', async () => {
    const all = await allEntries();
    expect(all.length).toBeGreaterThanOrEqual(5);
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await audit(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.entries.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.entries.map((e: Entry) => e.seq));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(all.map((e) => e.seq));
    expect(pages).toBe(Math.ceil(all.length / 2));
  });

  it('keeps each org to its own chain: another org never sees these entries', async () => {
    const theirs = await pendingSkillRun(t, other.token);
    const entries = await allEntries(other.token);
    expect(entries.map((e) => [e.seq, e.id, e.event])).toEqual([[1, theirs, 'opened']]);
    expect(entries[0]?.prevHash).toBe('0'.repeat(64));
    expect(await allEntries(other.token, `&kind=skill&id=${run}`)).toEqual([]);
    expect((await allEntries()).some((e) => e.id === theirs)).toBe(false);
  });

  it('forms one chain from concurrent appends in one org', async () => {
    const before = (await allEntries()).length;
    await Promise.all(Array.from({ length: 12 }, () => pendingSkillRun(t, owner.token)));
    const entries = await allEntries();
    expect(entries.length).toBe(before + 12);
    expectChain(entries);
    expect(await t.app.ledger.verify('acme')).toEqual({ ok: true, entries: entries.length, brokenAt: null });
  });

  it('chains entries right after their commit, without a read', async () => {
    const run = await pendingSkillRun(t, owner.token);
    const chained = () =>
      t.app.db.sql.query<{ seq: number | null }>(
        "select seq from review_ledger where kind = 'skill' and subject_id = $1",
        [run],
      );
    await expect
      .poll(async () => (await chained()).map((r) => r.seq === null), { timeout: 10_000 })
      .toEqual([false]);
  });

  it('needs read:all (403 without it)', async () => {
    const invoker = await t.token({ org: 'acme', scopes: ['run:invoke'] });
    const res = await audit('', invoker.token);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
  });

  it.each([
    ['kind=nope', 'query.kind'],
    ['id=0', 'query.id'],
    ['id=x', 'query.id'],
    ['limit=0', 'query.limit'],
    ['limit=201', 'query.limit'],
    ['cursor=nonsense', 'query.cursor'],
  ])('answers 400 naming the field for %s', async (query, field) => {
    const res = await audit(`?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(fields(res.body)).toEqual([field]);
  });
});
