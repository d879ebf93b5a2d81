/**
 * `r3 audit verify` and `r3 audit export` as an auditor runs them: a clean chain verifies; an entry
 * edited with SQL, a deleted entry and a deleted last entry each break it at the right seq (exit 1);
 * the export is the ledger as JSONL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../src/features/tokens/service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { runCli } from '../helpers/process.js';
import { pendingSkillRun, setupReviewOrg } from '../helpers/reviews.js';

let database: TestDatabase;
let t: TestApp;
let env: Record<string, string>;
let owner: CreatedToken;

beforeAll(async () => {
  database = await createTestDatabase();
  env = { DATABASE_URL: database.url };
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' }, { database });
  owner = (await setupReviewOrg(t, 'acme')).owner;
  await setupReviewOrg(t, 'globex');
  for (let i = 0; i < 3; i++) {
    const run = await pendingSkillRun(t, owner.token);
    const res = await t.request('POST', '/api/v1/reviews/decide', {
      token: owner.token,
      body: { kind: 'skill', id: run, action: 'reject', reason: `no ${i}` },
    });
    expect(res.status).toBe(200);
  }
});
afterAll(async () => {
  await t.close();
  await database.drop();
});

const verify = async () => {
  const res = await runCli(['audit', 'verify', '--org', 'acme', '--json'], env);
  return { code: res.code, verdict: JSON.parse(res.stdout) };
};

/** Runs `tamper` on entry `seq` of acme, then puts the entry back as it was. */
async function tampered(seq: number, tamper: string) {
  const sql = t.app.db.sql;
  const where = `org_id = (select id from orgs where slug = 'acme') and seq = ${seq}`;
  const saved = await sql.one(`select * from review_ledger where ${where}`);
  await sql.query(`${tamper} ${where}`);
  try {
    return await verify();
  } finally {
    await sql.query(`delete from review_ledger where ${where}`);
    await sql.query('insert into review_ledger select (json_populate_record(null::review_ledger, $1)).*', [
      JSON.stringify(saved),
    ]);
  }
}

describe('r3 audit verify', () => {
  it('verifies a clean chain (and an org without entries)', async () => {
    expect(await verify()).toEqual({ code: 0, verdict: { ok: true, entries: 6, brokenAt: null } });
    const human = await runCli(['audit', 'verify', '--org', 'globex'], env);
    expect(human.code).toBe(0);
    expect(human.stdout.trim()).toBe('globex: 0 ledger entries, chain intact');
  });

  it('names the edited entry', async () => {
    const edited = await tampered(
      4,
      `update review_ledger set details = details || '{"reason":"yes"}' where`,
    );
    expect(edited).toEqual({ code: 1, verdict: { ok: false, entries: 4, brokenAt: 4 } });
    const rehashed = await tampered(
      2,
      `update review_ledger set by = 'token:0', hash = repeat('a', 64) where`,
    );
    expect(rehashed.verdict.brokenAt).toBe(2);
    expect(await verify()).toEqual({ code: 0, verdict: { ok: true, entries: 6, brokenAt: null } });
  });

  it('names a deleted entry, the last one too', async () => {
    expect(await tampered(3, 'delete from review_ledger where')).toEqual({
      code: 1,
      verdict: { ok: false, entries: 3, brokenAt: 3 },
    });
    expect(await tampered(6, 'delete from review_ledger where')).toEqual({
      code: 1,
      verdict: { ok: false, entries: 5, brokenAt: 6 },
    });
    const human = await runCli(['audit', 'verify', '--org', 'acme'], env);
    expect(human.stdout.trim()).toBe('acme: 6 ledger entries, chain intact');
  });

  it('refuses a missing --org (2) and an unknown org (1)', async () => {
    expect((await runCli(['audit', 'verify'], env)).code).toBe(2);
    const unknown = await runCli(['audit', 'verify', '--org', 'nobody'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no org "nobody"');
  });
});

describe('r3 audit export', () => {
  it('writes the ledger as JSONL, one entry a line, as the API shows it', async () => {
    const res = await runCli(['audit', 'export', '--org', 'acme'], env);
    expect(res.code).toBe(0);
    const lines = res.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const api = await t.request('GET', '/api/v1/audit/reviews', { token: owner.token });
    expect(lines).toEqual(api.body.entries);
    expect(lines.map((e) => e.event)).toEqual([
      'opened',
      'decided',
      'opened',
      'decided',
      'opened',
      'decided',
    ]);
  });
});
