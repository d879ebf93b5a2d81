/**
 * The built-in tools from `r3 mcp --org <slug>` (the compiled build, a child process, over stdio with
 * the official SDK client): run_code's worker threads start from the build, create_artifact and
 * generate_image are attributed `mcp` (no token), and the web tools read pages with the libraries
 * they load from the build (linkedom, Readability, turndown, robots-parser).
 */

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../../../fakes/openai-server.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { connectStdio, fails, ok } from '../../helpers/mcp.js';
import { html, page, startWebSite, type WebSite } from '../../helpers/web-server.js';

let t: TestApp;
let mcp: Client;
let transport: StdioClientTransport;
let site: WebSite;
let openai: FakeOpenAI;

beforeAll(async () => {
  site = await startWebSite({
    '/robots.txt': page('User-agent: r3\nDisallow: /private\n', 'text/plain'),
    '/': page(
      html(
        'Home',
        '<article><h1>Home</h1><p>Welcome to the <em>harbour</em> office.</p><a href="/hours">Hours</a> <a href="/private/x">x</a></article>',
      ),
    ),
    '/hours': page(html('Hours', '<p>Open from 9 to 5.</p>')),
  });
  openai = await startFakeOpenAI();
  t = await startTestApp();
  await t.token({ org: 'acme' });
  ({ client: mcp, transport } = await connectStdio('acme', {
    DATABASE_URL: t.database.url,
    R3_TOOLS_ALLOW_PRIVATE: 'true',
    OPENAI_BASE_URL: openai.baseUrl,
    R3_IMAGE_MODEL: 'dall-e-3',
  }));
});
afterAll(async () => {
  await mcp?.close();
  await transport?.close();
  await t.close();
  await site?.close();
  await openai?.close();
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
    {
      language: 'javascript',
      code: 'const a = []; for (let n = 1 << 20; ; n *= 2) a.push(new ArrayBuffer(n))',
    },
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

it('fetches, crawls and generates images over stdio', async () => {
  const fetched = await ok(mcp, 'fetch_url', { url: `${site.url}/` });
  expect(fetched).toMatchObject({ status: 200, title: 'Home', truncated: false });
  expect(fetched.text).toContain('Welcome to the *harbour* office.');
  const crawled = await ok(mcp, 'crawl_site', { url: `${site.url}/` });
  expect(crawled.pages.map((p: { url: string }) => p.url)).toEqual([`${site.url}/`, `${site.url}/hours`]);
  expect(crawled.skipped).toEqual([{ url: `${site.url}/private/x`, reason: 'robots_txt' }]);
  await fails(mcp, 'web_search', { query: 'harbour' }, 'TOOL_UNAVAILABLE');
  const image = await ok(mcp, 'generate_image', { prompt: 'harbour at dawn' });
  expect(image.mediaType).toBe('image/png');
  const row = await t.app.db.sql.one<{ created_by: string; name: string }>(
    'select created_by, name from artifacts where id = $1',
    [image.artifactId],
  );
  expect(row).toEqual({ created_by: 'mcp', name: 'harbour-at-dawn.png' });
  expect(openai.requests.at(-1)?.body).toMatchObject({ model: 'dall-e-3', response_format: 'b64_json' });
  expect(openai.requests.at(-1)?.headers.authorization).toBeUndefined();
});
