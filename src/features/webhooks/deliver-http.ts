/**
 * One webhook delivery attempt over HTTP(S): POST the signed body to an address that
 * `checkTarget` approved, and classify the answer. The socket goes to that pinned address; the URL's
 * host name still drives the `Host` header, TLS SNI and certificate verification.
 */

import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { pinnedLookup } from '../../platform/net/ssrf.js';

/** `User-Agent` of every delivery. */
export const DELIVERY_USER_AGENT = 'r3-webhooks/1';

/** Default number of response body bytes kept (and read) per attempt. */
export const DEFAULT_MAX_RESPONSE_BYTES = 4096;

/** Options of {@link createDeliveryAgentPool}. */
export interface DeliveryAgentPoolOptions {
  /** Concurrent sockets per origin (scheme, host, port); further requests queue. Default 4. */
  maxSocketsPerOrigin?: number;
  /** Idle keep-alive sockets kept per origin. Default 2. */
  maxFreeSocketsPerOrigin?: number;
  /** An idle keep-alive socket is closed after this long. Default 15000 ms. */
  idleSocketTimeoutMs?: number;
  /** Trusted CA certificates (PEM) for https targets. Replaces Node's bundled roots: for tests and private CAs. */
  ca?: string | Buffer | Array<string | Buffer>;
}

/** Keep-alive agents shared by delivery attempts. */
export interface DeliveryAgentPool {
  /** The agent for the URL's scheme. */
  agentFor(url: URL): http.Agent;
  /** Closes every pooled socket. */
  destroy(): void;
}

/**
 * Creates the keep-alive agents deliveries go through. Node's `Agent` keeps one socket pool per
 * origin and applies `maxSockets` to each pool separately, with no total cap set here: a slow
 * endpoint holds at most `maxSocketsPerOrigin` sockets and its backlog queues behind them, while
 * every other endpoint keeps its own sockets.
 */
export function createDeliveryAgentPool(options: DeliveryAgentPoolOptions = {}): DeliveryAgentPool {
  const common = {
    keepAlive: true,
    maxSockets: options.maxSocketsPerOrigin ?? 4,
    maxFreeSockets: options.maxFreeSocketsPerOrigin ?? 2,
    timeout: options.idleSocketTimeoutMs ?? 15_000,
    scheduling: 'lifo' as const,
  };
  const httpAgent = new http.Agent(common);
  const httpsAgent = new https.Agent(options.ca === undefined ? common : { ...common, ca: options.ca });
  return {
    agentFor: (url) => (url.protocol === 'https:' ? httpsAgent : httpAgent),
    destroy: () => {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

/** One delivery attempt. */
export interface DeliveryRequest {
  /** Target, as approved by `checkTarget`. */
  url: URL;
  /** The address `checkTarget` approved; the connection goes here and nowhere else. */
  address: string;
  family: 4 | 6;
  /** The exact JSON text that was signed. */
  body: string;
  /** Extra headers (the signature, delivery id). `Content-Type`, `User-Agent`, `Host`, `Content-Length` are set here. */
  headers: Record<string, string>;
  /** Hard limit for the whole attempt: waiting for a socket, connecting, TLS, sending, the response. */
  timeoutMs: number;
  /** Response body bytes kept; the connection is cut once more arrive. Default 4096. */
  maxResponseBytes?: number;
  /** Keep-alive agents; without one the attempt uses a fresh connection that is closed afterwards. */
  agents?: DeliveryAgentPool;
  /** Aborts the attempt (shutdown); reported as `error: 'aborted'`. */
  signal?: AbortSignal;
}

/**
 * Outcome of one attempt. `ok` only for a 2xx answer. `status` is null when no complete answer
 * arrived in time (`error: 'timeout'`) or the connection failed (`error` is Node's error code, such
 * as `ECONNREFUSED` or `CERT_HAS_EXPIRED`). A 3xx is not followed and reports
 * `error: 'redirect_not_followed'`.
 */
export interface DeliveryResult {
  status: number | null;
  ok: boolean;
  bodyExcerpt: string;
  error?: string;
  durationMs: number;
}

/** Headers a caller may not set: they are this module's, or they would confuse the transport. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-type',
  'content-length',
  'user-agent',
  'connection',
  'transfer-encoding',
]);

function errorCode(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return typeof code === 'string' && code !== '' ? code : err.message;
  }
  return String(err);
}

/**
 * Makes one delivery attempt: POST `body` as JSON to `url`, connecting to `address`. Never throws;
 * every failure is a {@link DeliveryResult} with `ok: false`.
 */
export function postWebhook(request: DeliveryRequest): Promise<DeliveryResult> {
  const started = performance.now();
  const maxBytes = request.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const { url } = request;
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');

  return new Promise<DeliveryResult>((resolve) => {
    let settled = false;
    let req: http.ClientRequest | undefined;
    const chunks: Buffer[] = [];
    let kept = 0;

    const finish = (result: Omit<DeliveryResult, 'durationMs' | 'bodyExcerpt'>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      resolve({
        ...result,
        bodyExcerpt: Buffer.concat(chunks).toString('utf8'),
        durationMs: Math.round(performance.now() - started),
      });
    };
    const fail = (error: string): void => {
      // Once settled, the socket may already be back in the keep-alive pool serving someone else.
      if (settled) return;
      finish({ status: null, ok: false, error });
      req?.destroy();
    };
    const onAbort = (): void => fail('aborted');
    const timer = setTimeout(() => fail('timeout'), request.timeoutMs);

    // A literal IP in the URL is connected to directly (no lookup), so it must be the approved one.
    if (isIP(hostname) !== 0 && hostname !== request.address) {
      fail('address_mismatch');
      return;
    }
    if (request.signal?.aborted) {
      fail('aborted');
      return;
    }
    request.signal?.addEventListener('abort', onAbort, { once: true });

    const headers: Record<string, string | number> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (!RESERVED_HEADERS.has(name.toLowerCase())) headers[name] = value;
    }
    headers['Content-Type'] = 'application/json';
    headers['User-Agent'] = DELIVERY_USER_AGENT;
    headers['Content-Length'] = Buffer.byteLength(request.body);

    const isHttps = url.protocol === 'https:';
    const options: https.RequestOptions = {
      method: 'POST',
      host: hostname,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      headers,
      lookup: pinnedLookup(request.address, request.family),
      agent: request.agents ? request.agents.agentFor(url) : false,
    };
    // SNI carries names only, never IP literals.
    if (isHttps && isIP(hostname) === 0) options.servername = hostname;

    try {
      req = (isHttps ? https : http).request(options, (res) => {
        const status = res.statusCode ?? null;
        const ok = status !== null && status >= 200 && status < 300;
        const redirect = status !== null && status >= 300 && status < 400;
        const answered = (): void =>
          finish(redirect ? { status, ok, error: 'redirect_not_followed' } : { status, ok });
        res.on('data', (chunk: Buffer) => {
          if (settled) return;
          const room = maxBytes - kept;
          if (chunk.length <= room) {
            chunks.push(chunk);
            kept += chunk.length;
            if (kept < maxBytes) return;
          } else {
            chunks.push(chunk.subarray(0, room));
            kept = maxBytes;
          }
          // Enough read: the rest is not wanted, so the connection is cut rather than drained.
          answered();
          res.destroy();
        });
        res.on('end', answered);
        res.on('error', (err) => fail(errorCode(err)));
        res.on('close', () => {
          if (!res.complete) fail('connection_reset');
        });
      });
    } catch (err) {
      // Invalid header values and the like throw synchronously.
      fail(errorCode(err));
      return;
    }
    req.on('error', (err) => fail(errorCode(err)));
    req.end(request.body);
  });
}
