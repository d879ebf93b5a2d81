import { describe, expect, it } from 'vitest';
import { diffTrees } from '../../../src/features/workspace/diff.js';
import { validTree } from './fixtures.js';

describe('diffTrees', () => {
  it('counts a skill once, whichever of its files changed', () => {
    const before = validTree();
    const after = validTree();
    after.set('skills/summarize/prompt.md', 'new prompt');
    after.delete('sources/crm.yaml');
    after.set('agents/support.yaml', 'slug: support\nname: Support\n');
    const diff = diffTrees(before, after);
    expect({ ...diff, resources: undefined }).toEqual({
      created: 1,
      updated: 1,
      unchanged: 4,
      deleted: 1,
      resources: undefined,
    });
    expect(diff.resources).toEqual([
      { kind: 'agent', slug: 'sales', change: 'unchanged' },
      { kind: 'agent', slug: 'support', change: 'created' },
      { kind: 'skill', slug: 'draft-email', change: 'unchanged' },
      { kind: 'skill', slug: 'summarize', change: 'updated' },
      { kind: 'workflow', slug: 'deal-follow-up', change: 'unchanged' },
      { kind: 'object_type', slug: 'deal', change: 'unchanged' },
      { kind: 'source', slug: 'crm', change: 'deleted' },
    ]);
  });

  it('treats a skill that loses one of its files as updated, and reports stray files', () => {
    const before = validTree();
    const after = validTree();
    after.delete('skills/draft-email/prompt.md');
    after.set('notes.txt', 'x');
    const diff = diffTrees(before, after);
    expect(diff.resources.filter((r) => r.change !== 'unchanged')).toEqual([
      { kind: 'skill', slug: 'draft-email', change: 'updated' },
      { kind: 'file', slug: 'notes.txt', change: 'created' },
    ]);
  });

  it('compares against the empty tree', () => {
    expect(diffTrees(new Map(), validTree())).toMatchObject({
      created: 6,
      updated: 0,
      unchanged: 0,
      deleted: 0,
    });
    expect(diffTrees(validTree(), new Map())).toMatchObject({ created: 0, deleted: 6 });
    expect(diffTrees(validTree(), validTree())).toMatchObject({
      unchanged: 6,
      created: 0,
      updated: 0,
      deleted: 0,
    });
  });
});
