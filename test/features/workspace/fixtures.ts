import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { putResource } from '../../../src/features/workspace/files.js';
import type { WorkspaceResource } from '../../../src/features/workspace/manifests.js';

/** A small, valid workspace: every kind, every kind of cross reference. */
export function validResources(): WorkspaceResource[] {
  return [
    {
      kind: 'source',
      manifest: {
        slug: 'crm',
        name: 'CRM',
        description: '',
        kind: 'crm',
        connection: { state: 'connected', baseUrl: 'http://crm.local', account: 42 },
        retrieval: { weight: 1.5, ftsWeight: 0.3, vectorWeight: 0.7, maxAgeDays: 365 },
      },
    },
    {
      kind: 'object_type',
      manifest: {
        slug: 'deal',
        name: 'Deal',
        description: 'A sales opportunity',
        schema: {
          type: 'object',
          properties: {
            amount: { type: 'number', minimum: 0 },
            closeDate: { type: 'string', format: 'date' },
          },
          required: ['amount'],
        },
        sourceRelevance: { crm: 2 },
      },
    },
    {
      kind: 'skill',
      manifest: {
        slug: 'summarize',
        name: 'Summarize',
        description: 'Summarizes a text',
        category: 'writing',
        status: 'active',
        form: 'prompt',
        requiresApproval: false,
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        outputSchema: { type: 'object', properties: { text: { type: 'string' } } },
        model: { provider: 'echo', name: 'echo-1', temperature: 0.2 },
      },
      promptMd: '# Summarize\n\nSummarize this:\n\n{{input.text}}\n',
    },
    {
      kind: 'skill',
      manifest: {
        slug: 'draft-email',
        name: 'Draft email',
        description: '',
        category: 'general',
        status: 'draft',
        form: 'prompt',
        requiresApproval: true,
      },
      promptMd: 'Write an email about {{input.summary}}.',
    },
    {
      kind: 'workflow',
      manifest: {
        slug: 'deal-follow-up',
        name: 'Deal follow-up',
        description: '',
        trigger: { type: 'object.created', objectType: 'deal' },
        inputSchema: {
          type: 'object',
          properties: { notes: { type: 'string' } },
          additionalProperties: false,
        },
        steps: [
          { name: 'summary', type: 'skill', skill: 'summarize', input: { text: '{{input.notes}}' } },
          { name: 'review', type: 'approve', title: 'Check the summary' },
          {
            name: 'email',
            type: 'skill',
            skill: 'draft-email',
            input: {
              summary: 'Summary: {{ steps.summary.output.text }}',
              meta: { tags: ['{{input.notes}}'] },
            },
          },
        ],
      },
    },
    {
      kind: 'agent',
      manifest: {
        slug: 'sales',
        name: 'Sales assistant',
        description: 'Helps the sales team',
        active: true,
        systemPrompt: 'You help the sales team.\nBe brief.\n',
        skillSlugs: ['summarize', 'draft-email'],
        workflowSlugs: ['deal-follow-up'],
        sourceSlugs: ['crm'],
      },
    },
  ];
}

/** {@link validResources} as a tree. */
export function validTree(): Map<string, string> {
  const tree = new Map<string, string>();
  for (const resource of validResources()) putResource(tree, resource);
  return tree;
}

const created: string[] = [];
// Registered in the importing test file's root suite: every temp dir goes when the file ends.
afterAll(() => {
  for (const dir of created) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary directory, removed when the test file ends. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `r3-${prefix}-`));
  created.push(dir);
  return dir;
}

const gitHome = tempDir('git-home');

/** Runs the real git binary, isolated from the machine's and the user's configuration. */
export function git(
  cwd: string,
  args: string[],
  options: { input?: string | Buffer; env?: Record<string, string> } = {},
): string {
  return execFileSync('git', args, {
    cwd,
    input: options.input,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: gitHome,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      LANG: 'C',
      ...options.env,
    },
  });
}
