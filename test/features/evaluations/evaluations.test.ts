/**
 * Evaluations through the socket against the scripted fake OpenAI server (docs/api.md "Evaluations",
 * decisions.md §17): 20 reviewed runs of a skill (approved, some edited, some rejected) replayed on a
 * new version as shadow runs — no review item, no webhook, not in GET /runs unless ?shadow=true, their
 * jobs below every other — compared with what the reviewers approved (hand-counted); `last` and
 * `statuses`; marks; every refusal with nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatBody, type FakeOpenAI, openaiEnv, startFakeOpenAI } from '../../../fakes/openai-server.js';
import { type Receiver, startReceiver } from '../../../fakes/webhook-receiver.js';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import type { Dispatched } from '../../../src/features/webhooks/dispatcher.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { connectHttp, ok } from '../../helpers/mcp.js';
import { createSkill, patchSkill } from '../../helpers/resources.js';
import type { Collector } from '../../helpers/wait.js';
import { register, watchDispatcher } from '../../helpers/webhooks.js';

let t: TestApp;
let fake: FakeOpenAI;
let receiver: Receiver;
let admin: CreatedToken;
let foreign: CreatedToken;
let readOnly: CreatedToken;
let invoker: CreatedToken;
let dispatched: Collector<Dispatched>;
/** The version the originals ran on, and the candidate. */
let v1: string;
let v2: string;
/** Original run id by its n (1..20), and the unreviewed run 21. */
const originals = new Map<number, number>();

/** Runs with n in these were rejected; those in EDITED approved with {reply: "edited n"}; the rest approved. */
const REJECTED = new Set([3, 6, 9, 12, 15, 18]);
const EDITED = new Set([1, 2, 4]);

/**
 * The scripted model: "v1 <n>" answers {reply: "r<n>"}; "v2 <n>" answers the same for an even n and
 * {reply: "r<n> (v2)"} for an odd one; "v3 <n>" fails the call (a shadow run that fails).
 */
function assistant(body: ChatBody) {
  const prompt = body.messages.map((m) => m.content ?? '').join('\n');
  const match = /v([123]) (\d+)/.exec(prompt);
  if (!match) return undefined;
  const [, version, n] = match;
  if (version === '3') return { content: 'not json at all' };
  const changed = version === '2' && Number(n) % 2 === 1;
  return { content: JSON.stringify({ reply: changed ? `r${n} (v2)` : `r${n}` }) };
}

const sha = async () =>
  (
    await t.app.db.sql.one<{ sha: string }>(
      `select h.applied_sha as sha from workspace_heads h join orgs o on o.id = h.org_id where o.slug = 'acme'`,
    )
  ).sha;
const count = async (sql: string) => Number((await t.app.db.sql.one<{ n: string }>(sql)).n);
const post = (path: string, body: unknown, token = admin.token) =>
  t.request('POST', `/api/v1${path}`, { token, body });
const get = (path: string, token = admin.token) => t.request('GET', `/api/v1${path}`, { token });

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-test', assistant });
  receiver = await startReceiver();
  t = await startTestApp(
    openaiEnv(fake, {
      R3_WORKER_CONCURRENCY: '0',
      R3_WEBHOOK_ALLOW_PRIVATE: 'true',
      R3_MCP_HTTP_AUTHORING: 'true',
    }),
  );
  admin = await t.token({ scopes: ALL_SCOPES });
  foreign = await t.token({ org: 'other', scopes: ALL_SCOPES });
  readOnly = await t.token({ scopes: ['read:all'] });
  invoker = await t.token();
  await createSkill(
    t,
    admin.token,
    { slug: 'reply', requiresApproval: true, outputSchema: { type: 'object', required: ['reply'] } },
    'v1 {{input.n}}',
  );
  await createSkill(t, admin.token, { slug: 'fresh', requiresApproval: true }, 'v1 {{input.n}}');
  await createSkill(t, admin.token, { slug: 'plain' }, 'v1 {{input.n}}');
  v1 = await sha();
  for (let n = 1; n <= 21; n++) {
    const res = await post('/skills/reply/runs', { input: { n } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    originals.set(n, res.body.runId);
  }
  await t.app.jobs.drain();
  for (let n = 1; n <= 20; n++) {
    const id = originals.get(n) as number;
    const body = REJECTED.has(n)
      ? { kind: 'skill', id, action: 'reject', reason: `not ${n}` }
      : EDITED.has(n)
        ? { kind: 'skill', id, action: 'approve', edits: { output: { reply: `edited ${n}` } } }
        : { kind: 'skill', id, action: 'approve' };
    const res = await post('/reviews/decide', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    t.clock.advance(1000);
  }
  await patchSkill(t, admin.token, 'reply', { promptMd: 'v2 {{input.n}}' });
  v2 = await sha();
  expect(v2).not.toBe(v1);
  dispatched = watchDispatcher(t);
  await register(t, admin.token, {
    url: `${receiver.url}/in`,
    events: ['run.completed', 'run.failed', 'run.started'],
    secret: 'whsec_test_0123456789abcdef',
  });
});

afterAll(async () => {
  await t.close();
  await receiver.close();
  await fake.close();
});

describe('an evaluation of 20 reviewed runs', () => {
  it('replays them on the candidate as shadow runs and compares them with what reviewers approved', async () => {
    const items = await count('select count(*) as n from review_items');
    const started = await post('/skills/reply/evaluations', { workspace: v2 });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const id = started.body.evaluationId as number;
    expect(started.body).toEqual({ evaluationId: id, statusUrl: `/api/v1/evaluations/${id}` });

    // Before the workers: running, every shadow job below every other job.
    const before = await get(`/evaluations/${id}`);
    expect(before.status).toBe(200);
    expect(before.body.status).toBe('running');
    expect(before.body.completedAt).toBeNull();
    const priorities = await t.app.db.sql.query<{ priority: number }>(
      `select j.priority from jobs j join runs r on r.id = (j.payload->>'actorId')::bigint
        where j.kind = 'execute_step' and r.shadow`,
    );
    expect(priorities.map((p) => p.priority)).toEqual(Array(20).fill(-1));

    await t.app.jobs.drain();
    const res = await get(`/evaluations/${id}`);
    expect(res.status).toBe(200);
    const body = res.body;
    expect(body).toMatchObject({
      evaluationId: id,
      skillSlug: 'reply',
      workspace: v2,
      status: 'completed',
      createdBy: `token:${admin.id}`,
      completedAt: expect.any(String),
    });
    // Newest decision first: n = 20 down to 1; 21 was never reviewed.
    expect(body.runs.map((r: { originalRunId: number }) => r.originalRunId)).toEqual(
      Array.from({ length: 20 }, (_, i) => originals.get(20 - i)),
    );
    for (const r of body.runs) {
      const n = [...originals].find(([, runId]) => runId === r.originalRunId)?.[0] as number;
      const shadowReply = n % 2 === 1 ? `r${n} (v2)` : `r${n}`;
      expect(r).toEqual({
        originalRunId: originals.get(n),
        shadowRunId: expect.any(Number),
        originalStatus: REJECTED.has(n) ? 'rejected' : 'approved',
        approvedOutput: REJECTED.has(n) ? null : { reply: EDITED.has(n) ? `edited ${n}` : `r${n}` },
        shadowOutput: { reply: shadowReply },
        changed: EDITED.has(n) || n % 2 === 1,
        shadowStatus: 'completed',
        shadowError: null,
        mark: null,
      });
    }
    // Hand-counted: edited 1, 2, 4; odd approved 5, 7, 11, 13, 17, 19; odd rejected 3, 9, 15.
    expect(body.summary).toEqual({ total: 20, changed: 12, failed: 0 });

    // Shadow runs: no review item, not in GET /runs unless asked, replays of their originals.
    expect(await count('select count(*) as n from review_items')).toBe(items);
    const listed = await get('/runs?limit=200');
    expect(listed.body.runs.some((r: { shadow: boolean }) => r.shadow)).toBe(false);
    expect(listed.body.runs).toHaveLength(21);
    const shadows = await get('/runs?shadow=true&limit=200');
    expect(shadows.body.runs).toHaveLength(20);
    for (const r of shadows.body.runs) {
      expect(r).toMatchObject({
        shadow: true,
        status: 'completed',
        reviewState: 'auto',
        workspaceSha: v2.slice(0, 12),
      });
      expect(body.runs.find((p: { shadowRunId: number }) => p.shadowRunId === r.id)?.originalRunId).toBe(
        r.replayOf,
      );
    }
    const one = await get(`/runs/${body.runs[0].shadowRunId}`);
    expect(one.body.shadow).toBe(true);

    // No webhook: each shadow event the dispatcher handled created no delivery; a real run's did.
    const plain = await post('/skills/plain/runs', { input: { n: 1 } });
    await t.app.jobs.drain();
    const subjects = (run: number) => (d: Dispatched) => d.subject.includes(`.run.${run}.`);
    const all = await dispatched.until(
      (seen) =>
        seen.some((d) => d.subject.endsWith(`.run.${plain.body.runId}.completed`)) &&
        body.runs.every((r: { shadowRunId: number }) =>
          seen.some((d) => d.subject.endsWith(`.run.${r.shadowRunId}.completed`)),
        ),
      'the shadow runs and the plain run dispatched',
    );
    for (const r of body.runs) {
      for (const d of all.filter(subjects(r.shadowRunId))) expect(d.created, d.subject).toBe(0);
    }
    expect(all.find((d) => d.subject.endsWith(`.run.${plain.body.runId}.completed`))?.created).toBe(1);
  });

  it('takes the last N, of the statuses asked', async () => {
    const last = await post('/skills/reply/evaluations', { workspace: v2.slice(0, 7), last: 5 });
    expect(last.status).toBe(202);
    const rejected = await post('/skills/reply/evaluations', { workspace: v2, statuses: ['rejected'] });
    expect(rejected.status).toBe(202);
    await t.app.jobs.drain();
    const five = (await get(last.body.statusUrl.replace('/api/v1', ''))).body;
    expect(five.runs.map((r: { originalRunId: number }) => r.originalRunId)).toEqual(
      [20, 19, 18, 17, 16].map((n) => originals.get(n)),
    );
    expect(five.summary).toEqual({ total: 5, changed: 2, failed: 0 });
    const six = (await get(`/evaluations/${rejected.body.evaluationId}`)).body;
    expect(six.runs.map((r: { originalRunId: number }) => r.originalRunId)).toEqual(
      [18, 15, 12, 9, 6, 3].map((n) => originals.get(n)),
    );
    expect(six.summary).toEqual({ total: 6, changed: 3, failed: 0 });
  });

  it('fails when no shadow run completes, and says which failed', async () => {
    await patchSkill(t, admin.token, 'reply', { promptMd: 'v3 {{input.n}}' });
    const v3 = await sha();
    const res = await post('/skills/reply/evaluations', { workspace: v3, last: 2 });
    expect(res.status).toBe(202);
    await t.app.jobs.drain();
    const body = (await get(`/evaluations/${res.body.evaluationId}`)).body;
    expect(body.status).toBe('failed');
    expect(body.summary).toEqual({ total: 2, changed: 0, failed: 2 });
    for (const r of body.runs) {
      expect(r).toMatchObject({ shadowStatus: 'failed', shadowOutput: null, changed: false });
      expect(r.shadowError).toMatchObject({ code: expect.any(String) });
    }
  });

  it('records marks per pair (POST /evaluations/:id/marks)', async () => {
    const res = await post('/skills/reply/evaluations', { workspace: v2, last: 2 });
    const id = res.body.evaluationId as number;
    const [first, second] = [originals.get(20), originals.get(19)];
    const marked = await post(`/evaluations/${id}/marks`, { originalRunId: first, mark: 'better' });
    expect(marked.status, JSON.stringify(marked.body)).toBe(200);
    expect(marked.body.runs.map((r: { mark: string | null }) => r.mark)).toEqual(['better', null]);
    await post(`/evaluations/${id}/marks`, { originalRunId: second, mark: 'worse' });
    const cleared = await post(`/evaluations/${id}/marks`, { originalRunId: first, mark: null });
    expect(cleared.body.runs.map((r: { mark: string | null }) => r.mark)).toEqual([null, 'worse']);
    const row = await t.app.db.sql.one<{ marked_by: string }>(
      'select marked_by from evaluation_runs where evaluation_id = $1 and original_run_id = $2',
      [id, second],
    );
    expect(row.marked_by).toBe(`token:${admin.id}`);

    // Refusals: not one of its originals (400), bad mark (400), another org (404), no approve (403).
    const notOurs = await post(`/evaluations/${id}/marks`, { originalRunId: originals.get(1), mark: 'same' });
    expect(notOurs.status).toBe(400);
    expect(notOurs.body.error.code).toBe('VALIDATION_FAILED');
    expect(notOurs.body.error.details.issues[0].field).toBe('body.originalRunId');
    expect((await post(`/evaluations/${id}/marks`, { originalRunId: first, mark: 'great' })).status).toBe(
      400,
    );
    expect(
      (await post(`/evaluations/${id}/marks`, { originalRunId: first, mark: 'same' }, foreign.token)).status,
    ).toBe(404);
    expect(
      (await post(`/evaluations/${id}/marks`, { originalRunId: first, mark: 'same' }, readOnly.token)).status,
    ).toBe(403);
    const after = (await get(`/evaluations/${id}`)).body;
    expect(after.runs.map((r: { mark: string | null }) => r.mark)).toEqual([null, 'worse']);
  });
});

describe('refusals', () => {
  it('400 for a skill without reviewed runs, 404 unknown version or skill, another org, 403, 400 bad body — nothing written', async () => {
    const before = {
      evaluations: await count('select count(*) as n from evaluations'),
      runs: await count('select count(*) as n from runs'),
    };
    const none = await post('/skills/fresh/evaluations', { workspace: v2 });
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('VALIDATION_FAILED');
    expect(none.body.error.message).toContain('has no reviewed runs');
    const onlyRejected = await post('/skills/plain/evaluations', { workspace: v2, statuses: ['approved'] });
    expect(onlyRejected.status).toBe(400);

    const unknownVersion = await post('/skills/reply/evaluations', { workspace: 'abcdef0123456789' });
    expect(unknownVersion.status).toBe(404);
    expect(unknownVersion.body.error.code).toBe('NOT_FOUND');
    const unknownSkill = await post('/skills/nope/evaluations', { workspace: v2 });
    expect(unknownSkill.status).toBe(404);
    // Another org: its versions and skills are not this org's.
    expect((await post('/skills/reply/evaluations', { workspace: v2 }, foreign.token)).status).toBe(404);
    expect((await post('/skills/reply/evaluations', { workspace: v2 }, readOnly.token)).status).toBe(403);
    for (const body of [
      {},
      { workspace: 'main' },
      { workspace: v2, last: 0 },
      { workspace: v2, last: 101 },
      { workspace: v2, statuses: ['pending'] },
      { workspace: v2, statuses: [] },
      { workspace: v2, statuses: ['approved', 'approved'] },
      { workspace: v2, extra: 1 },
    ]) {
      const res = await post('/skills/reply/evaluations', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details.issues.length).toBeGreaterThan(0);
    }
    expect(await count('select count(*) as n from evaluations')).toBe(before.evaluations);
    expect(await count('select count(*) as n from runs')).toBe(before.runs);

    // A viewer with run:invoke may start one; reading another org's is 404, an unknown id 404.
    const ok = await post('/skills/reply/evaluations', { workspace: v2, last: 1 }, invoker.token);
    expect(ok.status).toBe(202);
    expect((await get(`/evaluations/${ok.body.evaluationId}`, foreign.token)).status).toBe(404);
    expect((await get('/evaluations/999999')).status).toBe(404);
    expect((await get('/evaluations/abc')).status).toBe(404);
    expect((await get(`/evaluations/${ok.body.evaluationId}`, readOnly.token)).status).toBe(200);
  });
});

describe('changing a prompt with evidence (MCP authoring with autoApply: false, then an evaluation)', () => {
  it('evaluates a committed version that is not applied: runs keep the applied prompt meanwhile', async () => {
    const mcp = await connectHttp(t.url, admin.token);
    try {
      const applied = await sha();
      const written = await ok(mcp, 'workspace_write_skill', {
        manifest: {
          slug: 'reply',
          name: 'Skill reply',
          requiresApproval: true,
          outputSchema: { type: 'object', required: ['reply'] },
        },
        promptMd: 'v2 {{input.n}} (candidate)',
        autoApply: false,
        message: 'Try the v2 prompt',
      });
      expect(written).toMatchObject({ written: ['skills/reply/prompt.md'], apply: null });
      const candidate = written.commit.sha as string;
      expect(await sha()).toBe(applied);
      expect(await ok(mcp, 'workspace_diff')).toMatchObject({ updated: 1 });

      const res = await post('/skills/reply/evaluations', { workspace: candidate, last: 3 });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      await t.app.jobs.drain();
      const evaluation = (await get(`/evaluations/${res.body.evaluationId}`)).body;
      expect(evaluation).toMatchObject({ workspace: candidate, status: 'completed' });
      // n = 20, 19, 18: the candidate's prompt answered (odd n changed), the originals compared.
      expect(evaluation.runs.map((r: { shadowOutput: unknown }) => r.shadowOutput)).toEqual([
        { reply: 'r20' },
        { reply: 'r19 (v2)' },
        { reply: 'r18' },
      ]);
      expect(evaluation.summary).toEqual({ total: 3, changed: 1, failed: 0 });
      // Nothing applied: the skill as runs see it is still the applied version's.
      const current = await get('/skills/reply');
      expect(current.body.promptMd).not.toContain('(candidate)');
      expect(await ok(mcp, 'workspace_diff')).toMatchObject({ updated: 1 });
    } finally {
      await mcp.close();
    }
  });
});
