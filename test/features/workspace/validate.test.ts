import { describe, expect, it } from 'vitest';
import type { WorkspaceIssue } from '../../../src/features/workspace/issues.js';
import { validateWorkspace } from '../../../src/features/workspace/validate.js';
import { validTree } from './fixtures.js';

function errorsOf(tree: Map<string, string>): WorkspaceIssue[] {
  const result = validateWorkspace(tree);
  if (result.ok) throw new Error('expected the tree to be invalid');
  return result.errors;
}

function edit(tree: Map<string, string>, path: string, from: string | RegExp, to: string): void {
  const content = tree.get(path);
  if (content === undefined) throw new Error(`no ${path}`);
  const next = content.replace(from, to);
  if (next === content) throw new Error(`edit of ${path} changed nothing`);
  tree.set(path, next);
}

describe('validateWorkspace', () => {
  it('accepts a valid tree and returns its resources in kind, then slug order', () => {
    const result = validateWorkspace(validTree());
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.resources.map((r) => `${r.kind}:${r.manifest.slug}`)).toEqual([
        'agent:sales',
        'skill:draft-email',
        'skill:summarize',
        'workflow:deal-follow-up',
        'object_type:deal',
        'source:crm',
      ]);
    }
  });

  it('accepts the empty workspace', () => {
    expect(validateWorkspace(new Map())).toEqual({ ok: true, resources: [] });
  });

  it('gives each malformed manifest kind a structured error naming file and field', () => {
    const tree = validTree();
    edit(tree, 'agents/sales.yaml', 'active: true', 'active: sometimes');
    edit(tree, 'skills/summarize/manifest.yaml', 'status: active', 'status: live');
    edit(tree, 'workflows/deal-follow-up.yaml', 'skill: draft-email', 'skill: draft-email\n    retries: 3');
    edit(tree, 'object-types/deal.yaml', 'crm: 2', 'crm: -2');
    edit(tree, 'sources/crm.yaml', 'kind: crm', 'kind: carrier-pigeon');
    expect(errorsOf(tree)).toEqual([
      {
        file: 'agents/sales.yaml',
        path: ['active'],
        message: 'Invalid input: expected boolean, received string',
      },
      {
        file: 'object-types/deal.yaml',
        path: ['sourceRelevance', 'crm'],
        message: 'Too small: expected number to be >=0',
      },
      {
        file: 'skills/summarize/manifest.yaml',
        path: ['status'],
        message: 'Invalid option: expected one of "active"|"draft"|"archived"',
      },
      {
        file: 'sources/crm.yaml',
        path: ['kind'],
        message: 'Invalid option: expected one of "http"|"crm"|"meetings"|"mail"|"files"',
      },
      {
        file: 'workflows/deal-follow-up.yaml',
        path: ['steps', 2, 'retries'],
        message: 'unknown field "retries"',
      },
    ]);
  });

  it('reports files outside the layout, bad slugs in paths, missing skill files and slug mismatches', () => {
    const tree = validTree();
    tree.set('README.md', '# hi');
    tree.set('agents/Sales Bot.yaml', 'slug: sales-bot\nname: S\n');
    tree.delete('skills/draft-email/prompt.md');
    tree.set('skills/orphan/prompt.md', 'no manifest');
    edit(tree, 'sources/crm.yaml', 'slug: crm', 'slug: hubspot');
    const errors = errorsOf(tree);
    expect(errors.map((e) => [e.file, e.path.join('.')])).toEqual([
      ['README.md', ''],
      ['agents/Sales Bot.yaml', ''],
      ['skills/draft-email/prompt.md', ''],
      ['skills/orphan/manifest.yaml', ''],
      ['sources/crm.yaml', 'slug'],
    ]);
    expect(errors[0]?.message).toMatch(/^not part of the workspace layout/);
    expect(errors[1]?.message).toBe('"Sales Bot" in the file name is not a valid slug');
    expect(errors[2]?.message).toMatch(/missing file/);
    expect(errors[4]?.message).toBe('slug "hubspot" differs from "crm" in the path');
  });

  it('reports every dangling cross reference at its field', () => {
    const tree = validTree();
    tree.delete('skills/draft-email/manifest.yaml');
    tree.delete('skills/draft-email/prompt.md');
    tree.delete('object-types/deal.yaml');
    tree.delete('sources/crm.yaml');
    tree.set('object-types/lead.yaml', 'slug: lead\nname: Lead\nsourceRelevance:\n  mail: 1\n');
    edit(tree, 'agents/sales.yaml', '  - deal-follow-up', '  - deal-follow-up\n  - nightly');
    expect(errorsOf(tree)).toEqual([
      {
        file: 'agents/sales.yaml',
        path: ['skillSlugs', 1],
        message: 'skill "draft-email" does not exist in the workspace',
      },
      {
        file: 'agents/sales.yaml',
        path: ['sourceSlugs', 0],
        message: 'source "crm" does not exist in the workspace',
      },
      {
        file: 'agents/sales.yaml',
        path: ['workflowSlugs', 1],
        message: 'workflow "nightly" does not exist in the workspace',
      },
      {
        file: 'object-types/lead.yaml',
        path: ['sourceRelevance', 'mail'],
        message: 'source "mail" does not exist in the workspace',
      },
      {
        file: 'workflows/deal-follow-up.yaml',
        path: ['steps', 2, 'skill'],
        message: 'skill "draft-email" does not exist in the workspace',
      },
      {
        file: 'workflows/deal-follow-up.yaml',
        path: ['trigger', 'objectType'],
        message: 'object type "deal" does not exist in the workspace',
      },
    ]);
  });

  it('does not report a reference to a present but invalid resource as missing', () => {
    const tree = validTree();
    edit(tree, 'skills/summarize/manifest.yaml', 'form: prompt', 'form: code');
    const errors = errorsOf(tree);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ file: 'skills/summarize/manifest.yaml', path: ['form'] });
  });

  it('reports JSON Schemas that do not compile, at the schema field', () => {
    const tree = validTree();
    edit(
      tree,
      'skills/summarize/manifest.yaml',
      '      type: string\n  required',
      '      type: strng\n  required',
    );
    edit(
      tree,
      'skills/draft-email/manifest.yaml',
      'requiresApproval: true',
      'requiresApproval: true\noutputSchema:\n  type: string',
    );
    edit(tree, 'object-types/deal.yaml', 'required:', 'requierd:');
    edit(
      tree,
      'workflows/deal-follow-up.yaml',
      'additionalProperties: false',
      'additionalProperties: false\n  $ref: "https://example.com/s.json"',
    );
    const errors = errorsOf(tree);
    expect(errors.map((e) => [e.file, e.path.join('.')])).toEqual([
      ['object-types/deal.yaml', 'schema'],
      ['skills/draft-email/manifest.yaml', 'outputSchema.type'],
      ['skills/summarize/manifest.yaml', 'inputSchema.properties.text.type'],
      ['workflows/deal-follow-up.yaml', 'inputSchema'],
    ]);
    expect(errors[0]?.message).toMatch(/unknown keyword: "requierd"/);
    expect(errors[1]?.message).toBe('must describe an object: use type "object"');
    expect(errors[2]?.message).toMatch(/^JSON Schema: must be equal to one of the allowed values/);
    expect(errors[3]?.message).toMatch(/can't resolve reference https:\/\/example.com\/s.json/);
  });

  it('accepts 2020-12 features, formats and x- annotations, and rejects other dialects', () => {
    const tree = validTree();
    edit(
      tree,
      'object-types/deal.yaml',
      '  required:',
      '  x-order: [amount]\n  $defs:\n    money: { type: number }\n  dependentRequired: { amount: [closeDate] }\n  required:',
    );
    expect(validateWorkspace(tree).ok).toBe(true);
    edit(tree, 'object-types/deal.yaml', 'format: date', 'format: dait');
    expect(errorsOf(tree)[0]?.message).toMatch(/unknown format "dait"/);
    const draft7 = validTree();
    edit(
      draft7,
      'object-types/deal.yaml',
      'schema:\n',
      'schema:\n  $schema: http://json-schema.org/draft-07/schema#\n',
    );
    expect(errorsOf(draft7)).toEqual([
      {
        file: 'object-types/deal.yaml',
        path: ['schema', '$schema'],
        message:
          'JSON Schema: only JSON Schema 2020-12 is supported ("https://json-schema.org/draft/2020-12/schema")',
      },
    ]);
  });

  it('collects all errors across files, not only the first', () => {
    const tree = validTree();
    tree.set('agents/sales.yaml', 'slug: sales\nname: [\n');
    edit(tree, 'skills/summarize/manifest.yaml', 'name: Summarize', 'name: ""');
    edit(tree, 'workflows/deal-follow-up.yaml', 'name: email', 'name: summary');
    tree.set('sources/x.yaml', 'slug: x\nname: X\nkind: http\nretrieval:\n  weight: heavy\n');
    const errors = errorsOf(tree);
    expect(new Set(errors.map((e) => e.file))).toEqual(
      new Set([
        'agents/sales.yaml',
        'skills/summarize/manifest.yaml',
        'workflows/deal-follow-up.yaml',
        'sources/x.yaml',
      ]),
    );
    expect(errors.find((e) => e.file === 'workflows/deal-follow-up.yaml')).toEqual({
      file: 'workflows/deal-follow-up.yaml',
      path: ['steps', 2, 'name'],
      message: 'duplicate step name "summary" (also step 0)',
    });
  });
});
