/** `r3 workspace diff|apply|export` as a user runs them, against a server's database. */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkspaceResource } from '../../../src/features/workspace/manifests.js';
import { orgIdOf, skillBody } from '../../helpers/api.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { runCli } from '../../helpers/process.js';
import { git, tempDir } from './fixtures.js';

let database: TestDatabase;
let t: TestApp;
let env: Record<string, string>;
let orgId: number;

beforeAll(async () => {
  database = await createTestDatabase();
  env = { DATABASE_URL: database.url, R3_LOG_LEVEL: 'error' };
  t = await startTestApp({}, { database });
  const token = (await t.token({ org: 'cli-ws', scopes: ['read:all', 'write:resources'] })).token;
  for (const slug of ['one', 'two']) {
    expect((await t.request('POST', '/api/v1/skills', { token, body: skillBody(slug) })).status).toBe(201);
  }
  orgId = await orgIdOf(t, 'cli-ws');
});
afterAll(async () => {
  await t.close();
  await database.drop();
});

describe('r3 workspace', () => {
  it('diff shows what apply would do; apply commits pending files as cli and applies them', async () => {
    const clean = await runCli(['workspace', 'diff', '--org', 'cli-ws', '--json'], env);
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout)).toMatchObject({ created: 0, updated: 0, unchanged: 2, deleted: 0 });

    const version = await t.app.workspace.currentVersion(orgId);
    const one = await t.app.workspace.readResourceAt(orgId, 'skill', 'one', version?.sha ?? '');
    expect(one?.kind).toBe('skill');
    await t.app.workspace.write(
      orgId,
      { actor: 'mcp', apiTokenId: null, requestId: null },
      {
        put: [{ ...(one as Extract<WorkspaceResource, { kind: 'skill' }>), promptMd: 'Changed' }],
        delete: [{ kind: 'skill', slug: 'two' }],
      },
      { autoCommit: false },
    );
    const pending = await runCli(['workspace', 'diff', '--org', 'cli-ws'], env);
    expect(pending.stdout.trim().split('\n')).toEqual([
      '~ skill one',
      '- skill two',
      'created 0, updated 1, unchanged 0, deleted 1',
    ]);

    const applied = await runCli(['workspace', 'apply', '--org', 'cli-ws', '--json'], env);
    expect(applied.code).toBe(0);
    const result = JSON.parse(applied.stdout);
    expect(result.commit.counts).toEqual({ created: 0, updated: 1, unchanged: 0, deleted: 1 });
    expect(result.apply).toEqual({ created: 0, updated: 1, unchanged: 0, deleted: 1 });
    const [latest] = await t.app.workspace.history(orgId);
    expect(latest).toMatchObject({ appliedBy: 'cli', apiTokenId: null, sha: result.commit.sha });
    expect((await t.app.applied.getSkill(orgId, 'one'))?.promptMd).toBe('Changed');

    const again = await runCli(['workspace', 'apply', '--org', 'cli-ws'], env);
    expect(again.stdout).toContain('no pending changes to commit');
  });

  it('export writes a git repository whose log shows the versions', async () => {
    const dir = join(tempDir('cli-export'), 'repo');
    const res = await runCli(['workspace', 'export', '--org', 'cli-ws', '--dir', dir, '--json'], env);
    expect(res.code).toBe(0);
    const versions = await t.app.workspace.history(orgId);
    expect(JSON.parse(res.stdout)).toMatchObject({ dir, headSha: versions[0]?.sha });
    expect(git(dir, ['log', '--format=%H']).trim().split('\n')).toEqual(versions.map((v) => v.sha));
    expect(git(dir, ['log', '--format=%an', '-1']).trim()).toBe('cli');
    expect(git(dir, ['show', 'HEAD:skills/one/prompt.md'])).toBe('Changed');
  });

  it('usage errors exit 2; an unknown org exits 1', async () => {
    expect((await runCli(['workspace', 'diff'], env)).code).toBe(2);
    expect((await runCli(['workspace', 'push', '--org', 'cli-ws'], env)).code).toBe(2);
    expect((await runCli(['workspace', 'diff', '--org', 'cli-ws', '--dir', 'x'], env)).code).toBe(2);
    const unknown = await runCli(['workspace', 'diff', '--org', 'nobody'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no org "nobody"');
  });
});
