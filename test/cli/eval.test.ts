/**
 * `r3 eval` as a person runs it beside a running r3: it starts the evaluation, waits while the
 * server's workers replay the runs and prints the summary (or the evaluation as JSON); refusals exit 1
 * with the API's message, usage errors 2.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../src/features/tokens/service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { runCli } from '../helpers/process.js';
import { createSkill, patchSkill } from '../helpers/resources.js';
import { pendingSkillRun, setupReviewOrg } from '../helpers/reviews.js';
import { waitFor } from '../helpers/wait.js';

let database: TestDatabase;
let t: TestApp;
let env: Record<string, string>;
let owner: CreatedToken;
let candidate: string;
const runs: number[] = [];

const run = async (id: number) => (await t.request('GET', `/api/v1/runs/${id}`, { token: owner.token })).body;

beforeAll(async () => {
  database = await createTestDatabase();
  env = { DATABASE_URL: database.url };
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '2' }, { database });
  owner = (await setupReviewOrg(t, 'acme')).owner;
  await createSkill(t, owner.token, { slug: 'unreviewed', requiresApproval: true });
  for (let i = 0; i < 3; i++) runs.push(await pendingSkillRun(t, owner.token));
  await waitFor(async () => {
    for (const id of runs) if ((await run(id)).output === null) return false;
    return true;
  }, 'the drafts');
  for (const [i, id] of runs.entries()) {
    const res = await t.request('POST', '/api/v1/reviews/decide', {
      token: owner.token,
      body: { kind: 'skill', id, action: i === 0 ? 'reject' : 'approve' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  await patchSkill(t, owner.token, 'gated', { promptMd: 'Sum up: {{input.text}}' });
  candidate = (
    await t.app.db.sql.one<{ sha: string }>(
      `select h.applied_sha as sha from workspace_heads h join orgs o on o.id = h.org_id where o.slug = 'acme'`,
    )
  ).sha;
  // The CLI enqueues at the wall clock's time: the app's workers (on its manual clock) must see that
  // time as come.
  t.clock.set(Date.now() + 10 * 60_000);
});
afterAll(async () => {
  await t.close();
  await database.drop();
});

describe('r3 eval', () => {
  it('prints the summary once the workers replayed the runs', async () => {
    const res = await runCli(['eval', '--org', 'acme', '--skill', 'gated', '--workspace', candidate], env);
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^Evaluation \d+ of skill "gated" on [0-9a-f]{12}: completed$/);
    // The echo provider echoes the prompt: the new one changes every output.
    expect(lines[1]).toBe('3 runs replayed: 3 changed, 0 unchanged, 0 failed');
    expect(lines.slice(2)).toEqual([
      expect.stringMatching(new RegExp(`^  run ${runs[2]} \\(approved\\) -> shadow run \\d+: changed$`)),
      expect.stringMatching(new RegExp(`^  run ${runs[1]} \\(approved\\) -> shadow run \\d+: changed$`)),
      expect.stringMatching(new RegExp(`^  run ${runs[0]} \\(rejected\\) -> shadow run \\d+: changed$`)),
    ]);
  });

  it('--json prints the evaluation as GET /evaluations/:id answers it', async () => {
    const res = await runCli(
      [
        'eval',
        '--org',
        'acme',
        '--skill',
        'gated',
        '--workspace',
        candidate.slice(0, 8),
        '--last',
        '1',
        '--json',
      ],
      env,
    );
    expect(res.code, res.stderr).toBe(0);
    const evaluation = JSON.parse(res.stdout);
    const api = await t.request('GET', `/api/v1/evaluations/${evaluation.evaluationId}`, {
      token: owner.token,
    });
    expect(evaluation).toEqual(api.body);
    expect(evaluation).toMatchObject({ status: 'completed', createdBy: 'cli', summary: { total: 1 } });
  });

  it('refuses what the API refuses (exit 1), and bad usage (exit 2)', async () => {
    const none = await runCli(
      ['eval', '--org', 'acme', '--skill', 'unreviewed', '--workspace', candidate],
      env,
    );
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('has no reviewed runs');
    const org = await runCli(['eval', '--org', 'nope', '--skill', 'gated', '--workspace', candidate], env);
    expect(org.code).toBe(1);
    expect(org.stderr).toContain('no org "nope"');
    const version = await runCli(
      ['eval', '--org', 'acme', '--skill', 'gated', '--workspace', 'abcdef12'],
      env,
    );
    expect(version.code).toBe(1);
    expect((await runCli(['eval', '--org', 'acme', '--skill', 'gated'], env)).code).toBe(2);
    expect(
      (
        await runCli(
          ['eval', '--org', 'acme', '--skill', 'gated', '--workspace', candidate, '--last', '0'],
          env,
        )
      ).code,
    ).toBe(2);
  });
});
