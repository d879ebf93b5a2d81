/**
 * JSON (and text) over HTTP for the REST connectors (HubSpot, Zoom): one attempt is bounded by a
 * timeout, and an attempt that timed out, failed on the network, got a 5xx or a 429 is tried again
 * after a backoff — the server's `Retry-After` when it sends one, else exponential with jitter.
 *
 * Unlike the model providers' client, a timed-out attempt is retried: a sync reads thousands of
 * pages, and one slow answer must not fail it. A `Retry-After` longer than `maxDelayMs` is not waited
 * out inside the request: it ends it with `RATE_LIMITED` and the wait, so the caller (a sync job)
 * can come back later instead of holding a worker.
 */
import { activeTraceparent } from '../../platform/tracing/tracing.js';
import { ConnectorError } from './errors.js';

/** How requests are retried. */
export interface RetryPolicy {
  /** Retries after the first attempt (default 4). */
  maxRetries?: number;
  /** First backoff step, doubled per retry (default 500 ms). */
  baseDelayMs?: number;
  /** Cap of a backoff step and the longest `Retry-After` waited out (default 30 s). */
  maxDelayMs?: number;
  /** Waits `ms` (tests inject a fast one); rejects when `signal` fires. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source in [0, 1). */
  random?: () => number;
}

/** Settings of one upstream API. */
export interface HttpClientOptions {
  /** Names the upstream in messages ("HubSpot"). */
  name: string;
  /** Base URL paths are resolved against (`https://api.hubapi.com`). */
  baseUrl: string;
  /** The `Authorization` header value. */
  authorization: string;
  /** Bound on one attempt, reading the body included (default 15 s). */
  timeoutMs?: number;
  retry?: RetryPolicy;
  fetch?: typeof fetch;
  /** Refuses a target before anything is sent (the SSRF guard); throws to refuse. */
  guard?: (url: URL) => Promise<void>;
  /** The upstream's own message from an error answer (its JSON body, or the text when not JSON). */
  errorMessage?: (status: number, body: unknown, text: string) => string | undefined;
}

/** One request. */
export interface HttpCall {
  method?: string;
  /** A path under the base URL, or an absolute URL of the same site (download links). */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  signal?: AbortSignal;
}

/** A client of one upstream API. */
export interface HttpClient {
  /** Sends `call` and parses the 2xx answer as JSON; throws `ConnectorError` otherwise. */
  json<T>(call: HttpCall): Promise<T>;
  /** Sends `call` and returns the 2xx answer's text; throws `ConnectorError` otherwise. */
  text(call: HttpCall): Promise<string>;
}

const DEFAULTS = { timeoutMs: 15_000, maxRetries: 4, baseDelayMs: 500, maxDelayMs: 30_000 };

/** The wait a 429/503 asks for in ms: `Retry-After` as seconds or an HTTP date; undefined when absent. */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const header = headers.get('retry-after')?.trim();
  if (!header) return undefined;
  if (/^\d+(\.\d+)?$/.test(header)) return Number(header) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Backoff before retry `n` (0-based): half of `min(max, base·2^n)` fixed, up to the other half random. */
export function backoffMs(n: number, policy: RetryPolicy = {}): number {
  const exp = Math.min(
    policy.maxDelayMs ?? DEFAULTS.maxDelayMs,
    (policy.baseDelayMs ?? DEFAULTS.baseDelayMs) * 2 ** n,
  );
  return Math.round(exp / 2 + (policy.random ?? Math.random)() * (exp / 2));
}

/** `setTimeout` as a promise that rejects with the signal's reason when it fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Whether `url` is on the API's site: same host, or a sibling under the API host's parent domain. */
export function sameSite(url: URL, base: URL): boolean {
  if (url.protocol !== base.protocol) return false;
  if (url.host === base.host) return true;
  const labels = base.hostname.split('.');
  if (labels.length < 3) return false;
  const parent = labels.slice(1).join('.');
  return url.hostname === parent || url.hostname.endsWith(`.${parent}`);
}

type Outcome =
  | { kind: 'answer'; status: number; headers: Headers; text: string }
  | { kind: 'timeout' }
  | { kind: 'network'; error: unknown };

/** Creates a client of one upstream API. */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const policy = options.retry ?? {};
  const maxRetries = policy.maxRetries ?? DEFAULTS.maxRetries;
  const maxDelayMs = policy.maxDelayMs ?? DEFAULTS.maxDelayMs;
  const wait = policy.sleep ?? sleep;
  const doFetch = options.fetch ?? fetch;

  function urlOf(call: HttpCall): URL {
    const url = /^https?:\/\//.test(call.path)
      ? new URL(call.path)
      : new URL(call.path.replace(/^\//, ''), base);
    if (!sameSite(url, base)) {
      throw new ConnectorError(
        'BAD_RESPONSE',
        `${options.name} linked to ${url.origin}, outside its API's site`,
      );
    }
    for (const [key, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url;
  }

  async function attempt(url: URL, call: HttpCall): Promise<Outcome> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error('attempt timed out'));
    }, timeoutMs);
    const onAbort = () => controller.abort(call.signal?.reason);
    call.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const headers: Record<string, string> = {
        authorization: options.authorization,
        accept: 'application/json, text/vtt, text/plain;q=0.9, */*;q=0.1',
      };
      // Inside a traced call (an MCP tool, a request), the upstream sees its trace.
      const parent = activeTraceparent();
      if (parent) headers.traceparent = parent;
      const init: RequestInit = {
        method: call.method ?? 'GET',
        headers,
        signal: controller.signal,
        redirect: 'error',
      };
      if (call.body !== undefined) {
        headers['content-type'] = 'application/json';
        init.body = JSON.stringify(call.body);
      }
      const response = await doFetch(url, init);
      const text = await response.text();
      return { kind: 'answer', status: response.status, headers: response.headers, text };
    } catch (error) {
      if (call.signal?.aborted) throw call.signal.reason;
      return timedOut ? { kind: 'timeout' } : { kind: 'network', error };
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', onAbort);
    }
  }

  function failure(status: number, text: string, headers: Headers): ConnectorError {
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: the text is the message.
    }
    const said = options.errorMessage?.(status, body, text) ?? (text.slice(0, 300) || `HTTP ${status}`);
    const message = `${options.name} answered ${status}: ${said}`;
    if (status === 401 || status === 403) return new ConnectorError('AUTH_FAILED', message, { status });
    if (status === 404) return new ConnectorError('NOT_FOUND', message, { status });
    if (status === 429) {
      const after = retryAfterMs(headers);
      return new ConnectorError('RATE_LIMITED', message, {
        status,
        ...(after !== undefined ? { retryAfterMs: after } : {}),
      });
    }
    if (status >= 500) return new ConnectorError('UNAVAILABLE', message, { status });
    return new ConnectorError('REJECTED', message, { status });
  }

  async function send(call: HttpCall): Promise<string> {
    const url = urlOf(call);
    await options.guard?.(url);
    for (let n = 0; ; n++) {
      if (call.signal?.aborted) throw call.signal.reason;
      const outcome = await attempt(url, call);
      if (outcome.kind === 'answer' && outcome.status >= 200 && outcome.status < 300) return outcome.text;
      let delay: number;
      if (outcome.kind === 'answer') {
        const retryable = outcome.status === 429 || outcome.status >= 500;
        const error = failure(outcome.status, outcome.text, outcome.headers);
        if (!retryable || n >= maxRetries) throw error;
        const asked = retryAfterMs(outcome.headers);
        if (asked !== undefined && asked > maxDelayMs) throw error;
        delay = asked ?? backoffMs(n, policy);
      } else {
        if (n >= maxRetries) {
          throw outcome.kind === 'timeout'
            ? new ConnectorError(
                'TIMEOUT',
                `${options.name} did not answer within ${timeoutMs} ms (${n + 1} attempts)`,
              )
            : new ConnectorError(
                'UNAVAILABLE',
                `${options.name} is unreachable: ${describe(outcome.error)}`,
                {},
                {
                  cause: outcome.error,
                },
              );
        }
        delay = backoffMs(n, policy);
      }
      await wait(delay, call.signal);
    }
  }

  return {
    async json<T>(call: HttpCall): Promise<T> {
      const text = await send(call);
      try {
        return (text === '' ? null : JSON.parse(text)) as T;
      } catch {
        throw new ConnectorError('BAD_RESPONSE', `${options.name} answered with a body that is not JSON`);
      }
    },
    text: send,
  };
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
