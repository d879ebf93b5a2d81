/**
 * The web built-ins (docs/mcp.md#built-in-tools): `fetch_url` (one page as readable Markdown) and
 * `crawl_site` (same-origin, breadth-first, robots.txt honoured), both through the SSRF-guarded `WebFetcher`.
 * Reads with no effect, so `safe` to run again after a crash; over MCP they need `run:invoke`, like
 * every built-in (they act on the caller's behalf on the network).
 */
import robotsParserModule from 'robots-parser';
import { z } from 'zod';
import { access } from '../../platform/auth/guard.js';
import { ApiError, toolFailed } from '../../platform/errors.js';
import { type AgentToolDef, defineAgentTool } from '../../platform/tools/registry.js';
import type { PageReader } from './page-reader.js';
import { DEFAULT_FETCH_MAX_BYTES, type FetchedResponse, type WebFetcher } from './web-fetch.js';
import { contentKind, decodeBody, type ReadPage } from './web-page.js';

/** Largest `maxBytes` a caller may ask of `fetch_url`. */
const MAX_FETCH_BYTES = 10 * 1024 * 1024;
/** robots.txt is read up to this many bytes (RFC 9309 asks crawlers to read at least 500 KiB). */
const ROBOTS_MAX_BYTES = 512 * 1024;
/** The user agent robots.txt groups are matched against. */
const ROBOTS_AGENT = 'r3';
/** Entries kept in `crawl_site`'s `skipped`. */
const MAX_SKIPPED = 200;

const httpUrl = z
  .string()
  .max(2048)
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return url.protocol === 'http:' || url.protocol === 'https:';
      } catch {
        return false;
      }
    },
    { message: 'must be an absolute http or https URL' },
  );

const fetchUrlArgs = z.strictObject({
  url: httpUrl.describe('The http(s) URL to fetch.'),
  maxBytes: z
    .number()
    .int()
    .min(1)
    .max(MAX_FETCH_BYTES)
    .optional()
    .describe(`Body bytes read at most (default ${DEFAULT_FETCH_MAX_BYTES}, 2 MiB); a longer body is cut.`),
});

const fetchUrlResult = z.object({
  url: z.string(),
  finalUrl: z.string(),
  status: z.number().int(),
  contentType: z.string(),
  title: z.string().nullable(),
  text: z.string(),
  truncated: z.boolean(),
});

const crawlSiteArgs = z.strictObject({
  url: httpUrl.describe('Where the crawl starts; only pages of its origin are read.'),
  maxPages: z.number().int().min(1).max(50).optional().describe('Pages read at most (default 10, max 50).'),
  maxDepth: z
    .number()
    .int()
    .min(0)
    .max(10)
    .optional()
    .describe('Links followed from the start page at most (default 2; 0 reads the start page only).'),
});

const crawlSiteResult = z.object({
  pages: z.array(z.object({ url: z.string(), title: z.string().nullable(), text: z.string() })),
  skipped: z.array(z.object({ url: z.string(), reason: z.string() })),
});

/** A fetched response as a page: HTML read as Markdown, text as is; anything else is TOOL_FAILED. */
async function pageOf(reader: PageReader, response: FetchedResponse): Promise<ReadPage> {
  const kind = contentKind(response.contentType, response.body);
  if (kind === 'other') {
    throw toolFailed(`${response.finalUrl.slice(0, 200)} is ${response.contentType}, not text or HTML.`, {
      reason: 'unsupported_content_type',
      contentType: response.contentType,
    });
  }
  const text = decodeBody(response.contentType, response.body, kind === 'html');
  return kind === 'html' ? reader.read(text, response.finalUrl) : { title: null, text, links: [] };
}

/** robots-parser's CommonJS export (its typings declare it as an ES default export). */
const robotsParser = robotsParserModule as unknown as (
  url: string,
  contents: string,
) => { isAllowed(url: string, userAgent?: string): boolean | undefined };

/** A robots.txt verdict for one origin. */
type Robots = (url: string) => boolean;

async function robotsOf(
  fetcher: WebFetcher,
  origin: string,
  signal: AbortSignal | undefined,
): Promise<Robots> {
  const robotsUrl = `${origin}/robots.txt`;
  let response: FetchedResponse;
  try {
    response = await fetcher.get(robotsUrl, { maxBytes: ROBOTS_MAX_BYTES, signal, accept: 'text/plain' });
  } catch (error) {
    // RFC 9309: robots.txt unreachable (a failed connection, a timeout) means nothing may be crawled.
    if (error instanceof ApiError && error.code !== 'VALIDATION_FAILED') return () => false;
    throw error;
  }
  if (response.status >= 500) return () => false;
  // 4xx (none there): everything may be crawled; a redirect off the origin is treated the same way.
  if (response.status >= 400 || new URL(response.finalUrl).origin !== origin) return () => true;
  const robots = robotsParser(robotsUrl, response.body.toString('utf8'));
  return (url) => robots.isAllowed(url, ROBOTS_AGENT) !== false;
}

function skipReason(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'VALIDATION_FAILED') return 'refused';
    if (error.code === 'TOOL_TIMEOUT') return 'timeout';
    const reason = error.details.reason;
    return typeof reason === 'string' ? reason : 'failed';
  }
  return 'failed';
}

/** `fetch_url` and `crawl_site` over `fetcher`, HTML read by `reader`. */
export function webTools(deps: { fetcher: WebFetcher; reader: PageReader }): AgentToolDef[] {
  const { fetcher, reader } = deps;
  return [
    defineAgentTool({
      name: 'fetch_url',
      title: 'Fetch a web page',
      group: 'builtin',
      description:
        'Fetches an http(s) URL and answers {url, finalUrl, status, contentType, title, text, truncated}: ' +
        'for HTML, `text` is the readable main content as Markdown (links absolute); for text and JSON, ' +
        'the body. Redirects are followed (at most 5); loopback and private addresses are refused on every ' +
        'hop; 10 s; at most `maxBytes` (2 MiB) of body, a longer one is cut and `truncated` is true.',
      args: fetchUrlArgs,
      result: fetchUrlResult,
      idempotency: 'safe',
      uses: ['run', 'mcp'],
      access: access.invoke,
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      async execute(args, call) {
        const response = await fetcher.get(args.url, {
          maxBytes: args.maxBytes ?? DEFAULT_FETCH_MAX_BYTES,
          signal: call.signal,
        });
        const page = await pageOf(reader, response);
        return {
          url: response.url,
          finalUrl: response.finalUrl,
          status: response.status,
          contentType: response.contentType,
          title: page.title,
          text: page.text,
          truncated: response.truncated,
        };
      },
    }),
    defineAgentTool({
      name: 'crawl_site',
      title: 'Crawl a web site',
      group: 'builtin',
      description:
        'Reads a site breadth-first from `url`, following links of the same origin only, and answers ' +
        '{pages: [{url, title, text}], skipped: [{url, reason}]} — each page as fetch_url reads it. ' +
        'Honours robots.txt (user agent r3). At most `maxPages` pages (10, max 50) and `maxDepth` links ' +
        'deep (2).',
      args: crawlSiteArgs,
      result: crawlSiteResult,
      idempotency: 'safe',
      uses: ['run', 'mcp'],
      access: access.invoke,
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      async execute(args, call) {
        const maxPages = args.maxPages ?? 10;
        const maxDepth = args.maxDepth ?? 2;
        const start = new URL(args.url);
        start.hash = '';
        const origin = start.origin;
        const pages: Array<{ url: string; title: string | null; text: string }> = [];
        const skipped: Array<{ url: string; reason: string }> = [];
        const skip = (url: string, reason: string): void => {
          if (skipped.length < MAX_SKIPPED) skipped.push({ url, reason });
        };
        // A refused origin (loopback, a bad scheme on a redirect of robots.txt) is the caller's error.
        const allowed = await robotsOf(fetcher, origin, call.signal);
        const seen = new Set<string>([start.href]);
        const read = new Set<string>();
        let level = [start.href];
        for (let depth = 0; level.length > 0; depth++) {
          const next: string[] = [];
          for (const url of level) {
            if (pages.length >= maxPages) {
              skip(url, 'max_pages');
              continue;
            }
            if (!allowed(url)) {
              skip(url, 'robots_txt');
              continue;
            }
            let page: ReadPage;
            let finalUrl: string;
            try {
              const response = await fetcher.get(url, {
                maxBytes: DEFAULT_FETCH_MAX_BYTES,
                signal: call.signal,
              });
              finalUrl = response.finalUrl;
              if (new URL(finalUrl).origin !== origin) {
                skip(url, 'redirected_off_origin');
                continue;
              }
              if (finalUrl !== url && !allowed(finalUrl)) {
                skip(url, 'robots_txt');
                continue;
              }
              if (read.has(finalUrl)) {
                skip(url, 'duplicate');
                continue;
              }
              if (response.status >= 400) {
                skip(url, `http_${response.status}`);
                continue;
              }
              page = await pageOf(reader, response);
            } catch (error) {
              if (call.signal?.aborted) throw error;
              if (url === start.href && error instanceof ApiError && error.code === 'VALIDATION_FAILED')
                throw error;
              skip(url, skipReason(error));
              continue;
            }
            read.add(finalUrl);
            seen.add(finalUrl);
            pages.push({ url: finalUrl, title: page.title, text: page.text });
            for (const link of page.links) {
              if (seen.has(link)) continue;
              seen.add(link);
              if (new URL(link).origin !== origin) skip(link, 'other_origin');
              else if (depth + 1 > maxDepth) skip(link, 'max_depth');
              else next.push(link);
            }
          }
          level = next;
        }
        return { pages, skipped };
      },
    }),
  ];
}
