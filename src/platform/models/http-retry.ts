/**
 * One HTTP request with a per-attempt timeout and retries, shared by every client of an
 * OpenAI-compatible server (chat completions, embeddings).
 *
 * Retried: 429, 5xx, and network failures (connection refused or reset, body cut off). Not retried:
 * every other status (the caller turns it into an error), a timed-out attempt (the timeout is the
 * operator's bound on one call; retrying it would multiply that bound), and a caller abort.
 * Delays: exponential backoff with jitter, or the server's `Retry-After-Ms` / `Retry-After` when it
 * sends one. A `Retry-After` longer than `maxDelayMs` ends the retries at once: waiting that long
 * inside a run is worse than failing it.
 */
import { ProviderError } from './model-provider.js';

/** How a request is retried. */
export interface RetryOptions {
  /** Retries after the first attempt; 0 disables retrying. */
  maxRetries: number;
  /** First backoff step; doubles per retry. Default 500 ms. */
  baseDelayMs?: number;
  /** Cap of a computed delay and the longest `Retry-After` honoured. Default 30 s. */
  maxDelayMs?: number;
  /** Waits `ms`; rejects with `signal.reason` when the signal fires. Injected by tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Source of jitter in [0, 1). Injected by tests. */
  random?: () => number;
  /** Called before each retry's wait, e.g. to log it. */
  onRetry?: (info: RetryInfo) => void;
}

/** Why and when a retry happens. */
export interface RetryInfo {
  /** The attempt that failed, 1-based. */
  attempt: number;
  delayMs: number;
  status?: number;
  error?: unknown;
}

/** The request to send; `body` is a string so it can be sent again. */
export interface HttpRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Options of `requestWithRetry`. */
export interface RequestWithRetryOptions {
  retry: RetryOptions;
  /** Bound on one attempt, reading the body included. */
  timeoutMs: number;
  signal?: AbortSignal;
  fetch?: typeof fetch;
  /** Names the provider in error details. */
  provider?: string;
}

/** The last answer received, with its body read. */
export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  /** Requests made, retries included. */
  attempts: number;
}

const DEFAULT_BASE_DELAY_MS = 500;
const DEFAULT_MAX_DELAY_MS = 30_000;

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

/**
 * Backoff before retry number `retry` (0-based): half of `min(max, base·2^retry)` fixed plus up to
 * the other half random, so concurrent clients spread out but never retry immediately.
 */
export function backoffDelay(retry: number, options: RetryOptions): number {
  const base = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const max = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const exp = Math.min(max, base * 2 ** retry);
  const random = options.random ?? Math.random;
  return Math.round(exp / 2 + random() * (exp / 2));
}

/** `setTimeout` as a promise that rejects with the signal's reason when it fires. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
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

type Attempt = { kind: 'answer'; result: HttpResult } | { kind: 'network'; error: unknown };

async function attemptOnce(
  request: HttpRequest,
  options: RequestWithRetryOptions,
  attempt: number,
): Promise<Attempt> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException('attempt timed out', 'TimeoutError'));
  }, options.timeoutMs);
  const onAbort = (): void => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const fetchImpl = options.fetch ?? fetch;
    const init: RequestInit = { method: request.method ?? 'POST', signal: controller.signal };
    if (request.headers !== undefined) init.headers = request.headers;
    if (request.body !== undefined) init.body = request.body;
    const response = await fetchImpl(request.url, init);
    const text = await response.text();
    return {
      kind: 'answer',
      result: { status: response.status, headers: response.headers, text, attempts: attempt },
    };
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (timedOut) {
      throw new ProviderError(
        'PROVIDER_TIMEOUT',
        `${options.provider ?? 'provider'} did not answer within ${options.timeoutMs} ms`,
        { provider: options.provider, attempts: attempt },
        error,
      );
    }
    return { kind: 'network', error };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

/**
 * Sends `request`, retrying as described at the top of this file, and resolves with the last
 * answer — which may be a non-2xx status the caller must turn into an error. Rejects with
 * `ProviderError` `PROVIDER_TIMEOUT` when an attempt times out, `PROVIDER_ERROR` when the network
 * failed on every attempt, or the caller signal's reason when it fires.
 */
export async function requestWithRetry(
  request: HttpRequest,
  options: RequestWithRetryOptions,
): Promise<HttpResult> {
  const retry = options.retry;
  const sleep = retry.sleep ?? abortableSleep;
  const maxDelay = retry.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  for (let attempt = 1; ; attempt++) {
    if (options.signal?.aborted) throw options.signal.reason;
    const outcome = await attemptOnce(request, options, attempt);
    const canRetry = attempt <= retry.maxRetries;
    let delayMs: number;
    if (outcome.kind === 'answer') {
      const { status, headers } = outcome.result;
      if (!isRetryableStatus(status) || !canRetry) return outcome.result;
      const asked = parseRetryAfter(headers);
      if (asked !== undefined && asked > maxDelay) return outcome.result;
      delayMs = asked ?? backoffDelay(attempt - 1, retry);
      retry.onRetry?.({ attempt, delayMs, status });
    } else {
      if (!canRetry) {
        throw new ProviderError(
          'PROVIDER_ERROR',
          `${options.provider ?? 'provider'} is unreachable: ${describe(outcome.error)}`,
          { provider: options.provider, attempts: attempt },
          outcome.error,
        );
      }
      delayMs = backoffDelay(attempt - 1, retry);
      retry.onRetry?.({ attempt, delayMs, error: outcome.error });
    }
    await sleep(delayMs, options.signal);
  }
}
