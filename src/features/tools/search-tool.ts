/**
 * `web_search` (docs/mcp.md#built-in-tools): a query answered by the backend `R3_WEB_SEARCH` names — a
 * SearXNG instance's JSON API (`GET <base>/search?q=…&format=json`) or Brave's Search API
 * (`GET <base>/web/search?q=…&count=…` with `X-Subscription-Token`) — as `{results: [{title, url,
 * snippet}]}`, snippets as plain text. Unset: TOOL_UNAVAILABLE. The backend is the operator's choice,
 * so it is not put through the SSRF guard (a SearXNG on the private network is the usual set-up).
 */
import { parseHTML } from 'linkedom';
import { z } from 'zod';
import { access } from '../../platform/auth/guard.js';
import type { WebSearchConfig } from '../../platform/config.js';
import { ApiError, toolFailed, toolTimeout, toolUnavailable } from '../../platform/errors.js';
import { type AgentToolDef, defineAgentTool } from '../../platform/tools/registry.js';
import { DEFAULT_FETCH_TIMEOUT_MS, WEB_USER_AGENT } from './web-fetch.js';

/** Results answered when `limit` is not given. */
const DEFAULT_LIMIT = 5;

const webSearchArgs = z.strictObject({
  query: z.string().trim().min(1).max(400).describe('What to search the web for.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(10)
    .optional()
    .describe(`Results answered at most (default ${DEFAULT_LIMIT}, max 10).`),
});

const webSearchResult = z.object({
  results: z.array(z.object({ title: z.string(), url: z.string(), snippet: z.string() })),
});

type SearchResult = z.output<typeof webSearchResult>['results'][number];

const searxngAnswer = z.object({
  results: z.array(
    z.object({
      url: z.string(),
      title: z.string().nullish(),
      content: z.string().nullish(),
    }),
  ),
});

const braveAnswer = z.object({
  web: z
    .object({
      results: z.array(
        z.object({
          url: z.string(),
          title: z.string().nullish(),
          description: z.string().nullish(),
        }),
      ),
    })
    .nullish(),
});

/** Brave marks matches with `<strong>` and escapes entities: the text a reader sees. */
function plainText(markup: string | null | undefined): string {
  if (!markup) return '';
  if (!/[<&]/.test(markup)) return markup.trim();
  const { document } = parseHTML(`<!doctype html><html><body>${markup}</body></html>`);
  return (document.querySelector('body')?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

function isHttpUrl(value: string): boolean {
  return value.startsWith('http://') || value.startsWith('https://');
}

/** GETs `url` from the backend and answers its JSON; upstream failures are tool errors. */
async function backendJson(
  url: URL,
  headers: Record<string, string>,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  const timeout = AbortSignal.timeout(DEFAULT_FETCH_TIMEOUT_MS);
  const signals = signal ? AbortSignal.any([timeout, signal]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { Accept: 'application/json', 'User-Agent': WEB_USER_AGENT, ...headers },
      signal: signals,
    });
    const text = await response.text();
    if (!response.ok) {
      throw toolFailed(`The search backend answered ${response.status}.`, {
        reason: 'upstream_status',
        status: response.status,
      });
    }
    try {
      return JSON.parse(text);
    } catch {
      throw toolFailed('The search backend did not answer JSON.', { reason: 'bad_response' });
    }
  } catch (error) {
    if (timeout.aborted) {
      throw toolTimeout(`The search backend did not answer within ${DEFAULT_FETCH_TIMEOUT_MS} ms.`, {
        limitMs: DEFAULT_FETCH_TIMEOUT_MS,
      });
    }
    if (error instanceof ApiError) throw error;
    if (signal?.aborted) throw toolFailed('The search was cancelled.', { reason: 'aborted' });
    throw toolFailed('The search backend could not be reached.', { reason: 'network' });
  }
}

async function searchSearxng(
  baseUrl: string,
  query: string,
  signal: AbortSignal | undefined,
): Promise<SearchResult[]> {
  const url = new URL(`${baseUrl}/search`);
  url.searchParams.set('q', query);
  url.searchParams.set('format', 'json');
  const parsed = searxngAnswer.safeParse(await backendJson(url, {}, signal));
  if (!parsed.success) throw toolFailed('SearXNG answered an unexpected shape.', { reason: 'bad_response' });
  return parsed.data.results.map((r) => ({
    title: plainText(r.title),
    url: r.url,
    snippet: plainText(r.content),
  }));
}

async function searchBrave(
  config: { baseUrl: string; apiKey: string },
  query: string,
  limit: number,
  signal: AbortSignal | undefined,
): Promise<SearchResult[]> {
  const url = new URL(`${config.baseUrl}/web/search`);
  url.searchParams.set('q', query);
  url.searchParams.set('count', String(limit));
  const parsed = braveAnswer.safeParse(
    await backendJson(url, { 'X-Subscription-Token': config.apiKey }, signal),
  );
  if (!parsed.success) throw toolFailed('Brave answered an unexpected shape.', { reason: 'bad_response' });
  return (parsed.data.web?.results ?? []).map((r) => ({
    title: plainText(r.title),
    url: r.url,
    snippet: plainText(r.description),
  }));
}

/** `web_search` over the configured backend (undefined: every call is TOOL_UNAVAILABLE). */
export function webSearchTool(config: WebSearchConfig | undefined): AgentToolDef {
  return defineAgentTool({
    name: 'web_search',
    title: 'Search the web',
    group: 'builtin',
    description:
      'Searches the web and answers {results: [{title, url, snippet}]}, best first, at most `limit` ' +
      `(default ${DEFAULT_LIMIT}, max 10). Read a result with fetch_url.`,
    args: webSearchArgs,
    result: webSearchResult,
    idempotency: 'safe',
    uses: ['run', 'mcp'],
    access: access.invoke,
    hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    async execute(args, call) {
      if (!config) {
        throw toolUnavailable('web_search is not configured on this deployment (set R3_WEB_SEARCH).', {
          setting: 'R3_WEB_SEARCH',
        });
      }
      const limit = args.limit ?? DEFAULT_LIMIT;
      const found =
        config.backend === 'searxng'
          ? await searchSearxng(config.baseUrl, args.query, call.signal)
          : await searchBrave(config, args.query, limit, call.signal);
      return { results: found.filter((r) => isHttpUrl(r.url)).slice(0, limit) };
    },
  });
}
