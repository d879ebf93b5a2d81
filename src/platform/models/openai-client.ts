/**
 * The official `openai` SDK client, configured the way every r3 client of an OpenAI-compatible
 * server uses it (chat completions, embeddings, images), and the mapping of its errors to
 * `ProviderError`.
 *
 * Retries are the SDK's (`maxRetries`; exponential backoff with jitter, `retry-after-ms` /
 * `Retry-After` honoured). A fetch wrapper in front of the SDK keeps r3's rules on top of it:
 * - only 429, 5xx and network failures are retried (the wrapper answers `x-should-retry`, which the
 *   SDK obeys), not 408/409;
 * - a `Retry-After` longer than `maxRetryAfterMs` ends the retries at once (waiting that long inside
 *   a run is worse than failing it);
 * - `timeoutMs` bounds one attempt, reading the body included, and a timed-out attempt is not
 *   retried (the timeout is the operator's bound on one call; retrying would multiply it);
 * - no `Authorization` header is sent without an api key (local servers often need none).
 * A caller's abort signal ends a call at once, even while the SDK waits to retry (`abortable`).
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { ProviderError } from './model-provider.js';

/** Settings of one SDK client. */
export interface OpenAIClientOptions {
  /** API root including the version segment, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey?: string;
  /** Bound on one attempt, reading the body included. */
  timeoutMs: number;
  /** Retries after the first attempt on 429, 5xx and network failures. */
  maxRetries: number;
  /** Longest `Retry-After` honoured; a longer one ends the retries. Default 30 s. */
  maxRetryAfterMs?: number;
  /** Names the client in error details. */
  provider: string;
  fetch?: typeof fetch;
}

const DEFAULT_MAX_RETRY_AFTER_MS = 30_000;
/** Set on the synthetic answer of a timed-out attempt, so its error maps to PROVIDER_TIMEOUT. */
const TIMEOUT_HEADER = 'x-r3-timed-out';
/** The attempt (1-based) an answer belongs to, for error details. */
const ATTEMPT_HEADER = 'x-r3-attempt';
const BODY_PREFIX = 500;

/** Whether an answer with this status is worth sending again. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/**
 * The wait the server asks for, in milliseconds: `retry-after-ms` (OpenAI's) first, then
 * `retry-after` as seconds or an HTTP date. `undefined` when absent or unreadable.
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const header = headers.get('retry-after');
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function attemptOf(init: RequestInit | undefined): number {
  const retries = new Headers(init?.headers).get('x-stainless-retry-count');
  const n = retries === null ? 0 : Number(retries);
  return Number.isFinite(n) ? n + 1 : 1;
}

/** The fetch the SDK calls: r3's retry and timeout rules, described at the top of this file. */
function guardedFetch(options: OpenAIClientOptions): typeof fetch {
  const base = options.fetch ?? fetch;
  const maxRetryAfter = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  return async (url, init) => {
    const attempt = attemptOf(init);
    const headers = new Headers(init?.headers);
    if (!options.apiKey) headers.delete('authorization');
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DOMException('attempt timed out', 'TimeoutError'));
    }, options.timeoutMs);
    const outer = init?.signal;
    const onAbort = (): void => controller.abort(outer?.reason);
    if (outer?.aborted) onAbort();
    outer?.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await base(url, { ...init, headers, signal: controller.signal });
      const text = await response.text();
      const out = new Headers(response.headers);
      out.delete('content-encoding');
      out.delete('content-length');
      out.set(ATTEMPT_HEADER, String(attempt));
      if (!response.ok) {
        const asked = parseRetryAfter(response.headers);
        const retry = isRetryableStatus(response.status) && !(asked !== undefined && asked > maxRetryAfter);
        out.set('x-should-retry', retry ? 'true' : 'false');
      }
      const empty = response.status === 204 || response.status === 304;
      return new Response(empty ? null : text, { status: response.status, headers: out });
    } catch (error) {
      if (timedOut && !outer?.aborted) {
        return new Response(JSON.stringify({ error: { message: 'timed out' } }), {
          status: 408,
          headers: {
            'content-type': 'application/json',
            'x-should-retry': 'false',
            [TIMEOUT_HEADER]: '1',
            [ATTEMPT_HEADER]: String(attempt),
          },
        });
      }
      throw error;
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    }
  };
}

/** The settings of a client of an OpenAI-compatible server, as its users take them (all but the URL optional). */
export interface OpenAIClientSettings {
  baseUrl: string;
  apiKey?: string;
  timeoutMs?: number;
  /** Default 3. */
  maxRetries?: number;
  maxRetryAfterMs?: number;
  fetch?: typeof fetch;
}

/** Complete client options from a user's settings, with its name and default timeout. */
export function clientOptions(
  settings: OpenAIClientSettings,
  provider: string,
  defaultTimeoutMs: number,
): OpenAIClientOptions {
  return {
    baseUrl: settings.baseUrl,
    timeoutMs: settings.timeoutMs ?? defaultTimeoutMs,
    maxRetries: settings.maxRetries ?? 3,
    provider,
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
    ...(settings.maxRetryAfterMs !== undefined ? { maxRetryAfterMs: settings.maxRetryAfterMs } : {}),
    ...(settings.fetch ? { fetch: settings.fetch } : {}),
  };
}

/**
 * Awaits an SDK call that was given `signal`, ending at once when `signal` aborts (rejecting with the
 * SDK's APIUserAbortError, which `toProviderError` turns into the signal's reason). The SDK stops an
 * attempt in flight on the signal, but its wait between retries (a `Retry-After` of up to
 * `maxRetryAfterMs`) does not listen to it; the abandoned call ends after that wait without sending
 * again.
 */
export function abortable<T>(call: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return call;
  if (signal.aborted) {
    call.catch(() => {});
    return Promise.reject(new APIUserAbortError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      call.catch(() => {});
      reject(new APIUserAbortError());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    call.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** An SDK client with r3's retry and timeout rules. */
export function createOpenAIClient(options: OpenAIClientOptions): OpenAI {
  return new OpenAI({
    baseURL: new URL(options.baseUrl).href.replace(/\/+$/, ''),
    // The SDK insists on a key; without one the wrapper strips the header it makes of it.
    apiKey: options.apiKey || 'none',
    maxRetries: options.maxRetries,
    // The wrapper's per-attempt timer fires first; the SDK's own is only a backstop.
    timeout: options.timeoutMs + 1_000,
    fetch: guardedFetch(options),
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

function errorMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body === '' ? undefined : body.slice(0, BODY_PREFIX);
  if (body !== null && typeof body === 'object' && 'message' in body) {
    const message = (body as { message: unknown }).message;
    if (typeof message === 'string') return message;
  }
  return undefined;
}

/**
 * What an SDK call's failure becomes: the caller's abort reason as it is when `signal` fired (so a
 * cancelled run recognises its own cancellation), `PROVIDER_TIMEOUT` for a timed-out attempt,
 * `PROVIDER_ERROR` for a refused request or an unreachable server. Anything else is returned as is.
 */
export function toProviderError(
  error: unknown,
  options: Pick<OpenAIClientOptions, 'provider' | 'maxRetries' | 'timeoutMs'>,
  signal?: AbortSignal,
): unknown {
  const name = options.provider;
  if (signal?.aborted) return signal.reason;
  if (error instanceof APIUserAbortError) return error;
  if (error instanceof APIConnectionTimeoutError) {
    return new ProviderError(
      'PROVIDER_TIMEOUT',
      `${name} did not answer within ${options.timeoutMs} ms`,
      { provider: name, attempts: options.maxRetries + 1 },
      error,
    );
  }
  if (error instanceof APIConnectionError) {
    return new ProviderError(
      'PROVIDER_ERROR',
      `${name} is unreachable: ${describe(error.cause ?? error)}`,
      { provider: name, attempts: options.maxRetries + 1 },
      error,
    );
  }
  if (error instanceof APIError) {
    const attempts = Number(error.headers?.get(ATTEMPT_HEADER) ?? 1);
    if (error.headers?.get(TIMEOUT_HEADER) === '1') {
      return new ProviderError(
        'PROVIDER_TIMEOUT',
        `${name} did not answer within ${options.timeoutMs} ms`,
        { provider: name, attempts },
        error,
      );
    }
    const status = error.status ?? 0;
    const reason = errorMessage(error.error) ?? error.message;
    const body = error.error === undefined ? '' : JSON.stringify(error.error);
    return new ProviderError(
      'PROVIDER_ERROR',
      `${name} answered ${status}: ${reason}`,
      { provider: name, status, attempts, body: body.slice(0, BODY_PREFIX) },
      error,
    );
  }
  return error;
}
