import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { agentManifestSchema } from '../../../src/features/workspace/agent-manifest.js';
import { cronError } from '../../../src/features/workspace/cron.js';
import { type FieldIssue, fieldIssuesFromZod } from '../../../src/features/workspace/issues.js';
import { objectTypeManifestSchema } from '../../../src/features/workspace/object-type-manifest.js';
import { mergeManifestPatch } from '../../../src/features/workspace/patch.js';
import {
  skillManifestPatchSchema,
  skillManifestSchema,
} from '../../../src/features/workspace/skill-manifest.js';
import { sourceManifestSchema } from '../../../src/features/workspace/source-manifest.js';
import { workflowManifestSchema } from '../../../src/features/workspace/workflow-manifest.js';

function issues(schema: z.ZodType, value: unknown): FieldIssue[] {
  const result = schema.safeParse(value);
  if (result.success) throw new Error('expected a validation failure');
  return fieldIssuesFromZod(result.error);
}

function paths(list: FieldIssue[]): string[] {
  return list.map((issue) => issue.path.join('.'));
}

const step = (name: string, input: Record<string, unknown> = {}) => ({
  name,
  type: 'skill',
  skill: 'x',
  input,
});

describe('skill manifest', () => {
  it('fills the documented defaults on create', () => {
    expect(skillManifestSchema.parse({ slug: 'triage', name: 'Triage' })).toEqual({
      slug: 'triage',
      name: 'Triage',
      description: '',
      category: 'general',
      status: 'active',
      form: 'prompt',
      requiresApproval: false,
    });
  });

  it('requires slug and name and names every bad field', () => {
    const found = issues(skillManifestSchema, {
      slug: 'Bad Slug',
      status: 'live',
      form: 'code',
      requiresApproval: 'yes',
      model: { provider: 'echo', temperature: 3, top_p: 1 },
      extra: true,
    });
    expect(paths(found).sort()).toEqual(
      [
        'extra',
        'form',
        'model.temperature',
        'model.top_p',
        'name',
        'requiresApproval',
        'slug',
        'status',
      ].sort(),
    );
    expect(found.find((i) => i.path.join('.') === 'extra')?.message).toBe('unknown field "extra"');
    expect(found.find((i) => i.path[0] === 'slug')?.message).toMatch(/slug/);
  });

  it('accepts slugs by the documented pattern only', () => {
    for (const slug of ['a', '0', 'a-b-c', 'x'.repeat(63)]) {
      expect(skillManifestSchema.safeParse({ slug, name: 'n' }).success).toBe(true);
    }
    for (const slug of ['', '-a', 'A', 'a_b', 'a.b', 'x'.repeat(64)]) {
      expect(skillManifestSchema.safeParse({ slug, name: 'n' }).success).toBe(false);
    }
  });

  it('keeps JSON Schemas free-form', () => {
    const parsed = skillManifestSchema.parse({
      slug: 's',
      name: 'n',
      inputSchema: { type: 'object', 'x-anything': { deep: [1] } },
    });
    expect(parsed.inputSchema).toEqual({ type: 'object', 'x-anything': { deep: [1] } });
  });
});

describe('workflow manifest', () => {
  it('defaults trigger to manual and inputSchema to an object', () => {
    const parsed = workflowManifestSchema.parse({ slug: 'w', name: 'W', steps: [step('a')] });
    expect(parsed.trigger).toEqual({ type: 'manual' });
    expect(parsed.inputSchema).toEqual({ type: 'object' });
    expect(parsed.steps[0]).toEqual({ name: 'a', type: 'skill', skill: 'x', input: {} });
  });

  it('needs at least one step', () => {
    expect(paths(issues(workflowManifestSchema, { slug: 'w', name: 'W', steps: [] }))).toEqual(['steps']);
  });

  it('names the field of a bad trigger or step', () => {
    const found = issues(workflowManifestSchema, {
      slug: 'w',
      name: 'W',
      trigger: { type: 'schedule', cron: '61 * * * *' },
      steps: [
        { name: 'a', type: 'skill' },
        { name: 'b', type: 'approve', title: 'ok', when: 'always' },
        { name: 'c', type: 'wait' },
        { name: 'has space', type: 'approve' },
      ],
    });
    expect(paths(found)).toEqual([
      'trigger.cron',
      'steps.0.skill',
      'steps.1.when',
      'steps.2.type',
      'steps.3.name',
    ]);
    expect(found[0]?.message).toMatch(/minute/);
  });

  it('rejects duplicate step names', () => {
    const found = issues(workflowManifestSchema, {
      slug: 'w',
      name: 'W',
      steps: [step('a'), step('b'), step('a')],
    });
    expect(found).toEqual([{ path: ['steps', 2, 'name'], message: 'duplicate step name "a" (also step 0)' }]);
  });

  it('lets a template reference only earlier steps', () => {
    const found = issues(workflowManifestSchema, {
      slug: 'w',
      name: 'W',
      steps: [
        step('first', { text: '{{steps.second.output.text}}' }),
        step('second', { own: '{{steps.second.output.x}}', ok: '{{steps.first.output.text}}' }),
        step('third', {
          nested: { list: ['{{steps.ghost.output.x}}'] },
          bad: '{{steps.first}}',
          other: '{{env.HOME}}',
        }),
      ],
    });
    expect(found).toEqual([
      {
        path: ['steps', 0, 'input', 'text'],
        message: '{{steps.second.output.text}}: step "second" runs later (step 1); use an earlier step',
      },
      {
        path: ['steps', 1, 'input', 'own'],
        message: '{{steps.second.output.x}}: a step cannot use its own output',
      },
      {
        path: ['steps', 2, 'input', 'nested', 'list', 0],
        message: '{{steps.ghost.output.x}}: there is no step "ghost"',
      },
      {
        path: ['steps', 2, 'input', 'bad'],
        message: 'template "{{steps.first}}" must have the form {{steps.<name>.output.<field>}}',
      },
      {
        path: ['steps', 2, 'input', 'other'],
        message: 'template "{{env.HOME}}" must start with "input." or "steps."',
      },
    ]);
  });

  it('checks {{input.x}} against a closed inputSchema only', () => {
    const body = (additionalProperties: boolean | undefined) => ({
      slug: 'w',
      name: 'W',
      inputSchema: { type: 'object', properties: { notes: { type: 'string' } }, additionalProperties },
      steps: [step('a', { x: '{{input.notes}} {{input.typo}}' })],
    });
    expect(workflowManifestSchema.safeParse(body(undefined)).success).toBe(true);
    expect(issues(workflowManifestSchema, body(false))).toEqual([
      {
        path: ['steps', 0, 'input', 'x'],
        message: '{{input.typo}}: "typo" is not a property of inputSchema',
      },
    ]);
  });
});

describe('agent manifest', () => {
  it('fills defaults and rejects duplicates and wrong types', () => {
    expect(agentManifestSchema.parse({ slug: 'a', name: 'A' })).toEqual({
      slug: 'a',
      name: 'A',
      description: '',
      active: true,
      systemPrompt: '',
      skillSlugs: [],
      workflowSlugs: [],
      sourceSlugs: [],
    });
    const found = issues(agentManifestSchema, {
      slug: 'a',
      name: 'A',
      active: 'true',
      skillSlugs: ['x', 'y', 'x'],
      sourceSlugs: ['Bad'],
    });
    expect(paths(found)).toEqual(['active', 'skillSlugs.2', 'sourceSlugs.0']);
  });
});

describe('object type manifest', () => {
  it('requires weights ≥ 0 keyed by source slugs', () => {
    expect(objectTypeManifestSchema.parse({ slug: 'deal', name: 'Deal' })).toEqual({
      slug: 'deal',
      name: 'Deal',
      description: '',
      schema: { type: 'object' },
      sourceRelevance: {},
    });
    const found = issues(objectTypeManifestSchema, {
      slug: 'deal',
      name: 'Deal',
      schema: 'object',
      sourceRelevance: { crm: -1, 'Not A Slug': 1, mail: '2' },
    });
    expect(paths(found)).toEqual([
      'schema',
      'sourceRelevance.crm',
      'sourceRelevance.Not A Slug',
      'sourceRelevance.mail',
    ]);
    expect(found[2]?.message).toMatch(/^invalid key "Not A Slug": must be a slug/);
  });
});

describe('source manifest', () => {
  it('keeps connection settings free-form but everything else strict', () => {
    const parsed = sourceManifestSchema.parse({
      slug: 'mail',
      name: 'Mail',
      kind: 'mail',
      connection: { host: 'imap.local', port: 993 },
    });
    expect(parsed.connection).toEqual({ state: 'disconnected', host: 'imap.local', port: 993 });
    expect(parsed.retrieval).toEqual({});
    const found = issues(sourceManifestSchema, {
      slug: 'mail',
      name: 'Mail',
      kind: 'fax',
      connection: { state: 'broken' },
      retrieval: { weight: -1, boost: 2, maxAgeDays: 1.5 },
    });
    expect(paths(found)).toEqual([
      'kind',
      'connection.state',
      'retrieval.weight',
      'retrieval.maxAgeDays',
      'retrieval.boost',
    ]);
  });
});

describe('patches', () => {
  const current = skillManifestSchema.parse({
    slug: 's',
    name: 'S',
    inputSchema: { type: 'object' },
    model: { provider: 'echo' },
  });

  it('patch schemas have no defaults', () => {
    expect(skillManifestPatchSchema.parse({ name: 'New' })).toEqual({ name: 'New' });
  });

  it('replaces named fields, removes null ones and re-validates', () => {
    const merged = mergeManifestPatch('skill', current, { name: 'New', model: null, status: 'archived' });
    expect(merged).toEqual({
      ok: true,
      manifest: { ...current, name: 'New', status: 'archived', model: undefined },
    });
    if (merged.ok) expect('model' in merged.manifest).toBe(false);
  });

  it('refuses a slug change and reports merged-manifest errors', () => {
    expect(mergeManifestPatch('skill', current, { slug: 't' })).toEqual({
      ok: false,
      errors: [{ path: ['slug'], message: 'slug cannot change (is "s")' }],
    });
    const wf = workflowManifestSchema.parse({ slug: 'w', name: 'W', steps: [step('a')] });
    const merged = mergeManifestPatch('workflow', wf, { steps: [step('a', { t: '{{steps.b.output.x}}' })] });
    expect(merged.ok).toBe(false);
    if (!merged.ok) expect(merged.errors[0]?.path).toEqual(['steps', 0, 'input', 't']);
  });
});

describe('cron', () => {
  it('accepts standard five-field expressions, six fields with seconds first, and macros', () => {
    for (const cron of [
      '* * * * *',
      '*/10 * * * * *',
      '0 30 9 * * MON-FRI',
      '*/15 9-17 * * MON-FRI',
      '0 0 1,15 JAN,jul 0',
      '5 4 * * 7',
      '0-30/5 * * * *',
      '@daily',
    ]) {
      expect(cronError(cron)).toBeUndefined();
    }
  });

  it('says what is wrong otherwise', () => {
    expect(cronError('* * * *')).toMatch(/5 fields/);
    expect(cronError('60 * * * *')).toMatch(/minute: "60" is out of range 0-59/);
    expect(cronError('* 5-2 * * *')).toMatch(/hour: range "5-2" runs backwards/);
    expect(cronError('* * * * */0')).toMatch(/step/);
    expect(cronError('* * 0 * *')).toMatch(/day of month/);
    expect(cronError('60 * * * * *')).toMatch(/second: "60" is out of range 0-59/);
    expect(cronError('0 60 * * * *')).toMatch(/minute: "60"/);
    expect(cronError('* * * * * * *')).toMatch(/or 6 \(second first\), got 7/);
    expect(cronError('* * * FOO *')).toMatch(/month/);
    expect(cronError('@sometimes')).toMatch(/5 fields/);
  });
});
