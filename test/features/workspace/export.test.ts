import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ExportVersion, exportRepository } from '../../../src/features/workspace/export.js';
import { shortSha } from '../../../src/features/workspace/git-objects.js';
import { planVersion } from '../../../src/features/workspace/version.js';
import { git, tempDir, validTree } from './fixtures.js';

/** Records versions the way the write path does: plan each on top of the previous. */
function history(trees: Map<string, string>[]): ExportVersion[] {
  const versions: ExportVersion[] = [];
  let parent: { sha: string; treeSha: string } | null = null;
  trees.forEach((files, index) => {
    const author = { name: `token:t${index}`, email: `t${index}@tokens.r3.local` };
    const at = new Date(Date.UTC(2024, 0, 1 + index, 12));
    const message = `version ${index + 1}`;
    const plan = planVersion({ files, parent, author, at, message });
    if (!plan.changed) throw new Error('each fixture version changes the tree');
    versions.push({ files, parentSha: parent?.sha ?? null, author, at, message, sha: plan.sha });
    parent = { sha: plan.sha, treeSha: plan.treeSha };
  });
  return versions;
}

function twoVersions(): ExportVersion[] {
  const first = validTree();
  const second = validTree();
  second.set('skills/summarize/prompt.md', 'Summarize in one line:\n\n{{input.text}}\n');
  second.delete('sources/crm.yaml');
  second.set('skills/x/manifest.yaml', 'slug: x\nname: X\n');
  second.set('skills/x/prompt.md', 'Prompt of x ✓\n');
  return history([first, second]);
}

describe('exportRepository', () => {
  it('writes a repository git reads with exactly our hashes, clean and checked out', async () => {
    const dir = tempDir('export');
    const versions = twoVersions();
    const result = await exportRepository(dir, versions);
    const shas = versions.map((v) => v.sha);
    expect(result).toEqual({ commits: shas, headSha: shas[1] });

    expect(git(dir, ['log', '--format=%H']).trim().split('\n')).toEqual([...shas].reverse());
    expect(git(dir, ['log', '--format=%h', '--abbrev=12', '-1']).trim()).toBe(shortSha(shas[1] ?? ''));
    expect(git(dir, ['log', '--format=%an|%ae|%at|%s', '-1']).trim()).toBe(
      `token:t1|t1@tokens.r3.local|${Date.UTC(2024, 0, 2, 12) / 1000}|version 2`,
    );
    expect(git(dir, ['fsck', '--strict', '--no-dangling'])).toBe('');
    expect(git(dir, ['status', '--porcelain'])).toBe('');
    expect(git(dir, ['rev-parse', '--abbrev-ref', 'HEAD']).trim()).toBe('main');
    expect(git(dir, ['show', 'HEAD:skills/x/prompt.md'])).toBe('Prompt of x ✓\n');
    expect(git(dir, ['show', 'HEAD~1:sources/crm.yaml'])).toBe(versions[0]?.files.get('sources/crm.yaml'));
    expect(git(dir, ['diff', '--name-status', 'HEAD~1', 'HEAD']).trim().split('\n')).toEqual([
      'M\tskills/summarize/prompt.md',
      'A\tskills/x/manifest.yaml',
      'A\tskills/x/prompt.md',
      'D\tsources/crm.yaml',
    ]);
    expect(readFileSync(join(dir, 'skills/summarize/prompt.md'), 'utf8')).toBe(
      'Summarize in one line:\n\n{{input.text}}\n',
    );
    // The index is git's own: a work-tree edit shows up as a modification, nothing else does.
    writeFileSync(join(dir, 'agents/sales.yaml'), 'changed\n');
    expect(git(dir, ['status', '--porcelain'])).toBe(' M agents/sales.yaml\n');
  });

  it('exports an empty history as an unborn main branch', async () => {
    const dir = tempDir('export-empty');
    expect(await exportRepository(dir, [])).toEqual({ commits: [], headSha: null });
    expect(git(dir, ['status', '--porcelain'])).toBe('');
    expect(git(dir, ['fsck', '--strict'])).toBe('');
  });

  it('refuses a history whose content does not hash to the recorded shas, or a broken chain', async () => {
    const tampered = twoVersions();
    const [first, second] = tampered;
    if (!first || !second) throw new Error('two versions');
    const files = new Map(first.files);
    files.set('agents/sales.yaml', 'slug: sales\nname: Tampered\n');
    await expect(exportRepository(tempDir('export-bad'), [{ ...first, files }, second])).rejects.toThrow(
      /version 0: recorded sha/,
    );
    await expect(exportRepository(tempDir('export-bad'), [second])).rejects.toThrow(/has parent/);
  });

  it('refuses a non-empty directory', async () => {
    const dir = tempDir('export-full');
    mkdirSync(join(dir, 'something'));
    await expect(exportRepository(dir, twoVersions())).rejects.toThrow(/not empty/);
  });
});
