/**
 * The web fetcher of `fetch_url` and `crawl_site` (docs/mcp.md#built-in-tools): a GET that follows redirects
 * by hand (at most 5), checks every hop with the webhook SSRF guard and connects to exactly the address
 * the guard approved (no second resolution, so DNS rebinding cannot slip through), one 10 s deadline
 * for the whole fetch, and a byte cap on the decoded body (a page that never ends is cut and marked
 * truncated). Plain http is allowed for public hosts; `R3_TOOLS_ALLOW_PRIVATE` lets loopback and
 * private ranges through (tests).
 */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { type ApiError, toolFailed, toolTimeout, validationFailed } from '../../platform/errors.js';
import {
  type ApprovedTarget,
  checkTarget,
  pinnedLookup,
  type RefusedTarget,
} from '../../platform/net/ssrf.js';

/** `User-Agent` of every request the web tools make (robots.txt is matched on `r3`). */
export const WEB_USER_AGENT = 'r3/1 (+https://github.com/r3; agent tools)';
/** Default body cap of one fetch: 2 MiB. */
export const DEFAULT_FETCH_MAX_BYTES = 2 * 1024 * 1024;
/** Default deadline of one fetch, redirects included. */
export const DEFAULT_FETCH_TIMEOUT_MS = 10_000;
/** Redirects followed before the fetch fails. */
export const MAX_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Approves or refuses one hop: `checkTarget` by default (tests put a stand-in for a public host). */
export type HopGuard = (url: string) => Promise<ApprovedTarget | RefusedTarget>;

export interface WebFetcherOptions {
  /** Lets loopback/private/reserved targets through (`R3_TOOLS_ALLOW_PRIVATE`). */
  allowPrivate: boolean;
  timeoutMs?: number;
  maxRedirects?: number;
  guard?: HopGuard;
}

/** One fetch's options. */
export interface FetchOptions {
  maxBytes: number;
  signal?: AbortSignal | undefined;
  /** The argument refusals name (`arguments.url`). */
  field?: string;
  accept?: string;
}

/** What a fetch answered: the last hop's response, its decoded body up to the cap. */
export interface FetchedResponse {
  url: string;
  finalUrl: string;
  status: number;
  /** The `Content-Type` header, '' when absent. */
  contentType: string;
  /** The last hop's response headers. */
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The body was cut: over the cap, past the deadline, or the connection ended early. */
  truncated: boolean;
}

interface HopResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
}

function refusal(field: string, hop: string, original: string, verdict: RefusedTarget): ApiError {
  const where = hop === original ? 'The URL' : `A redirect to ${hop.slice(0, 200)}`;
  const range = verdict.range ? ` (${verdict.range})` : '';
  return validationFailed(
    [
      {
        field,
        message: `refused: ${verdict.reason}${range}`,
        reason: verdict.reason,
        ...(verdict.range ? { range: verdict.range } : {}),
        ...(hop === original ? {} : { redirectedTo: hop.slice(0, 2048) }),
      },
    ],
    `${where} was refused: ${verdict.reason}${range}. Only http and https URLs of public hosts can be fetched.`,
  );
}

function decoder(
  encoding: string | undefined,
): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return undefined;
  }
}

function errorCode(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string' && code !== '') return code;
  return err instanceof Error ? err.message : String(err);
}

/** The fetcher (one per process; it keeps no connections between fetches). */
export class WebFetcher {
  private readonly timeoutMs: number;
  private readonly maxRedirects: number;
  private readonly guard: HopGuard;

  constructor(options: WebFetcherOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
    this.maxRedirects = options.maxRedirects ?? MAX_REDIRECTS;
    this.guard =
      options.guard ??
      ((url) => checkTarget(url, { allowPrivate: options.allowPrivate, allowPlainHttp: true }));
  }

  /**
   * GETs `url`, following redirects. Throws VALIDATION_FAILED for a refused hop (naming `field`),
   * TOOL_FAILED for too many redirects or a failed connection, TOOL_TIMEOUT when no answer came
   * before the deadline. A response that arrived but whose body did not finish in time is answered
   * with what came, `truncated: true`.
   */
  async get(url: string, options: FetchOptions): Promise<FetchedResponse> {
    const field = options.field ?? 'arguments.url';
    const deadline = Date.now() + this.timeoutMs;
    let hop = url;
    for (let redirects = 0; ; redirects++) {
      const verdict = await this.guard(hop);
      if (!verdict.ok) throw refusal(field, hop, url, verdict);
      const answer = await this.requestOnce(verdict, deadline, options);
      const location = answer.headers.location;
      if (REDIRECTS.has(answer.status) && typeof location === 'string' && location !== '') {
        if (redirects >= this.maxRedirects) {
          throw toolFailed(`${url} redirected more than ${this.maxRedirects} times.`, {
            reason: 'too_many_redirects',
            maxRedirects: this.maxRedirects,
          });
        }
        let next: URL;
        try {
          next = new URL(location, verdict.url);
        } catch {
          throw toolFailed(`${hop} redirected to an invalid URL.`, { reason: 'bad_redirect' });
        }
        next.hash = '';
        hop = next.href;
        continue;
      }
      const contentType = answer.headers['content-type'] ?? '';
      return {
        url,
        finalUrl: verdict.url.href,
        status: answer.status,
        contentType,
        headers: answer.headers,
        body: answer.body,
        truncated: answer.truncated,
      };
    }
  }

  private requestOnce(target: ApprovedTarget, deadline: number, options: FetchOptions): Promise<HopResponse> {
    const { url } = target;
    const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const isHttps = url.protocol === 'https:';
    const maxBytes = options.maxBytes;
    return new Promise<HopResponse>((resolve, reject) => {
      let settled = false;
      let req: http.ClientRequest | undefined;
      let head: { status: number; headers: http.IncomingHttpHeaders } | undefined;
      const chunks: Buffer[] = [];
      let kept = 0;
      const cleanup = (): void => {
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
      };
      const answer = (truncated: boolean): void => {
        if (settled || !head) return;
        cleanup();
        resolve({ ...head, body: Buffer.concat(chunks), truncated });
        req?.destroy();
      };
      const fail = (error: ApiError): void => {
        if (settled) return;
        cleanup();
        reject(error);
        req?.destroy();
      };
      const onAbort = (): void => fail(toolFailed('The fetch was cancelled.', { reason: 'aborted' }));
      // Past the deadline: what arrived is the answer (cut); nothing arrived is a timeout.
      const timer = setTimeout(
        () => {
          if (head) answer(true);
          else
            fail(
              toolTimeout(`${url.href.slice(0, 200)} did not answer within ${this.timeoutMs} ms.`, {
                limitMs: this.timeoutMs,
              }),
            );
        },
        Math.max(0, deadline - Date.now()),
      );
      if (options.signal?.aborted) {
        onAbort();
        return;
      }
      options.signal?.addEventListener('abort', onAbort, { once: true });

      const requestOptions: https.RequestOptions = {
        method: 'GET',
        host: hostname,
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        headers: {
          'User-Agent': WEB_USER_AGENT,
          Accept:
            options.accept ??
            'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5',
          'Accept-Encoding': 'gzip, deflate, br',
        },
        lookup: pinnedLookup(target.address, target.family),
        agent: false,
      };
      if (isHttps && isIP(hostname) === 0) requestOptions.servername = hostname;

      try {
        req = (isHttps ? https : http).request(requestOptions, (res) => {
          head = { status: res.statusCode ?? 0, headers: res.headers };
          if (REDIRECTS.has(head.status)) {
            answer(false);
            return;
          }
          const unzip = decoder(res.headers['content-encoding']);
          const body: Readable = unzip ? res.pipe(unzip) : res;
          body.on('data', (chunk: Buffer) => {
            if (settled) return;
            const room = maxBytes - kept;
            if (chunk.length <= room) {
              chunks.push(chunk);
              kept += chunk.length;
              return;
            }
            chunks.push(chunk.subarray(0, room));
            kept = maxBytes;
            answer(true);
          });
          body.on('end', () => answer(false));
          // A broken compressed stream or a reset connection: what came is the (cut) answer.
          body.on('error', () => answer(true));
          res.on('close', () => {
            if (!res.complete) answer(true);
          });
        });
      } catch (err) {
        fail(
          toolFailed(`Could not fetch ${url.href.slice(0, 200)}: ${errorCode(err)}`, { reason: 'network' }),
        );
        return;
      }
      req.on('error', (err) =>
        fail(
          toolFailed(`Could not fetch ${url.href.slice(0, 200)}: ${errorCode(err)}`, {
            reason: 'network',
            code: errorCode(err),
          }),
        ),
      );
      req.end();
    });
  }
}
