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
