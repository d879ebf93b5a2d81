/**
 * Reads that concurrent requests share (one statement per batch): runs by id and applied skills. A
 * batch mixing orgs must still answer each request within its own org: another org's id or slug is
 * 404, even when the same batch reads it for its owner.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunReader } from '../../../src/features/runs/view.js';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { createSkill } from '../../helpers/resources.js';
import { orgIdOf } from '../../helpers/runs.js';
import { countingSql } from '../../helpers/sql.js';

let t: TestApp;
let red: CreatedToken;
let blue: CreatedToken;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  red = await t.token({ org: 'red', scopes: ALL_SCOPES });
  blue = await t.token({ org: 'blue', scopes: ALL_SCOPES });
  await createSkill(t, red.token, { slug: 'shared-name' }, 'red {{input.x}}');
  await createSkill(t, blue.token, { slug: 'shared-name' }, 'blue {{input.x}}');
  await createSkill(t, red.token, { slug: 'red-only' }, 'red only');
});
afterAll(() => t.close());

const trigger = (token: string, slug: string) =>
  t.request('POST', `/api/v1/skills/${slug}/runs`, { token, body: { input: { x: 'y' } } });

describe('concurrent triggers', () => {
  it("resolve each org's own skill of a shared slug, and 404 another org's", async () => {
    const answers = await Promise.all([
      trigger(red.token, 'shared-name'),
      trigger(blue.token, 'shared-name'),
      trigger(blue.token, 'red-only'),
      trigger(red.token, 'red-only'),
      trigger(red.token, 'shared-name'),
    ]);
    expect(answers.map((a) => a.status)).toEqual([202, 202, 404, 202, 202]);
    const runs = await Promise.all(
      [0, 1, 3, 4].map((i) => {
        const token = i === 1 ? blue.token : red.token;
        return t.request('GET', `/api/v1/runs/${answers[i]?.body.runId}`, { token });
      }),
    );
    expect(runs.map((r) => [r.status, r.body.slug])).toEqual([
      [200, 'shared-name'],
      [200, 'shared-name'],
      [200, 'red-only'],
      [200, 'shared-name'],
    ]);
    // The runs recorded the manifest of their own org's skill.
    const prompts = await t.app.db.sql.query<{ id: number; prompt: string }>(
      `select id, manifest->'skill'->>'promptMd' as prompt from runs where id = any($1::bigint[]) order by id`,
      [[answers[0]?.body.runId, answers[1]?.body.runId]],
    );
    expect(prompts.map((p) => p.prompt).sort()).toEqual(['blue {{input.x}}', 'red {{input.x}}']);
  });
});

describe('concurrent run reads', () => {
  it("answer each caller's own runs and 404 the other org's, in one batch", async () => {
    const mine = await trigger(red.token, 'red-only');
    const theirs = await trigger(blue.token, 'shared-name');
    const reads = await Promise.all([
      t.request('GET', `/api/v1/runs/${mine.body.runId}`, { token: red.token }),
      t.request('GET', `/api/v1/runs/${mine.body.runId}`, { token: blue.token }),
      t.request('GET', `/api/v1/runs/${theirs.body.runId}`, { token: blue.token }),
      t.request('GET', `/api/v1/runs/${theirs.body.runId}`, { token: red.token }),
      t.request('GET', '/api/v1/runs/999999999', { token: red.token }),
    ]);
    expect(reads.map((r) => r.status)).toEqual([200, 404, 200, 404, 404]);
    expect(reads[1]?.body.error.code).toBe('NOT_FOUND');
  });

  it('reads a batch of keys, duplicates and misses included, in one statement', async () => {
    const redOrg = await orgIdOf(t.app, 'red');
    const blueOrg = await orgIdOf(t.app, 'blue');
    const run = await trigger(red.token, 'red-only');
    const id = run.body.runId as number;
    const counting = countingSql(t.app.db.sql);
    const reader = createRunReader(counting.sql, () => t.app.config.baseUrl);
    const rows = await Promise.all([
      reader.load({ orgId: redOrg, id }),
      reader.load({ orgId: blueOrg, id }),
      reader.load({ orgId: redOrg, id }),
      reader.load({ orgId: redOrg, id: id + 10_000 }),
    ]);
    expect(rows.map((r) => (r === null ? null : JSON.parse(r).id))).toEqual([id, null, id, null]);
    expect(counting.statements).toHaveLength(1);
  });
});
