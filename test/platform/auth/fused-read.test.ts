/**
 * A route's first read fused into the statement that authenticates the caller (`FusedRead`,
 * `RouteDef.fused`): GET /runs/:id takes one round trip. The read must answer only for a usable
 * token, only in that token's org, and reach the handler only after authentication and
 * authorization passed; a route whose key cannot be taken reads as usual.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunReader, fusedRunRead } from '../../../src/features/runs/view.js';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import type { Authenticated, FusedAnswer, FusedRead } from '../../../src/platform/auth/authenticate.js';
import { access } from '../../../src/platform/auth/guard.js';
import { issueToken } from '../../../src/platform/auth/tokens.js';
import { ok } from '../../../src/platform/http/reply.js';
import { defineRoute } from '../../../src/platform/http/server.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { orgIdOf, twoOrgsWithRuns } from '../../helpers/runs.js';
import { countingAuthenticator } from '../../helpers/sql.js';

let t: TestApp;
let red: CreatedToken;
let blue: CreatedToken;
let redRun: number;
let blueRun: number;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  ({ red, blue, redRun, blueRun } = await twoOrgsWithRuns(t));
  // What the handler was given: the key it was read for and the run's id (null: read, nothing
  // found), or "not taken".
  t.app.http.add(
    defineRoute({
      method: 'GET',
      path: '/api/v1/_test/fused/:id',
      access: access.read,
      fused: { read: 'run', key: ({ id }) => (/^\d{1,15}$/.test(id ?? '') ? Number(id) : null) },
      handler: ({ fused }) =>
        ok({
          fused:
            fused === undefined
              ? 'not taken'
              : { key: fused.key, id: fused.value === null ? null : JSON.parse(fused.value).id },
        }),
    }),
  );
});
afterAll(() => t.close());

const fusedOf = async (token: string, id: string | number) => {
  const res = await t.request('GET', `/api/v1/_test/fused/${id}`, { token });
  return res.status === 200 ? res.body.fused : res.status;
};

describe('a fused read through the pipeline', () => {
  it("hands the handler the caller's own row, and null for another org's id or a missing one", async () => {
    const answers = await Promise.all([
      fusedOf(red.token, redRun),
      fusedOf(red.token, blueRun),
      fusedOf(blue.token, blueRun),
      fusedOf(blue.token, redRun),
      fusedOf(red.token, 999_999_999),
    ]);
    expect(answers).toEqual([
      { key: redRun, id: redRun },
      { key: blueRun, id: null },
      { key: blueRun, id: blueRun },
      { key: redRun, id: null },
      { key: 999_999_999, id: null },
    ]);
  });

  it('takes no read when the key cannot be made from the path', async () => {
    expect(await fusedOf(red.token, 'abc')).toBe('not taken');
  });

  it('answers 401 to a wrong secret or a revoked token and 403 to a missing scope, never the row', async () => {
    const forged = issueToken('test', red.id).token;
    const reader = await t.token({ org: 'red', scopes: ['run:invoke'] });
    const revoked = await t.token({ org: 'red', scopes: ALL_SCOPES });
    await t.request('DELETE', `/api/v1/tokens/${revoked.id}`, { token: revoked.token });
    const answers = await Promise.all([
      t.request('GET', `/api/v1/_test/fused/${redRun}`, { token: forged }),
      t.request('GET', `/api/v1/_test/fused/${redRun}`, { token: revoked.token }),
      t.request('GET', `/api/v1/_test/fused/${redRun}`, { token: reader.token }),
    ]);
    expect(answers.map((a) => [a.status, a.body.error?.code])).toEqual([
      [401, 'UNAUTHORIZED'],
      [401, 'UNAUTHORIZED'],
      [403, 'FORBIDDEN'],
    ]);
    for (const answer of answers) expect(answer.text).not.toContain('"fused"');
  });
});

describe('GET /runs/:id', () => {
  it('answers exactly the text the batched run reader renders', async () => {
    const reader = createRunReader(t.app.db.sql, () => t.app.config.baseUrl);
    const res = await t.request('GET', `/api/v1/runs/${redRun}`, { token: red.token });
    expect(res.status).toBe(200);
    expect(res.text).toBe(await reader.load({ orgId: await orgIdOf(t.app, 'red'), id: redRun }));
    expect((await t.request('GET', `/api/v1/runs/${redRun}`, { token: blue.token })).status).toBe(404);
  });
});

describe('the authenticator with fused reads', () => {
  it("reads every request's token and row in one statement, each in its token's org", async () => {
    const counting = countingAuthenticator(t, { run: fusedRunRead(() => 'http://r3.example') });
    const { authenticate } = counting;
    const bearer = (token: CreatedToken) => `Bearer ${token.token}`;
    const answers = await Promise.all([
      authenticate(bearer(red), { read: 'run', key: redRun }),
      authenticate(bearer(blue), { read: 'run', key: redRun }),
      authenticate(bearer(red), null),
      authenticate(bearer(red), { read: 'no-such-read', key: redRun }),
      authenticate(`Bearer ${issueToken('test', red.id).token}`, { read: 'run', key: redRun }).catch(
        (error: { code: string }) => error.code,
      ),
    ]);
    expect(counting.statements.map((s) => s.name)).toEqual(['authenticate_batch_run']);
    const [own, other, none, unknown, forged] = answers;
    const fused = (own as Authenticated).fused as FusedAnswer;
    expect(fused.key).toBe(redRun);
    const view = JSON.parse(fused.value as string);
    expect(view).toMatchObject({ id: redRun, reviewUrl: `http://r3.example/review/runs/${redRun}` });
    expect(other).toMatchObject({ fused: { key: redRun, value: null } });
    expect(none).not.toHaveProperty('fused');
    expect(unknown).not.toHaveProperty('fused');
    expect(forged).toBe('UNAUTHORIZED');
  });

  it('evaluates a read once per org and key in a batch of known tokens, and gives its answer to each usable request of them', async () => {
    await t.app.db.sql.query('create sequence fused_probe');
    // Each evaluation takes the sequence's next value: requests given the same value shared one.
    const probe: FusedRead = {
      sql: (org, key) =>
        `(select ${org}::text || ':' || ${key}::text || ':' || nextval('fused_probe')::text)`,
      values: () => [],
    };
    const { authenticate, statements } = countingAuthenticator(t, { probe });
    const otherRed = await t.token({ org: 'red', scopes: ALL_SCOPES });
    const bearer = (token: CreatedToken) => `Bearer ${token.token}`;
    const batch = () =>
      Promise.all([
        authenticate(bearer(red), { read: 'probe', key: 1 }),
        authenticate(bearer(red), { read: 'probe', key: 1 }),
        authenticate(bearer(otherRed), { read: 'probe', key: 1 }),
        authenticate(bearer(blue), { read: 'probe', key: 1 }),
        authenticate(bearer(red), { read: 'probe', key: 2 }),
        authenticate(`Bearer ${issueToken('test', red.id).token}`, { read: 'probe', key: 1 }).catch(
          (error: { code: string }) => error.code,
        ),
      ]);
    const [redOrg, blueOrg] = [await orgIdOf(t.app, 'red'), await orgIdOf(t.app, 'blue')];
    // First as unknown tokens (the token rows read: each usable request reads for itself), then as
    // known ones (the orgs' epochs checked; the forged token is read as unknown again, takes no read).
    for (const [taken, names, evaluations] of [
      [0, ['authenticate_batch_probe'], 5],
      [5, ['authenticate_batch_probe', 'authenticate_known_limited_probe'], 3],
    ] as const) {
      statements.length = 0;
      const answers = await batch();
      expect(statements.map((s) => s.name).sort()).toEqual(names);
      const fused = answers.slice(0, 5).map((a) => (a as Authenticated).fused as FusedAnswer);
      const part = (i: number) => fused.map((f) => (f.value as string).split(':')[i]);
      const [org, key, evaluation] = [part(0), part(1), part(2)];
      expect(fused.map((f) => f.key)).toEqual([1, 1, 1, 1, 2]);
      expect(org).toEqual([redOrg, redOrg, redOrg, blueOrg, redOrg].map(String));
      expect(key).toEqual(['1', '1', '1', '1', '2']);
      // Known: red's three requests of key 1 share one evaluation; blue's and key 2 have their own.
      expect(new Set(evaluation).size).toBe(evaluations);
      if (evaluations === 3) expect(new Set(evaluation.slice(0, 3)).size).toBe(1);
      expect([...new Set(evaluation)].map(Number).sort((a, b) => a - b)).toEqual(
        Array.from({ length: evaluations }, (_, i) => taken + i + 1),
      );
      expect(answers[5]).toBe('UNAUTHORIZED');
    }
  });
});
