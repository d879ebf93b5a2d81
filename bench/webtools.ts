/**
 * bench:webtools — what the web built-ins cost on top of the network (docs/mcp.md "Built-in tools"): `fetch_url` of a
 * ~60 KB article (SSRF check, pinned connection, Readability + turndown) one at a time and 8 at a
 * time, the reading alone (linkedom → Readability → turndown, no socket), a never-ending body cut at
 * the 2 MiB cap, and `crawl_site` of a 50-page site. In-process against a local site on real sockets
 * (R3_TOOLS_ALLOW_PRIVATE's allowance, so 127.0.0.1 may be fetched); prints throughput and latency
 * percentiles.
 *
 *   npm run bench:webtools              BENCH_DURATION=10 (seconds per measurement)
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { PageReader } from '../src/features/tools/page-reader.js';
import { WebFetcher } from '../src/features/tools/web-fetch.js';
import { webTools } from '../src/features/tools/web-tools.js';
import { executeTool, type ToolCall } from '../src/platform/tools/registry.js';
import { DURATION_S, percentiles } from './lib.js';

const WORDS = 'tide moon harbour vessel current chart depth anchor beacon channel pilot swell'.split(' ');
const paragraph = (i: number) =>
  `<p>${Array.from({ length: 90 }, (_, j) => WORDS[(i * 7 + j) % WORDS.length]).join(' ')}.</p>`;
const ARTICLE = `<!doctype html><html><head><title>Harbour guide</title></head><body>
<nav>${Array.from({ length: 40 }, (_, i) => `<a href="/nav/${i}">Section ${i}</a>`).join(' ')}</nav>
<article><h1>Harbour guide</h1>${Array.from({ length: 100 }, (_, i) => `${i % 10 === 0 ? `<h2>Part ${i / 10}</h2>` : ''}${paragraph(i)}`).join('\n')}</article>
<footer>${'<a href="/legal">Legal</a> '.repeat(20)}</footer></body></html>`;

const sitePage = (n: number) =>
  `<!doctype html><html><head><title>Page ${n}</title></head><body><article><h1>Page ${n}</h1>${paragraph(n)}${paragraph(n + 1)}
  ${[2 * n + 1, 2 * n + 2].map((c) => `<a href="/p/${c}">page ${c}</a>`).join(' ')}</article></body></html>`;

const server = http.createServer((req, res) => {
  const path = req.url ?? '/';
  if (path === '/article') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(ARTICLE);
  } else if (path === '/endless') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = 'x'.repeat(64 * 1024);
    const pump = (): void => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  } else if (path === '/robots.txt') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('User-agent: *\nAllow: /\n');
  } else if (path.startsWith('/p/')) {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(sitePage(Number(path.slice(3))));
  } else {
    res.writeHead(404);
    res.end();
  }
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const reader = new PageReader();
const tools = webTools({ fetcher: new WebFetcher({ allowPrivate: true }), reader });
const tool = (name: string) => {
  const found = tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};
const call: ToolCall = {
  use: 'run',
  orgId: 1,
  actor: 'bench',
  agentSlug: null,
  apiTokenId: null,
  runId: null,
  missionRunId: null,
  callId: null,
  idempotencyKey: null,
  requestId: null,
  signal: undefined,
};

interface Row {
  label: string;
  ops: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
}
const rows: Row[] = [];

/** Runs `op` from `concurrency` loops for the bench duration; one latency sample per op. */
async function measure(label: string, concurrency: number, op: () => Promise<unknown>, seconds = DURATION_S) {
  const samples: number[] = [];
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        await op();
        samples.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const p = percentiles(samples);
  rows.push({
    label,
    ops: samples.length,
    perSecond: samples.length / elapsed,
    p50: p.p50,
    p99: p.p99,
    max: p.max,
  });
}

const fetchUrl = tool('fetch_url');
const crawlSite = tool('crawl_site');
// Warm up the paths (JIT, sockets) before measuring.
for (let i = 0; i < 20; i++) await executeTool(fetchUrl, { url: `${base}/article` }, call);

// The event loop's own delay while pages are fetched and read: what HTTP requests would wait.
const loopDelays: number[] = [];
let probing = true;
const probe = async (): Promise<void> => {
  while (probing) {
    const t0 = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 5));
    loopDelays.push(performance.now() - t0 - 5);
  }
};
const probed = probe();
await measure('read only (worker: linkedom+Readability+turndown)', 1, () =>
  reader.read(ARTICLE, `${base}/article`),
);
await measure('fetch_url article, 1 at a time', 1, () =>
  executeTool(fetchUrl, { url: `${base}/article` }, call),
);
await measure('fetch_url article, 8 at a time', 8, () =>
  executeTool(fetchUrl, { url: `${base}/article` }, call),
);
await measure('fetch_url never-ending body (2 MiB cut)', 1, () =>
  executeTool(fetchUrl, { url: `${base}/endless` }, call),
);
probing = false;
await probed;
await measure(
  'crawl_site 50 pages',
  1,
  () => executeTool(crawlSite, { url: `${base}/p/0`, maxPages: 50, maxDepth: 10 }, call),
  Math.max(DURATION_S, 5),
);

console.log(`\nweb tools, article ${(ARTICLE.length / 1024).toFixed(0)} KiB, ${DURATION_S} s per row`);
console.log(
  'label'.padEnd(44),
  'ops'.padStart(6),
  'ops/s'.padStart(9),
  'p50 ms'.padStart(9),
  'p99 ms'.padStart(9),
  'max ms'.padStart(9),
);
for (const row of rows) {
  console.log(
    row.label.padEnd(44),
    String(row.ops).padStart(6),
    row.perSecond.toFixed(1).padStart(9),
    row.p50.toFixed(2).padStart(9),
    row.p99.toFixed(2).padStart(9),
    row.max.toFixed(2).padStart(9),
  );
}
const delay = percentiles(loopDelays);
console.log(
  `event-loop delay while fetching and reading (5 ms timer): p50 ${delay.p50.toFixed(2)} ms, p99 ${delay.p99.toFixed(2)} ms, max ${delay.max.toFixed(2)} ms`,
);
await reader.close();
server.closeAllConnections();
server.close();
