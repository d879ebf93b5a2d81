import { describe, expect, it } from 'vitest';
import {
  classifyPath,
  manifestPath,
  parseManifest,
  parseResource,
  putResource,
  removeResource,
  resourcePaths,
  serializeManifest,
  serializeResource,
} from '../../../src/features/workspace/files.js';
import { validResources, validTree } from './fixtures.js';

describe('layout', () => {
  it('maps paths to kind, slug and role and back', () => {
    const cases = [
      ['agents/sales.yaml', 'agent', 'sales', 'manifest'],
      ['skills/summarize/manifest.yaml', 'skill', 'summarize', 'manifest'],
      ['skills/summarize/prompt.md', 'skill', 'summarize', 'prompt'],
      ['workflows/w.yaml', 'workflow', 'w', 'manifest'],
      ['object-types/deal.yaml', 'object_type', 'deal', 'manifest'],
      ['sources/crm.yaml', 'source', 'crm', 'manifest'],
    ] as const;
    for (const [path, kind, slug, role] of cases) {
      expect(classifyPath(path)).toEqual({ kind, slug, role });
      expect(resourcePaths(kind, slug)).toContain(path);
    }
    expect(manifestPath('object_type', 'deal')).toBe('object-types/deal.yaml');
  });

  it('does not classify paths outside the layout', () => {
    for (const path of [
      'README.md',
      'agents/x.yml',
      'agents/.yaml',
      'agents/a/b.yaml',
      'skills/x.yaml',
      'skills/x/notes.md',
      'skills//prompt.md',
      'other/x.yaml',
    ]) {
      expect(classifyPath(path)).toBeUndefined();
    }
  });
});

describe('serialization', () => {
  it('round-trips every resource', () => {
    const tree = validTree();
    for (const resource of validResources()) {
      const parsed = parseResource(resource.kind, resource.manifest.slug, tree);
      expect(parsed).toEqual({ ok: true, value: resource });
    }
  });

  it('writes a skill as manifest.yaml plus the prompt verbatim', () => {
    const skill = validResources().find((r) => r.kind === 'skill');
    if (skill?.kind !== 'skill') throw new Error('fixture has a skill');
    const files = serializeResource(skill);
    expect([...files.keys()]).toEqual(['skills/summarize/manifest.yaml', 'skills/summarize/prompt.md']);
    expect(files.get('skills/summarize/prompt.md')).toBe(skill.promptMd);
  });

  it('is deterministic: known fields in schema order whatever the input order, defaults written out', () => {
    const a = serializeManifest('agent', {
      sourceSlugs: [],
      name: 'A',
      slug: 'a',
      systemPrompt: 'Line one\nLine two\n',
      workflowSlugs: [],
      skillSlugs: ['s'],
      active: true,
      description: '',
    });
    const b = serializeManifest('agent', {
      slug: 'a',
      name: 'A',
      description: '',
      active: true,
      systemPrompt: 'Line one\nLine two\n',
      skillSlugs: ['s'],
      workflowSlugs: [],
      sourceSlugs: [],
    });
    expect(a).toBe(b);
    expect(a).toBe(
      [
        'slug: a',
        'name: A',
        'description: ""',
        'active: true',
        'systemPrompt: |',
        '  Line one',
        '  Line two',
        'skillSlugs:',
        '  - s',
        'workflowSlugs: []',
        'sourceSlugs: []',
        '',
      ].join('\n'),
    );
  });

  it('keeps the author order inside free-form objects', () => {
    const yaml = serializeManifest('object_type', {
      slug: 'o',
      name: 'O',
      description: '',
      schema: { type: 'object', properties: { zeta: { type: 'string' }, alpha: { type: 'string' } } },
      sourceRelevance: {},
    });
    expect(yaml.indexOf('zeta')).toBeLessThan(yaml.indexOf('alpha'));
  });

  it('refuses to serialize an invalid manifest', () => {
    expect(() => serializeManifest('source', { slug: 'Bad' } as never)).toThrow();
  });

  it('puts and removes resources in a tree', () => {
    const tree = validTree();
    expect(removeResource(tree, 'skill', 'summarize')).toBe(true);
    expect(tree.has('skills/summarize/prompt.md')).toBe(false);
    expect(removeResource(tree, 'skill', 'summarize')).toBe(false);
    const [first] = validResources();
    if (!first) throw new Error('fixture');
    putResource(tree, first);
    expect(tree.has('sources/crm.yaml')).toBe(true);
  });
});

describe('parse errors', () => {
  const file = 'agents/a.yaml';

  it('reports YAML syntax errors with line and column', () => {
    const parsed = parseManifest('agent', file, 'slug: a\nname: [unclosed\nactive: true\n');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.errors[0]).toMatchObject({ file, path: [] });
      expect(parsed.errors[0]?.message).toMatch(/^YAML syntax: .*\(line \d+, column \d+\)$/);
    }
  });

  it('reports duplicate keys', () => {
    const parsed = parseManifest('agent', file, 'slug: a\nname: A\nname: B\n');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.errors[0]?.message).toMatch(/unique.*line 3, column 1/);
  });

  it('rejects a document that is not a mapping, and non-JSON values', () => {
    expect(parseManifest('agent', file, '- a\n- b\n')).toEqual({
      ok: false,
      errors: [{ file, path: [], message: 'must be a YAML mapping of manifest fields' }],
    });
    expect(parseManifest('agent', file, '')).toMatchObject({ ok: false });
    const binary = parseManifest(
      'source',
      'sources/s.yaml',
      'slug: s\nname: S\nkind: http\nconnection:\n  key: !!binary aGk=\n',
    );
    expect(binary).toEqual({
      ok: false,
      errors: [
        {
          file: 'sources/s.yaml',
          path: ['connection', 'key'],
          message: 'must be a JSON value (null, boolean, number, string, list or map)',
        },
      ],
    });
    const infinite = parseManifest(
      'object_type',
      'object-types/o.yaml',
      'slug: o\nname: O\nsourceRelevance:\n  crm: .inf\n',
    );
    expect(infinite.ok).toBe(false);
    if (!infinite.ok) expect(infinite.errors[0]?.path).toEqual(['sourceRelevance', 'crm']);
  });

  it('names file and field for schema errors, and a slug that differs from the path', () => {
    const parsed = parseManifest('agent', file, 'slug: b\nname: A\nactive: maybe\ncolour: red\n', 'a');
    expect(parsed).toEqual({
      ok: false,
      errors: [
        { file, path: ['active'], message: 'Invalid input: expected boolean, received string' },
        { file, path: ['colour'], message: 'unknown field "colour"' },
        { file, path: ['slug'], message: 'slug "b" differs from "a" in the path' },
      ],
    });
  });
});
