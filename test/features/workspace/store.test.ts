/**
 * The workspace write path against the real database: versions and their counts, no empty versions,
 * the autoCommit/autoApply legs, atomicity (validation failures and a failure in the middle of apply
 * leave nothing behind), deletes, history, resources as of a version, and export to git.
 */
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportRepository } from '../../../src/features/workspace/export.js';
import { shortSha } from '../../../src/features/workspace/git-objects.js';
import type { WorkspaceResource } from '../../../src/features/workspace/manifests.js';
import type { Attribution } from '../../../src/platform/auth/attribution.js';
import { ApiError } from '../../../src/platform/errors.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { git, tempDir, validResources } from './fixtures.js';

let t: TestApp;
let by: Attribution;

beforeAll(async () => {
  t = await startTestApp();
  by = { actor: 'token:abcdefghijklmnop', apiTokenId: 'abcdefghijklmnop', requestId: 'req-1' };
});
afterAll(() => t.close());

let orgCounter = 0;
/** A fresh org (created through a token) and its id. */
async function freshOrg(): Promise<number> {
  const slug = `ws-${++orgCounter}`;
  await t.token({ org: slug });
  const row = await t.app.db.sql.one<{ id: number }>('select id from orgs where slug = $1', [slug]);
  return row.id;
}

async function count(table: string, orgId: number): Promise<number> {
  const row = await t.app.db.sql.one<{ n: number }>(
    `select count(*)::int as n from ${table} where org_id = $1`,
    [orgId],
  );
  return row.n;
}

const skill = (slug: string, promptMd = `Prompt of ${slug}: {{input.text}}`): WorkspaceResource => ({
  kind: 'skill',
  manifest: {
    slug,
    name: slug,
    description: '',
    category: 'general',
    status: 'active',
    form: 'prompt',
    requiresApproval: false,
  },
  promptMd,
});

async function caught(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('versions', () => {
  it('the first write creates a version with created counts and applies it', async () => {
    const org = await freshOrg();
    expect(await t.app.workspace.currentVersion(org)).toBeNull();
    const result = await t.app.workspace.write(org, by, { put: validResources() });
    expect(result.written).toContain('skills/summarize/prompt.md');
    expect(result.commit).toMatchObject({
      parentSha: null,
      counts: { created: 6, updated: 0, unchanged: 0, deleted: 0 },
    });
    expect(result.commit?.workspaceSha).toBe(shortSha(result.commit?.sha ?? ''));
    expect(result.apply).toEqual({ created: 6, updated: 0, unchanged: 0, deleted: 0 });
    expect(await t.app.workspace.currentVersion(org)).toEqual({
      sha: result.commit?.sha,
      workspaceSha: result.commit?.workspaceSha,
    });
    expect(await count('skills', org)).toBe(2);
    expect(await count('agents', org)).toBe(1);
    const [version] = await t.app.workspace.history(org);
    expect(version).toMatchObject({ appliedBy: by.actor, apiTokenId: by.apiTokenId, seq: 1 });
  });

  it('workspaceSha changes when and only when content changes', async () => {
    const org = await freshOrg();
    const first = await t.app.workspace.write(org, by, { put: [skill('a'), skill('b')] });
    const same = await t.app.workspace.write(org, by, { put: [skill('a')] });
    expect(same).toEqual({
      written: [],
      commit: null,
      apply: { created: 0, updated: 0, unchanged: 2, deleted: 0 },
    });
    expect((await t.app.workspace.currentVersion(org))?.sha).toBe(first.commit?.sha);
    expect(await t.app.workspace.history(org)).toHaveLength(1);

    const changed = await t.app.workspace.write(org, by, { put: [skill('a', 'New prompt')] });
    expect(changed.written).toEqual(['skills/a/prompt.md']);
    expect(changed.commit).toMatchObject({
      parentSha: first.commit?.sha,
      counts: { created: 0, updated: 1, unchanged: 1, deleted: 0 },
    });
    expect(changed.apply).toEqual({ created: 0, updated: 1, unchanged: 1, deleted: 0 });
    expect(changed.commit?.workspaceSha).not.toBe(first.commit?.workspaceSha);
    expect((await t.app.applied.getSkill(org, 'a'))?.promptMd).toBe('New prompt');
    expect((await t.app.applied.getSkill(org, 'a'))?.workspaceSha).toBe(changed.commit?.workspaceSha);

    // Back to the first content: a new version (history moves on), same tree as the first.
    const back = await t.app.workspace.write(org, by, { put: [skill('a')] });
    expect(back.commit?.sha).not.toBe(first.commit?.sha);
    const versions = await t.app.workspace.history(org);
    expect(versions.map((v) => v.seq)).toEqual([3, 2, 1]);
    expect(versions[0]?.treeSha).toBe(versions[2]?.treeSha);
  });

  it('a delete is a version with a deleted count; deleting an absent resource is 404', async () => {
    const org = await freshOrg();
    await t.app.workspace.write(org, by, { put: [skill('a'), skill('b')] });
    const result = await t.app.workspace.delete(org, by, { kind: 'skill', slug: 'b' });
    expect(result.written).toEqual(['skills/b/manifest.yaml', 'skills/b/prompt.md']);
    expect(result.commit?.counts).toEqual({ created: 0, updated: 0, unchanged: 1, deleted: 1 });
    expect(result.apply).toEqual({ created: 0, updated: 0, unchanged: 1, deleted: 1 });
    expect(await t.app.applied.getSkill(org, 'b')).toBeNull();
    const error = await caught(t.app.workspace.delete(org, by, { kind: 'skill', slug: 'b' }));
    expect(error.code).toBe('NOT_FOUND');
  });

  it('a delete of a resource another still names is CONFLICT naming the referrers; with them it goes', async () => {
    const org = await freshOrg();
    await t.app.workspace.write(org, by, { put: validResources() });
    const error = await caught(t.app.workspace.delete(org, by, { kind: 'skill', slug: 'summarize' }));
    expect(error.code).toBe('CONFLICT');
    expect(error.details.referencedBy).toEqual(
      expect.arrayContaining([
        { kind: 'agent', slug: 'sales', field: 'skillSlugs.0' },
        { kind: 'workflow', slug: 'deal-follow-up', field: 'steps.0.skill' },
      ]),
    );
    expect(await t.app.workspace.history(org)).toHaveLength(1);
    // One write that also removes every referrer is not refused.
    const refs = (error.details.referencedBy as Array<{ kind: 'agent' | 'workflow'; slug: string }>).map(
      ({ kind, slug }) => ({ kind, slug }),
    );
    const reviewer = { ...by, mayChangeReview: true };
    const together = await t.app.workspace.delete(org, reviewer, [
      { kind: 'skill', slug: 'summarize' },
      ...refs,
    ]);
    expect(together.apply).toMatchObject({ deleted: 3 });
  });

  it('reads a resource as it was in an earlier version (by sha or workspaceSha)', async () => {
    const org = await freshOrg();
    const v1 = await t.app.workspace.write(org, by, { put: [skill('a', 'one')] });
    await t.app.workspace.write(org, by, { put: [skill('a', 'two')] });
    const old = await t.app.workspace.readResourceAt(org, 'skill', 'a', v1.commit?.workspaceSha ?? '');
    expect(old).toMatchObject({ kind: 'skill', promptMd: 'one' });
    expect(await t.app.workspace.readResourceAt(org, 'skill', 'zzz', v1.commit?.sha ?? '')).toBeNull();
    const other = await freshOrg();
    expect(await t.app.workspace.readResourceAt(other, 'skill', 'a', v1.commit?.sha ?? '')).toBeNull();
  });
});

describe('atomicity', () => {
  it('a failing validation leaves no version, no files and no rows', async () => {
    const org = await freshOrg();
    const bad: WorkspaceResource = {
      kind: 'agent',
      manifest: {
        slug: 'lonely',
        name: 'Lonely',
        description: '',
        active: true,
        systemPrompt: '',
        skillSlugs: ['missing'],
        workflowSlugs: [],
        sourceSlugs: [],
      },
    };
    const error = await caught(t.app.workspace.write(org, by, { put: [skill('fine'), bad] }));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details.issues).toEqual([
      {
        field: 'agents/lonely.yaml:skillSlugs.0',
        file: 'agents/lonely.yaml',
        path: ['skillSlugs', 0],
        message: 'skill "missing" does not exist in the workspace',
      },
    ]);
    expect(await t.app.workspace.history(org)).toEqual([]);
    for (const table of ['workspace_files', 'workspace_blobs', 'skills', 'agents']) {
      expect(await count(table, org)).toBe(0);
    }
  });

  it('a malformed manifest handed in programmatically is a validation failure naming the field', async () => {
    const org = await freshOrg();
    const broken = {
      kind: 'skill',
      manifest: { slug: 'x', name: '', status: 'nope' },
      promptMd: '',
    } as never;
    const error = await caught(t.app.workspace.write(org, by, { put: [broken] }));
    expect(error.details.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: 'skills/x/manifest.yaml', path: ['name'] }),
        expect.objectContaining({ file: 'skills/x/manifest.yaml', path: ['status'] }),
      ]),
    );
  });

  it('an unknown text-search language is refused at write time', async () => {
    const org = await freshOrg();
    const error = await caught(
      t.app.workspace.write(org, by, {
        put: [
          {
            kind: 'object_type',
            manifest: {
              slug: 'note',
              name: 'Note',
              description: '',
              schema: { type: 'object' },
              sourceRelevance: {},
              language: 'klingon',
            },
          },
        ],
      }),
    );
    expect(error.details.issues).toEqual([
      expect.objectContaining({ file: 'object-types/note.yaml', path: ['language'] }),
    ]);
  });

  it('a failure in the middle of apply leaves nothing: no version, no files, no rows, no audit', async () => {
    const org = await freshOrg();
    await t.app.workspace.write(org, by, { put: [skill('keep')] });
    const admin = new pg.Client({ connectionString: t.database.url });
    await admin.connect();
    try {
      await admin.query(`
        create function boom() returns trigger language plpgsql as $$
        begin
          if new.slug = 'explode' then raise exception 'simulated failure while applying'; end if;
          return new;
        end $$;
        create trigger boom before insert on skills for each row execute function boom();`);
      const audits = await count('audit_log', org);
      await expect(
        t.app.workspace.write(org, by, { put: [skill('fine'), skill('explode')] }),
      ).rejects.toThrow(/simulated failure/);
      expect(await t.app.workspace.history(org)).toHaveLength(1);
      expect(await count('workspace_files', org)).toBe(2);
      expect(await count('skills', org)).toBe(1);
      expect(await count('audit_log', org)).toBe(audits);
    } finally {
      await admin.query('drop trigger boom on skills; drop function boom();');
      await admin.end();
    }
  });
});

describe('autoCommit and autoApply', () => {
  it('autoCommit: false writes files only; apply commits and applies them', async () => {
    const org = await freshOrg();
    await t.app.workspace.write(org, by, { put: [skill('a')] });
    const before = await t.app.workspace.currentVersion(org);
    const pending = await t.app.workspace.write(org, by, { put: [skill('b')] }, { autoCommit: false });
    expect(pending).toEqual({
      written: ['skills/b/manifest.yaml', 'skills/b/prompt.md'],
      commit: null,
      apply: null,
    });
    expect(await t.app.workspace.currentVersion(org)).toEqual(before);
    expect(await t.app.applied.getSkill(org, 'b')).toBeNull();
    const diff = await t.app.workspace.diff(org);
    expect(diff).toMatchObject({ created: 1, updated: 0, unchanged: 1, deleted: 0 });

    const applied = await t.app.workspace.apply(org, by);
    expect(applied.commit?.counts).toEqual({ created: 1, updated: 0, unchanged: 1, deleted: 0 });
    expect(applied.apply).toEqual({ created: 1, updated: 0, unchanged: 1, deleted: 0 });
    expect(await t.app.applied.getSkill(org, 'b')).not.toBeNull();
    expect(await t.app.workspace.diff(org)).toMatchObject({
      created: 0,
      updated: 0,
      unchanged: 2,
      deleted: 0,
    });
  });

  it('autoApply: false commits a version the tables do not show until apply', async () => {
    const org = await freshOrg();
    const first = await t.app.workspace.write(org, by, { put: [skill('a', 'one')] });
    const second = await t.app.workspace.write(org, by, { put: [skill('a', 'two')] }, { autoApply: false });
    expect(second.commit).not.toBeNull();
    expect(second.apply).toBeNull();
    expect(await t.app.workspace.head(org)).toEqual({
      headSha: second.commit?.sha,
      appliedSha: first.commit?.sha,
    });
    expect((await t.app.applied.getSkill(org, 'a'))?.promptMd).toBe('one');
    expect(await t.app.workspace.diff(org)).toMatchObject({ updated: 1 });

    const applied = await t.app.workspace.apply(org, by);
    expect(applied.commit).toBeNull();
    expect(applied.apply).toEqual({ created: 0, updated: 1, unchanged: 0, deleted: 0 });
    expect(await t.app.applied.getSkill(org, 'a')).toMatchObject({
      promptMd: 'two',
      workspaceSha: second.commit?.workspaceSha,
    });
  });

  it('concurrent creates of one slug: the org lock lets exactly one win', async () => {
    const org = await freshOrg();
    const attempt = (prompt: string) =>
      t.app.workspace.write(org, by, (current) => {
        if (current.has('skill', 'race')) throw new ApiError('CONFLICT', 'exists');
        return { put: [skill('race', prompt)] };
      });
    const outcomes = await Promise.allSettled([attempt('one'), attempt('two'), attempt('three')]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(await t.app.workspace.history(org)).toHaveLength(1);
  });
});

describe('export', () => {
  it('writes a git repository whose log shows every version with the recorded hashes', async () => {
    const org = await freshOrg();
    await t.app.workspace.write(org, by, { put: validResources() });
    t.clock.advance(60_000);
    await t.app.workspace.write(org, by, { put: [skill('extra')] }, { message: 'Add the extra skill' });
    t.clock.advance(60_000);
    await t.app.workspace.delete(org, by, { kind: 'skill', slug: 'extra' });
    const versions = await t.app.workspace.history(org);
    const dir = join(tempDir('ws-export'), 'repo');
    const exported = await exportRepository(dir, await t.app.workspace.exportVersions(org));
    expect(exported.commits).toEqual(versions.map((v) => v.sha).reverse());
    expect(git(dir, ['log', '--format=%H %an %s']).trim().split('\n')).toEqual([
      `${versions[0]?.sha} ${by.actor} Delete skill extra`,
      `${versions[1]?.sha} ${by.actor} Add the extra skill`,
      `${versions[2]?.sha} ${by.actor} Write 6 resources`,
    ]);
    expect(git(dir, ['status', '--porcelain'])).toBe('');
    expect(git(dir, ['fsck', '--strict', '--no-dangling'])).toBe('');
  });
});
