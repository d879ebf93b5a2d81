/**
 * A trigger takes its skill or workflow at the org's applied version as the request's
 * authentication read it (`fusedAppliedRead`, src/features/workspace/applied.ts), from memory when this
 * process already read that resource at that version. Every change of the workspace moves the
 * version, so the next trigger runs the changed manifest; nothing remembered is ever served for
 * another version.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { resolveSkillTarget } from '../../../src/features/runs/targets.js';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { AppliedResources, type AppliedSkill } from '../../../src/features/workspace/applied.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { createAgent, createSkill, patchSkill } from '../../helpers/resources.js';
import { orgIdOf } from '../../helpers/runs.js';

let t: TestApp;
let owner: CreatedToken;
let org: number;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  owner = await t.token({ org: 'versions', scopes: ALL_SCOPES });
  org = await orgIdOf(t.app, 'versions');
});
afterAll(() => t.close());
afterEach(() => {
  vi.restoreAllMocks();
});

const appliedSha = async () =>
  (
    await t.app.db.sql.one<{ applied_sha: string }>(
      'select applied_sha from workspace_heads where org_id = $1',
      [org],
    )
  ).applied_sha;

/** Triggers `slug`; the status, and the prompt and version the run recorded (when one was created). */
async function trigger(slug: string) {
  const res = await t.request('POST', `/api/v1/skills/${slug}/runs`, {
    token: owner.token,
    body: { input: { text: 'x' } },
  });
  if (res.status !== 202) return { status: res.status, code: res.body.error?.code };
  const run = await t.app.db.sql.one<{ prompt: string; workspace_sha: string }>(
    `select manifest->'skill'->>'promptMd' as prompt, workspace_sha from runs where id = $1`,
    [res.body.runId],
  );
  return { status: res.status, prompt: run.prompt, workspaceSha: run.workspace_sha };
}

describe('triggers through HTTP', () => {
  it('run the manifest of the version applied when they arrive, read once per version', async () => {
    // The process's reads of resource rows (the statement behind every cache miss).
    const reads = vi.spyOn(AppliedResources.prototype as never, 'readMany');
    await createSkill(t, owner.token, { slug: 'versioned' }, 'one {{input.text}}');
    const first = await trigger('versioned');
    const again = await trigger('versioned');
    expect(first).toMatchObject({ status: 202, prompt: 'one {{input.text}}' });
    expect(again).toEqual(first);
    expect(first.workspaceSha).toBe((await appliedSha()).slice(0, first.workspaceSha?.length));
    expect(reads).toHaveBeenCalledTimes(1);

    await patchSkill(t, owner.token, 'versioned', { promptMd: 'two {{input.text}}' });
    const changed = await trigger('versioned');
    expect(changed).toMatchObject({ status: 202, prompt: 'two {{input.text}}' });
    expect(changed.workspaceSha).not.toBe(first.workspaceSha);
    expect(reads).toHaveBeenCalledTimes(2);

    await patchSkill(t, owner.token, 'versioned', { manifest: { status: 'draft' } });
    expect(await trigger('versioned')).toEqual({ status: 409, code: 'CONFLICT' });

    await patchSkill(t, owner.token, 'versioned', {
      manifest: { status: 'active' },
      promptMd: 'three {{input.text}}',
    });
    expect(await trigger('versioned')).toMatchObject({ status: 202, prompt: 'three {{input.text}}' });
  });

  it('answer 404 for a skill the applied version does not have', async () => {
    expect(await trigger('never-written')).toEqual({ status: 404, code: 'NOT_FOUND' });
  });
});

describe('AppliedResources at a version', () => {
  it('reads a version once, reads anew without one, and never remembers a row under another version', async () => {
    await createSkill(t, owner.token, { slug: 'counted' }, 'first');
    const old = await appliedSha();
    // The instance the process serves triggers with (the workspace feature's, which runs shares).
    const applied = t.app.applied;
    const readMany = vi.spyOn(applied as never, 'readMany') as unknown as { mock: { calls: unknown[][] } };
    const reads = () => readMany.mock.calls.filter(([table]) => table === 'skills').length;

    const a = await applied.getSkill(org, 'counted', old);
    const b = await applied.getSkill(org, 'counted', old);
    expect(b).toEqual(a);
    expect(a?.promptMd).toBe('first');
    expect(reads()).toBe(1);
    await applied.getSkill(org, 'counted');
    expect(reads()).toBe(2);

    await patchSkill(t, owner.token, 'counted', { promptMd: 'second' });
    const current = await appliedSha();
    // Asked at the old version, which this process remembers: the old row, as that snapshot had it.
    expect((await applied.getSkill(org, 'counted', old))?.promptMd).toBe('first');
    expect(reads()).toBe(2);
    // At the new one: read, and remembered from then on.
    expect((await applied.getSkill(org, 'counted', current))?.promptMd).toBe('second');
    expect((await applied.getSkill(org, 'counted', current))?.versionSha).toBe(current);
    expect(reads()).toBe(3);

    // A version whose rows this process never saw: the read answers the applied row, which is not
    // remembered under the version asked for.
    const unseen = '0'.repeat(40);
    expect((await applied.getSkill(org, 'counted', unseen))?.promptMd).toBe('second');
    expect((await applied.getSkill(org, 'counted', unseen))?.promptMd).toBe('second');
    expect(reads()).toBe(5);
    // Misses are not remembered either.
    expect(await applied.getSkill(org, 'missing', current)).toBeNull();
    expect(await applied.getSkill(org, 'missing', current)).toBeNull();
    expect(reads()).toBe(7);
  });
});

describe('a resolution whose version moved', () => {
  it('reads again without the version the request saw', async () => {
    await createAgent(t, owner.token, { slug: 'helper', skillSlugs: ['versioned'] });
    const real = t.app.applied;
    const current = await appliedSha();
    const skill = (await real.getSkill(org, 'versioned', current)) as AppliedSkill;
    const agent = await real.getAgent(org, 'helper', current);
    // The skill as remembered at an older version; the agent already at the current one.
    const asked: Array<string | null | undefined> = [];
    const applied = {
      getSkill: async (_org: number, _slug: string, at?: string | null) => {
        asked.push(at);
        return at === 'older' ? { ...skill, versionSha: 'older' } : skill;
      },
      getAgent: async () => agent,
    } as unknown as AppliedResources;
    const target = await resolveSkillTarget(applied, org, 'versioned', 'helper', 'older');
    expect(asked).toEqual(['older', undefined]);
    expect(target.workspaceSha).toBe(skill.workspaceSha);
    expect(target.manifest.agent?.slug).toBe('helper');
  });
});
