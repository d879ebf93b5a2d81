/**
 * `fetch_url` and `crawl_site` (docs/mcp.md "Built-in tools") over MCP with the official SDK client, against local
 * web sites on real sockets: HTML read as Markdown, text and JSON as they came, redirects followed
 * (at most 5), every hop through the SSRF guard (a redirect to 127.0.0.1 is refused unless
 * R3_TOOLS_ALLOW_PRIVATE), a body that never ends cut at the cap, robots.txt honoured, bad arguments
 * refused with VALIDATION_FAILED.
 */
import { gzipSync } from 'node:zlib';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebFetcher } from '../../../src/features/tools/web-fetch.js';
import { type ApiError, ApiError as ApiErrorClass } from '../../../src/platform/errors.js';
import { checkTarget } from '../../../src/platform/net/ssrf.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { connectHttp, fails, ok } from '../../helpers/mcp.js';
import { html, page, redirect, startWebSite, type WebSite } from '../../helpers/web-server.js';

const ARTICLE = html(
  'Tides explained',
  `<nav><a href="/">Home</a> <a href="/about">About</a></nav>
   <article><h1>Tides explained</h1>
   <p>The tide rises and falls twice a day because the moon's gravity pulls on the oceans, and the
   earth turns beneath the bulge of water that this pull raises on either side of the planet.</p>
   <h2>Spring tides</h2>
   <p>When sun and moon line up the pulls add up: <strong>spring tides</strong> are the highest. Read
   <a href="neap.html">about neap tides</a> next, or <a href="https://other.example/moon">the moon</a>.</p>
   <ul><li>High water</li><li>Low water</li></ul>
   <script>document.write("tracking")</script></article>
   <footer>© Tide tables Inc.</footer>`,
);

let site: WebSite;
let t: TestApp;
let mcp: Client;

beforeAll(async () => {
  site = await startWebSite({
    '/docs/tides.html': page(ARTICLE),
    '/plain.txt': page('line one\nline two\n', 'text/plain; charset=utf-8'),
    '/data.json': page('{"a": [1, 2, 3], "b": "ü"}', 'application/json'),
    '/latin1.txt': page(Buffer.from('caf\xe9 cr\xe8me', 'latin1'), 'text/plain; charset=iso-8859-1'),
    '/gzip.html': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      res.end(
        gzipSync(html('Zipped', '<article><p>Compressed content comes through decoded.</p></article>')),
      );
    },
    '/missing.html': page(html('Not here', '<p>No such page.</p>'), 'text/html', 404),
    '/image.png': page(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]), 'image/png'),
    '/r1': redirect('/r2', 301),
    '/r2': redirect('/r3', 302),
    '/r3': redirect('/r4', 303),
    '/r4': redirect('/r5', 307),
    '/r5': redirect('/docs/tides.html#top', 308),
    '/r0': redirect('/r1'),
    '/to-file': redirect('file:///etc/passwd'),
    '/to-ftp': redirect('ftp://127.0.0.1/x'),
    '/to-metadata': redirect('http://169.254.169.254/latest/meta-data/iam/security-credentials/'),
    '/endless': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(64 * 1024);
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    },
  });
  t = await startTestApp({ R3_TOOLS_ALLOW_PRIVATE: 'true' });
  const owner = await t.token({ org: 'acme', scopes: ['read:all', 'run:invoke'] });
  mcp = await connectHttp(t.url, owner.token);
});
afterAll(async () => {
  await mcp?.close();
  await t?.close();
  await site?.close();
});

describe('fetch_url', () => {
  it('reads an HTML page as Markdown: main content, title, absolute links, no scripts or chrome', async () => {
    const url = `${site.url}/docs/tides.html`;
    const body = await ok(mcp, 'fetch_url', { url });
    expect(body).toMatchObject({
      url,
      finalUrl: url,
      status: 200,
      contentType: 'text/html; charset=utf-8',
      title: 'Tides explained',
      truncated: false,
    });
    expect(body.text).toContain("The tide rises and falls twice a day because the moon's gravity");
    expect(body.text).toContain('## Spring tides');
    expect(body.text).toContain('**spring tides**');
    expect(body.text).toContain(`[about neap tides](${site.url}/docs/neap.html)`);
    expect(body.text).toContain('[the moon](https://other.example/moon)');
    expect(body.text).toMatch(/^- {1,3}High water$/m);
    expect(body.text).not.toContain('tracking');
    expect(body.text).not.toContain('<');
    expect(site.requests.at(-1)?.headers['user-agent']).toMatch(/^r3\//);
  });

  it('answers text and JSON as their body, decoded by charset; gzip decoded', async () => {
    expect(await ok(mcp, 'fetch_url', { url: `${site.url}/plain.txt` })).toMatchObject({
      status: 200,
      contentType: 'text/plain; charset=utf-8',
      title: null,
      text: 'line one\nline two\n',
      truncated: false,
    });
    const json = await ok(mcp, 'fetch_url', { url: `${site.url}/data.json` });
    expect(JSON.parse(json.text)).toEqual({ a: [1, 2, 3], b: 'ü' });
    expect((await ok(mcp, 'fetch_url', { url: `${site.url}/latin1.txt` })).text).toBe('café crème');
    const zipped = await ok(mcp, 'fetch_url', { url: `${site.url}/gzip.html` });
    expect(zipped.title).toBe('Zipped');
    expect(zipped.text).toContain('Compressed content comes through decoded.');
  });

  it('answers an error page with its status; refuses content that is not text with TOOL_FAILED', async () => {
    const missing = await ok(mcp, 'fetch_url', { url: `${site.url}/missing.html` });
    expect(missing).toMatchObject({ status: 404, title: 'Not here' });
    expect(missing.text).toContain('No such page.');
    const error = await fails(mcp, 'fetch_url', { url: `${site.url}/image.png` }, 'TOOL_FAILED');
    expect(error.details).toEqual({ reason: 'unsupported_content_type', contentType: 'image/png' });
  });

  it('follows up to 5 redirects (fragment dropped) and fails past that with TOOL_FAILED', async () => {
    const body = await ok(mcp, 'fetch_url', { url: `${site.url}/r1` });
    expect(body).toMatchObject({
      url: `${site.url}/r1`,
      finalUrl: `${site.url}/docs/tides.html`,
      status: 200,
    });
    expect(body.title).toBe('Tides explained');
    const before = site.requests.length;
    const error = await fails(mcp, 'fetch_url', { url: `${site.url}/r0` }, 'TOOL_FAILED');
    expect(error.details).toEqual({ reason: 'too_many_redirects', maxRedirects: 5 });
    // r0 → r1 … r5: six answers read, the sixth redirect not followed.
    expect(site.requests.slice(before).map((r) => r.path)).toEqual([
      '/r0',
      '/r1',
      '/r2',
      '/r3',
      '/r4',
      '/r5',
    ]);
  });

  it('refuses a redirect to another scheme with VALIDATION_FAILED, even with private targets allowed', async () => {
    for (const [path, target] of [
      ['/to-file', 'file:///etc/passwd'],
      ['/to-ftp', 'ftp://127.0.0.1/x'],
    ]) {
      const error = await fails(mcp, 'fetch_url', { url: `${site.url}${path}` }, 'VALIDATION_FAILED');
      expect(error.details.issues).toEqual([
        {
          field: 'arguments.url',
          message: 'refused: unsupported_scheme',
          reason: 'unsupported_scheme',
          redirectedTo: target,
        },
      ]);
    }
  });

  it('refuses cloud metadata addresses, directly and through a redirect, even with private targets allowed', async () => {
    const cases: Array<[string, Record<string, string>]> = [
      ['http://169.254.169.254/latest/meta-data/', { reason: 'blocked_address', range: 'cloud_metadata' }],
      ['http://[fd00:ec2::254]/latest/meta-data/', { reason: 'blocked_address', range: 'cloud_metadata' }],
      ['http://[::ffff:a9fe:a9fe]/', { reason: 'blocked_address', range: 'cloud_metadata' }],
      ['http://169.254.10.1/', { reason: 'blocked_address', range: 'link_local' }],
      ['http://metadata.google.internal/computeMetadata/v1/', { reason: 'blocked_hostname' }],
      [
        `${site.url}/to-metadata`,
        {
          reason: 'blocked_address',
          range: 'cloud_metadata',
          redirectedTo: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
        },
      ],
    ];
    for (const [url, refusal] of cases) {
      const error = await fails(mcp, 'fetch_url', { url }, 'VALIDATION_FAILED');
      expect(error.details.issues, url).toEqual([
        { field: 'arguments.url', message: expect.any(String), ...refusal },
      ]);
    }
    const crawl = await fails(mcp, 'crawl_site', { url: 'http://169.254.169.254/' }, 'VALIDATION_FAILED');
    expect(crawl.details.issues[0]).toMatchObject({ reason: 'blocked_address', range: 'cloud_metadata' });
  });

  it('cuts a body that never ends at the cap (2 MiB by default, or maxBytes) with truncated: true', async () => {
    const capped = await ok(mcp, 'fetch_url', { url: `${site.url}/endless` });
    expect(capped.truncated).toBe(true);
    expect(capped.text.length).toBe(2 * 1024 * 1024);
    const small = await ok(mcp, 'fetch_url', { url: `${site.url}/endless`, maxBytes: 1000 });
    expect(small).toMatchObject({ status: 200, truncated: true, text: 'x'.repeat(1000) });
    // The server keeps serving meanwhile.
    expect((await t.request('GET', '/healthz')).status).toBe(200);
  });

  it('refuses bad arguments with VALIDATION_FAILED naming the field, fetching nothing', async () => {
    const before = site.requests.length;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'arguments.url'],
      [{ url: 'not a url' }, 'arguments.url'],
      [{ url: 'ftp://127.0.0.1/x' }, 'arguments.url'],
      [{ url: 'file:///etc/passwd' }, 'arguments.url'],
      [{ url: `${site.url}/plain.txt`, maxBytes: 0 }, 'arguments.maxBytes'],
      [{ url: `${site.url}/plain.txt`, maxBytes: 10 * 1024 * 1024 + 1 }, 'arguments.maxBytes'],
      [{ url: `${site.url}/plain.txt`, maxBytes: '100' }, 'arguments.maxBytes'],
      [{ url: `${site.url}/plain.txt`, extra: true }, 'arguments'],
    ];
    for (const [args, field] of cases) {
      const error = await fails(mcp, 'fetch_url', args, 'VALIDATION_FAILED');
      expect(error.details.issues[0].field, JSON.stringify(args)).toBe(field);
    }
    expect(site.requests.length).toBe(before);
  });

  it('needs run:invoke', async () => {
    const reader = await connectHttp(t.url, (await t.token({ org: 'acme', scopes: ['read:all'] })).token);
    await fails(reader, 'fetch_url', { url: `${site.url}/plain.txt` }, 'FORBIDDEN');
    await fails(reader, 'crawl_site', { url: `${site.url}/` }, 'FORBIDDEN');
    await reader.close();
  });

  it('is registered as safe to repeat (a read)', () => {
    for (const name of ['fetch_url', 'crawl_site']) {
      const tool = t.app.agentTools.get(name);
      expect(tool?.idempotency).toBe('safe');
      expect(tool?.uses).toEqual(['run', 'mcp']);
    }
  });
});

describe('the SSRF guard without R3_TOOLS_ALLOW_PRIVATE', () => {
  let strict: TestApp;
  let client: Client;
  beforeAll(async () => {
    strict = await startTestApp();
    client = await connectHttp(strict.url, (await strict.token({ org: 'acme' })).token);
  });
  afterAll(async () => {
    await client?.close();
    await strict?.close();
  });

  it('refuses loopback, private and metadata targets over MCP before connecting', async () => {
    const before = site.requests.length;
    const port = new URL(site.url).port;
    const cases: Array<[string, string, string | undefined]> = [
      [`${site.url}/plain.txt`, 'blocked_address', 'loopback'],
      [`http://localhost:${port}/plain.txt`, 'blocked_hostname', undefined],
      [`http://[::1]:${port}/`, 'blocked_address', 'loopback'],
      ['http://169.254.169.254/latest/meta-data/', 'blocked_address', 'cloud_metadata'],
      ['http://10.1.2.3/', 'blocked_address', 'private'],
    ];
    for (const [url, reason, range] of cases) {
      const error = await fails(client, 'fetch_url', { url }, 'VALIDATION_FAILED');
      expect(error.details.issues[0], url).toMatchObject({ field: 'arguments.url', reason });
      expect(error.details.issues[0].range).toBe(range);
    }
    const crawl = await fails(client, 'crawl_site', { url: `${site.url}/` }, 'VALIDATION_FAILED');
    expect(crawl.details.issues[0]).toMatchObject({ field: 'arguments.url', reason: 'blocked_address' });
    expect(site.requests.length).toBe(before);
  });
});

describe('the fetcher on every hop (real sockets)', () => {
  let hops: WebSite;
  beforeAll(async () => {
    hops = await startWebSite({
      '/start': (_req, res) => {
        res.writeHead(302, { location: `${site.url}/plain.txt` });
        res.end();
      },
      '/to-metadata': redirect('http://169.254.169.254/latest/meta-data/'),
      '/public-hop': redirect('/landing'),
      '/landing': page('public landing', 'text/plain'),
      '/hang': () => {},
      '/drip': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('first part;');
        const timer = setInterval(() => res.write('more;'), 50);
        res.on('close', () => clearInterval(timer));
      },
    });
  });
  afterAll(async () => {
    await hops?.close();
  });

  // `public.test` stands in for a public host (pinned to the local server); every other hop goes
  // through the real guard with private targets refused.
  const publicHost = (timeoutMs?: number) =>
    new WebFetcher({
      allowPrivate: false,
      ...(timeoutMs ? { timeoutMs } : {}),
      guard: async (url) => {
        const parsed = new URL(url);
        if (parsed.hostname === 'public.test')
          return { ok: true, url: parsed, address: '127.0.0.1', family: 4 };
        return checkTarget(url, { allowPrivate: false, allowPlainHttp: true });
      },
    });
  const publicUrl = (path: string) => `http://public.test:${new URL(hops.url).port}${path}`;
  const failure = async (promise: Promise<unknown>): Promise<ApiError> => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(error instanceof ApiErrorClass)) throw new Error(`expected an ApiError, got ${String(error)}`);
    return error;
  };

  it('follows a redirect between public hops, sending the Host of the URL', async () => {
    const fetched = await publicHost().get(publicUrl('/public-hop'), { maxBytes: 1000 });
    expect(fetched).toMatchObject({ status: 200, finalUrl: publicUrl('/landing'), truncated: false });
    expect(fetched.body.toString()).toBe('public landing');
    expect(hops.requests.at(-1)?.headers.host).toBe(`public.test:${new URL(hops.url).port}`);
  });

  it('refuses a redirect to 127.0.0.1 with VALIDATION_FAILED and never connects there', async () => {
    const before = site.requests.length;
    const error = await failure(publicHost().get(publicUrl('/start'), { maxBytes: 1000 }));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details.issues).toEqual([
      {
        field: 'arguments.url',
        message: 'refused: blocked_address (loopback)',
        reason: 'blocked_address',
        range: 'loopback',
        redirectedTo: `${site.url}/plain.txt`,
      },
    ]);
    expect(error.message).toMatch(/^A redirect to http:\/\/127\.0\.0\.1:\d+\/plain\.txt was refused/);
    expect(site.requests.length).toBe(before);
    const metadata = await failure(publicHost().get(publicUrl('/to-metadata'), { maxBytes: 1000 }));
    expect((metadata.details.issues as unknown[])[0]).toMatchObject({
      reason: 'blocked_address',
      range: 'cloud_metadata',
    });
  });

  it('answers TOOL_TIMEOUT when no answer comes in time, and cuts a body still arriving at the deadline', async () => {
    const hung = await failure(publicHost(300).get(publicUrl('/hang'), { maxBytes: 1000 }));
    expect(hung.code).toBe('TOOL_TIMEOUT');
    expect(hung.details).toEqual({ limitMs: 300 });
    const dripped = await publicHost(300).get(publicUrl('/drip'), { maxBytes: 1_000_000 });
    expect(dripped.truncated).toBe(true);
    expect(dripped.body.toString()).toMatch(/^first part;(more;)*$/);
  });

  it('answers TOOL_FAILED for a connection refused', async () => {
    const closed = await startWebSite({});
    const port = new URL(closed.url).port;
    await closed.close();
    const error = await failure(
      new WebFetcher({ allowPrivate: true }).get(`http://127.0.0.1:${port}/`, { maxBytes: 10 }),
    );
    expect(error.code).toBe('TOOL_FAILED');
    expect(error.details).toEqual({ reason: 'network', code: 'ECONNREFUSED' });
  });
});

describe('crawl_site', () => {
  let shop: WebSite;
  const pages = (bodies: Record<string, string>) =>
    Object.fromEntries(Object.entries(bodies).map(([path, body]) => [path, page(html(path, body))]));

  beforeAll(async () => {
    shop = await startWebSite({
      '/robots.txt': page('User-agent: *\nDisallow: /\n\nUser-agent: r3\nDisallow: /private\n', 'text/plain'),
      ...pages({
        '/': '<p>Home page.</p><a href="/a">A</a> <a href="/b">B</a> <a href="/private/x">secret</a> <a href="https://other.example/">other</a> <a href="/a#frag">A again</a>',
        '/a': '<p>Page A.</p><a href="/a/deep">deeper</a> <a href="/">home</a>',
        '/b': '<p>Page B.</p><a href="/moved">moved</a>',
        '/a/deep': '<p>Deep page.</p><a href="/a/deeper">deeper still</a>',
        '/a/deeper': '<p>Too deep.</p>',
        '/private/x': '<p>Never read.</p>',
        '/landing': '<p>Landing.</p>',
      }),
      '/moved': redirect('/landing'),
    });
  });
  afterAll(async () => {
    await shop?.close();
  });

  it('reads the origin breadth-first, honouring robots.txt for r3 and the depth limit', async () => {
    const body = await ok(mcp, 'crawl_site', { url: `${shop.url}/` });
    expect(body.pages.map((p: { url: string }) => p.url.slice(shop.url.length))).toEqual([
      '/',
      '/a',
      '/b',
      '/a/deep',
      '/landing',
    ]);
    expect(body.pages[1]).toEqual({
      url: `${shop.url}/a`,
      title: '/a',
      text: expect.stringContaining('Page A.'),
    });
    expect(body.skipped).toEqual(
      expect.arrayContaining([
        { url: `${shop.url}/private/x`, reason: 'robots_txt' },
        { url: 'https://other.example/', reason: 'other_origin' },
        { url: `${shop.url}/a/deeper`, reason: 'max_depth' },
      ]),
    );
    expect(body.skipped).toHaveLength(3);
    expect(shop.requests.map((r) => r.path)).not.toContain('/private/x');
    expect(shop.requests.map((r) => r.path)).not.toContain('/a/deeper');
    expect(shop.requests.filter((r) => r.path === '/a')).toHaveLength(1);
  });

  it('stops at maxPages and at maxDepth 0', async () => {
    const two = await ok(mcp, 'crawl_site', { url: `${shop.url}/`, maxPages: 2 });
    expect(two.pages.map((p: { url: string }) => p.url)).toEqual([`${shop.url}/`, `${shop.url}/a`]);
    expect(two.skipped).toEqual(expect.arrayContaining([{ url: `${shop.url}/b`, reason: 'max_pages' }]));
    const one = await ok(mcp, 'crawl_site', { url: `${shop.url}/a`, maxDepth: 0 });
    expect(one.pages.map((p: { url: string }) => p.url)).toEqual([`${shop.url}/a`]);
    expect(one.skipped).toEqual([
      { url: `${shop.url}/a/deep`, reason: 'max_depth' },
      { url: `${shop.url}/`, reason: 'max_depth' },
    ]);
  });

  it('reads nothing when robots.txt fails (5xx), everything when there is none (404)', async () => {
    const down = await startWebSite({
      '/robots.txt': page('oops', 'text/plain', 503),
      '/': page(html('home', '<p>Home.</p>')),
    });
    const blocked = await ok(mcp, 'crawl_site', { url: `${down.url}/` });
    expect(blocked).toEqual({ pages: [], skipped: [{ url: `${down.url}/`, reason: 'robots_txt' }] });
    expect(down.requests.map((r) => r.path)).toEqual(['/robots.txt']);
    await down.close();
    const open = await startWebSite({ '/': page(html('home', '<p>Home.</p><a href="/x">x</a>')) });
    const read = await ok(mcp, 'crawl_site', { url: `${open.url}/` });
    expect(read.pages.map((p: { url: string }) => p.url)).toEqual([`${open.url}/`]);
    expect(read.skipped).toEqual([{ url: `${open.url}/x`, reason: 'http_404' }]);
    await open.close();
  });

  it('refuses bad arguments with VALIDATION_FAILED', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'arguments.url'],
      [{ url: 'mailto:a@b.c' }, 'arguments.url'],
      [{ url: `${shop.url}/`, maxPages: 51 }, 'arguments.maxPages'],
      [{ url: `${shop.url}/`, maxPages: 0 }, 'arguments.maxPages'],
      [{ url: `${shop.url}/`, maxDepth: -1 }, 'arguments.maxDepth'],
      [{ url: `${shop.url}/`, maxDepth: 1.5 }, 'arguments.maxDepth'],
    ];
    for (const [args, field] of cases) {
      const error = await fails(mcp, 'crawl_site', args, 'VALIDATION_FAILED');
      expect(error.details.issues[0].field, JSON.stringify(args)).toBe(field);
    }
  });
});
