/**
 * The built-in tools from `r3 mcp --org <slug>` (the compiled build, a child process, over stdio with
 * the official SDK client): run_code's worker threads start from the build, and create_artifact is
 * attributed `mcp` (no token).
 */

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { connectStdio, fails, ok } from '../../helpers/mcp.js';

let t: TestApp;
let mcp: Client;
let transport: StdioClientTransport;

beforeAll(async () => {
  t = await startTestApp();
  await t.token({ org: 'acme' });
  ({ client: mcp, transport } = await connectStdio('acme', { DATABASE_URL: t.database.url }));
});
afterAll(async () => {
  await mcp?.close();
  await transport?.close();
  await t.close();
});

it('runs code and stores artifacts over stdio, attributed mcp', async () => {
  expect(
    await ok(mcp, 'run_code', { language: 'javascript', code: 'input.map((x) => x * x)', input: [1, 2, 3] }),
  ).toEqual({
    result: [1, 4, 9],
    stdout: '',
    error: null,
  });
  await fails(
    mcp,
    'run_code',
    { language: 'javascript', code: 'const a = []; for (;;) a.push(a.length)' },
    'TOOL_FAILED',
  );
  const made = await ok(mcp, 'create_artifact', {
    name: 'out.csv',
    mediaType: 'text/csv',
    text: 'a,b\n1,2\n',
  });
  const row = await t.app.db.sql.one<{
    created_by: string;
    api_token_id: string | null;
    run_id: number | null;
  }>('select created_by, api_token_id, run_id from artifacts where id = $1', [made.artifactId]);
  expect(row).toEqual({ created_by: 'mcp', api_token_id: null, run_id: null });
});
