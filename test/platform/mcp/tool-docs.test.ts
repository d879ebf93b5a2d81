/**
 * docs/mcp.md's tool tables are those of the tools this code registers (every tool of every group, its
 * arguments, output, access and hints). With R3_WRITE_DOCS=1 (`npm run docs:mcp`) the test writes them
 * instead.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { withToolTables } from '../../../src/platform/mcp/tool-docs.js';
import { createToolset } from '../../../src/platform/mcp/toolset.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

const DOC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/mcp.md');

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

it('docs/mcp.md lists every tool as the registry defines it', () => {
  const { tools } = createToolset(t.app.mcp.all, { httpAuthoring: true, log: t.app.log });
  const written = readFileSync(DOC, 'utf8');
  const generated = withToolTables(written, tools);
  if (process.env.R3_WRITE_DOCS === '1') writeFileSync(DOC, generated);
  expect(written, 'docs/mcp.md is stale: run npm run docs:mcp').toBe(generated);
  for (const tool of tools) expect(written).toContain(`| \`${tool.name}\``);
});

/** Tools that only read what r3 holds or the web shows (issue 41: `readOnlyHint` for reads). */
const READS = [
  'briefings',
  'crawl_site',
  'fetch_url',
  'get_crm_companies',
  'get_crm_contacts',
  'get_crm_deals',
  'get_mail_thread',
  'get_meeting_transcript',
  'learnings',
  'lookup_objects',
  'mission_get_run',
  'mission_list',
  'mission_list_runs',
  'object_types_list',
  'objects_get',
  'objects_list',
  'run_code',
  'run_history',
  'runtime_get_run',
  'runtime_list_runs',
  'runtime_skill_quality',
  'search_knowledge',
  'search_query',
  'web_search',
  'workspace_diff',
  'workspace_get',
  'workspace_list',
  'workspace_version_history',
];

it('annotates every tool truthfully: reads read-only, deletes, cancels and rejections destructive, web tools open world', () => {
  const listed = createToolset(t.app.mcp.all, { httpAuthoring: true, log: t.app.log }).list('stdio');
  const where = (hint: 'readOnlyHint' | 'destructiveHint' | 'openWorldHint') =>
    listed
      .filter((tool) => tool.annotations?.[hint] === true)
      .map((tool) => tool.name)
      .sort();
  expect(where('readOnlyHint')).toEqual(READS);
  // What removes or ends something: deleting a resource, cancelling a mission, rejecting a draft
  // (one at a time or in a batch).
  expect(where('destructiveHint')).toEqual([
    'mission_cancel',
    'review_decide_batch',
    'runtime_reject_draft',
    'workspace_delete',
  ]);
  // The web tools reach outside r3; so do runs (a model, the tools a run calls) and the connectors.
  expect(where('openWorldHint')).toEqual(
    expect.arrayContaining(['crawl_site', 'fetch_url', 'generate_image', 'web_search']),
  );
  for (const tool of listed) {
    if (tool.name.startsWith('workspace_') || tool.name.startsWith('objects_')) {
      expect(tool.annotations?.openWorldHint, tool.name).toBe(false);
    }
    // A read is idempotent and never destructive.
    if (tool.annotations?.readOnlyHint) {
      expect(tool.annotations, tool.name).toMatchObject({ destructiveHint: false, idempotentHint: true });
    }
  }
});
