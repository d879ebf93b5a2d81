/**
 * `web_search` (docs/mcp.md "Built-in tools") over MCP with the official SDK client, against a SearXNG-shaped JSON
 * API and a Brave-shaped Search API on real sockets (R3_WEB_SEARCH=searxng:<url>, brave:<url>), and
 * unconfigured (TOOL_UNAVAILABLE); upstream failures are TOOL_FAILED, bad arguments VALIDATION_FAILED.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { connectHttp, fails, ok } from '../../helpers/mcp.js';
import { startWebSite, type WebSite } from '../../helpers/web-server.js';

const json = (res: import('node:http').ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** Twelve hits for `query`, as a search engine would rank them. */
const hits = (query: string) =>
  Array.from({ length: 12 }, (_, i) => ({
    url: `https://example.com/${encodeURIComponent(query)}/${i + 1}`,
    title: `${query} result ${i + 1}`,
    text: `About ${query}, number ${i + 1}.`,
  }));

let backend: WebSite;
const apps: TestApp[] = [];
const clients: Client[] = [];

async function appWith(env: Record<string, string>): Promise<Client> {
  const t = await startTestApp(env);
  apps.push(t);
  const client = await connectHttp(t.url, (await t.token({ org: 'acme' })).token);
  clients.push(client);
  return client;
}

beforeAll(async () => {
  backend = await startWebSite({
    // SearXNG: GET /search?q=…&format=json → {query, results: [{url, title, content, engine, score}], …}
    '/searx/search': (_req, res, url) => {
      const q = url.searchParams.get('q') ?? '';
      if (url.searchParams.get('format') !== 'json') return json(res, 403, { error: 'format' });
      if (q === 'upstream down') return json(res, 502, { error: 'bad gateway' });
      if (q === 'not json') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>Too many requests</html>');
        return;
      }
      const results = hits(q).map((h) => ({
        url: h.url,
        title: h.title,
        content: h.text,
        engine: 'duckduckgo',
        score: 1,
      }));
      results.splice(2, 0, {
        url: 'magnet:?xt=urn:btih:abc',
        title: 'torrent',
        content: '',
        engine: 'x',
        score: 1,
      });
      json(res, 200, { query: q, number_of_results: results.length, results, answers: [], suggestions: [] });
    },
    // Brave: GET /res/v1/web/search?q=…&count=… with X-Subscription-Token → {type: "search", web: {results}}
    '/res/v1/web/search': (req, res, url) => {
      if (req.headers['x-subscription-token'] !== 'brave-key') {
        return json(res, 401, { type: 'ErrorResponse', error: { code: 'SUBSCRIPTION_TOKEN_INVALID' } });
      }
      const q = url.searchParams.get('q') ?? '';
      const count = Number(url.searchParams.get('count') ?? '20');
      if (q === 'nothing') return json(res, 200, { type: 'search', query: { original: q } });
      const results = hits(q)
        .slice(0, count)
        .map((h) => ({
          type: 'search_result',
          url: h.url,
          title: h.title,
          description: `<strong>${q}</strong> &amp; more: ${h.text}`,
        }));
      json(res, 200, { type: 'search', query: { original: q }, web: { type: 'search', results } });
    },
  });
});
afterAll(async () => {
  for (const client of clients) await client.close();
  for (const t of apps) await t.close();
  await backend?.close();
});

describe('web_search on SearXNG', () => {
  let mcp: Client;
  beforeAll(async () => {
    mcp = await appWith({ R3_WEB_SEARCH: `searxng:${backend.url}/searx/` });
  });

  it('answers {results: [{title, url, snippet}]}, 5 by default, at most limit, http(s) links only', async () => {
    const body = await ok(mcp, 'web_search', { query: 'tide tables' });
    expect(body.results).toHaveLength(5);
    expect(body.results[0]).toEqual({
      title: 'tide tables result 1',
      url: 'https://example.com/tide%20tables/1',
      snippet: 'About tide tables, number 1.',
    });
    expect(body.results.map((r: { url: string }) => r.url)).not.toContain('magnet:?xt=urn:btih:abc');
    const request = backend.requests.at(-1)?.path ?? '';
    expect(request).toBe('/searx/search?q=tide+tables&format=json');
    expect((await ok(mcp, 'web_search', { query: 'tides', limit: 10 })).results).toHaveLength(10);
    expect((await ok(mcp, 'web_search', { query: 'tides', limit: 1 })).results).toEqual([
      { title: 'tides result 1', url: 'https://example.com/tides/1', snippet: 'About tides, number 1.' },
    ]);
  });

  it('answers TOOL_FAILED when the backend fails or does not answer JSON', async () => {
    const down = await fails(mcp, 'web_search', { query: 'upstream down' }, 'TOOL_FAILED');
    expect(down.details).toEqual({ reason: 'upstream_status', status: 502 });
    const html = await fails(mcp, 'web_search', { query: 'not json' }, 'TOOL_FAILED');
    expect(html.details).toEqual({ reason: 'bad_response' });
  });

  it('refuses bad arguments with VALIDATION_FAILED, asking the backend nothing', async () => {
    const before = backend.requests.length;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'arguments.query'],
      [{ query: '' }, 'arguments.query'],
      [{ query: '   ' }, 'arguments.query'],
      [{ query: 'x'.repeat(401) }, 'arguments.query'],
      [{ query: 'tides', limit: 11 }, 'arguments.limit'],
      [{ query: 'tides', limit: 0 }, 'arguments.limit'],
      [{ query: 'tides', limit: 2.5 }, 'arguments.limit'],
      [{ query: 'tides', engine: 'google' }, 'arguments'],
    ];
    for (const [args, field] of cases) {
      const error = await fails(mcp, 'web_search', args, 'VALIDATION_FAILED');
      expect(error.details.issues[0].field, JSON.stringify(args)).toBe(field);
    }
    expect(backend.requests.length).toBe(before);
  });
});

describe('web_search on Brave', () => {
  it('sends the key as X-Subscription-Token and count, and answers snippets as plain text', async () => {
    const mcp = await appWith({
      R3_WEB_SEARCH: `brave:${backend.url}/res/v1`,
      R3_BRAVE_API_KEY: 'brave-key',
    });
    const body = await ok(mcp, 'web_search', { query: 'moon', limit: 3 });
    expect(body.results).toEqual(
      [1, 2, 3].map((i) => ({
        title: `moon result ${i}`,
        url: `https://example.com/moon/${i}`,
        snippet: `moon & more: About moon, number ${i}.`,
      })),
    );
    expect(backend.requests.at(-1)?.path).toBe('/res/v1/web/search?q=moon&count=3');
    expect(backend.requests.at(-1)?.headers['x-subscription-token']).toBe('brave-key');
    expect(await ok(mcp, 'web_search', { query: 'nothing' })).toEqual({ results: [] });
  });

  it('answers TOOL_FAILED when Brave refuses the key', async () => {
    const mcp = await appWith({ R3_WEB_SEARCH: `brave:${backend.url}/res/v1`, R3_BRAVE_API_KEY: 'wrong' });
    const error = await fails(mcp, 'web_search', { query: 'moon' }, 'TOOL_FAILED');
    expect(error.details).toEqual({ reason: 'upstream_status', status: 401 });
  });
});

describe('web_search unconfigured', () => {
  it('answers TOOL_UNAVAILABLE naming R3_WEB_SEARCH, and is still listed', async () => {
    const mcp = await appWith({});
    const error = await fails(mcp, 'web_search', { query: 'tides' }, 'TOOL_UNAVAILABLE');
    expect(error.details).toEqual({ setting: 'R3_WEB_SEARCH' });
    expect((await mcp.listTools()).tools.map((tool) => tool.name)).toContain('web_search');
    // Bad arguments are still bad arguments.
    await fails(mcp, 'web_search', { query: '' }, 'VALIDATION_FAILED');
    expect(apps.at(-1)?.app.agentTools.get('web_search')?.idempotency).toBe('safe');
  });
});
