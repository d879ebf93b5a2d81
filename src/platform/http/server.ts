/**
 * The HTTP server on uWebSockets.js. One catch-all uWS handler runs the pipeline:
 *
 *   read request (sync) → route → authenticate → rate limit → authorize → body → zod → handler → reply
 *
 * uWS rules this file keeps so no handler has to: everything is read from `req` before the first
 * await; `onAborted` is registered at once and every later write checks it; writes after an await
 * are corked; no exception crosses a uWS callback.
 */

import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { FusedAnswer, FusedRequest } from '../auth/authenticate.js';
import { type Access, authorize } from '../auth/guard.js';
import type { Principal } from '../auth/principal.js';
import type { IncomingRequest } from '../auth/sessions.js';
import { ApiError, internal, rateLimited, routeNotFound, validationFailed } from '../errors.js';
import type { Logger } from '../log.js';
import type { RateDecision } from '../ratelimit/limiter.js';
import { httpHeaders, httpStatus } from './errors.js';
import {
  acceptRequestId,
  CLIENT_GONE_STATUS,
  ClientGone,
  type Exchange,
  parseJsonBody,
  parseQuery,
  type ResponseHead,
  rateHeaders,
  readBody,
  respond,
  writeRaw,
} from './exchange.js';
import { inputIssues } from './input-guard.js';
import type { Reply, ResponseStream } from './reply.js';
import { Router } from './router.js';
import { openStream } from './stream.js';
import type { LoadedUws, UwsApp, UwsListenSocket } from './uws.js';
import { parseOrThrow } from './validate.js';

export { MAX_BODY_BYTES, parseQuery } from './exchange.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'OPTIONS';

/** The request as a handler sees it. */
export interface RequestContext<P = Record<string, string>, Q = Record<string, unknown>, B = unknown> {
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The caller's address (`X-Forwarded-For`'s first entry when `trustProxy`); read on first use. */
  readonly ip: string;
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  /** The body bytes as received (empty for GET). */
  readonly rawBody: Buffer;
  /** The caller; the anonymous principal on public routes. */
  readonly principal: Principal;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  /**
   * The route's fused read, taken in the statement that authenticated the caller, with the key it
   * was read for; undefined when it was not taken (the handler then reads as usual).
   */
  readonly fused: FusedAnswer | undefined;
  /**
   * Reports a later charge to the caller's bucket for this request (an MCP batch's further calls):
   * the answer's rate-limit headers then show the bucket after it, not as authentication left it.
   */
  reportRate(decision: RateDecision): void;
}

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

/** A route as registered: method, path pattern, access rule, optional zod schemas, handler. */
export interface RouteDef {
  method: HttpMethod;
  path: string;
  access: Access;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** Keep the body as bytes (no JSON parse). */
  rawBody?: boolean;
  /** The raw body's media type, for the OpenAPI document (default `application/json`). */
  rawBodyType?: string;
  /** A read to take with authentication (see `FusedRoute`). */
  fused?: FusedRoute;
  summary?: string;
  /** The answers it gives besides errors, by status (the OpenAPI document; tests check live answers). */
  responses?: Readonly<Partial<Record<number | 'default', RouteAnswer>>>;
  /** Error statuses beyond those the pipeline implies (see openapi.ts). */
  errors?: readonly number[];
  /** Left out of the OpenAPI document. */
  hidden?: boolean;
  /**
   * How many rate-limit units a request costs, from its validated body (default 1: the one its
   * authentication took). The others are taken before the handler runs; a refusal is 429 and nothing
   * runs. (`POST /reviews/decide-batch`: one per item.)
   */
  units?: (body: unknown) => number;
  /**
   * A public route charged to the caller's address like an unauthenticated request (sign-in: its
   * answers carry the rate-limit headers, and guessing is limited); other public routes are free.
   */
  limitByAddress?: boolean;
  /**
   * The `WWW-Authenticate` value of this route's 401 answers, when it is not the default
   * `Bearer realm="r3"` (the MCP endpoint names its protected-resource metadata: RFC 9728).
   */
  challenge?: () => string;
  // biome-ignore lint/suspicious/noExplicitAny: the typed handler is checked by defineRoute
  handler(ctx: RequestContext<any, any, any>): Promise<Reply> | Reply;
}

/** One documented answer of a route: what it means, its body's schema and content type (default JSON). */
export interface RouteAnswer {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
}

/** Declares a route whose handler's params, query and body are typed by its zod schemas. */
export function defineRoute<
  PS extends z.ZodType | undefined = undefined,
  QS extends z.ZodType | undefined = undefined,
  BS extends z.ZodType | undefined = undefined,
>(def: {
  method: HttpMethod;
  path: string;
  access: Access;
  params?: PS;
  query?: QS;
  body?: BS;
  rawBody?: boolean;
  rawBodyType?: string;
  fused?: FusedRoute;
  summary?: string;
  responses?: Readonly<Partial<Record<number | 'default', RouteAnswer>>>;
  errors?: readonly number[];
  hidden?: boolean;
  units?: (body: Infer<BS>) => number;
  limitByAddress?: boolean;
  challenge?: () => string;
  handler(
    ctx: RequestContext<
      PS extends z.ZodType ? z.output<PS> : Record<string, string>,
      QS extends z.ZodType ? z.output<QS> : Record<string, unknown>,
      Infer<BS>
    >,
  ): Promise<Reply> | Reply;
}): RouteDef {
  return def as RouteDef;
}

/**
 * A route's first read, fused into the authentication statement (src/platform/auth/authenticate.ts): the
 * name of a read the authenticator registered, and its key from the raw path parameters — or, with
 * `fromBody`, from the body too, which is then awaited before authentication starts (a body that
 * fails to arrive gives no key; its error comes in the usual order). Null: take none; the handler
 * then validates and reads as usual. `key` may also name another registered read with its key, for a
 * route whose requests read different things first (MCP: a run, or the applied version). Only an
 * optimization: the handler must give the same answer when `ctx.fused` is undefined.
 */
export interface FusedRoute {
  read: string;
  fromBody?: boolean;
  key(params: Readonly<Record<string, string>>, body: Buffer): number | FusedRequest | null;
}

export interface HttpServerDeps {
  log: Logger;
  /**
   * Resolves a Bearer header (else the request's session cookie) to a principal and takes its
   * rate-limit step, or throws 401.
   */
  authenticate(
    authorization: string | undefined,
    fused?: FusedRequest | null,
    request?: IncomingRequest,
  ): Promise<{ principal: Principal; rate: RateDecision | null; fused?: FusedAnswer }>;
  /** Takes one request from an address's bucket (unauthenticated callers); null when limiting is off. */
  rateLimitAddress(ip: string): Promise<RateDecision | null>;
  /** Takes one more unit from the principal's bucket (`RouteDef.units`); null when limiting is off. */
  chargeUnit?(principal: Principal): Promise<RateDecision | null>;
  trustProxy: boolean;
  /** Anonymous principal used on public routes. */
  anonymous: Principal;
  /** The uWS to serve on (see `loadUws`). */
  uws: LoadedUws;
  /** Sees every request (metrics, traces): runs its handling, which resolves with the status. */
  observe?: RequestObserver;
}

/** A request as an observer sees it; `route` (the matched pattern) is set once it is routed. */
export interface ObservedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  route: string | null;
}

/** Wraps the handling of one request; must call `handle` once and resolve with what it resolves. */
export type RequestObserver = (request: ObservedRequest, handle: () => Promise<number>) => Promise<number>;

export interface HttpServer {
  readonly router: Router<RouteDef>;
  add(route: RouteDef): void;
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting, waits for in-flight requests (up to `timeoutMs`), ends open streams. */
  close(timeoutMs: number): Promise<void>;
  readonly inflight: number;
  /** Which uWS this server runs on. */
  readonly engine: LoadedUws;
  /** Streamed responses (server-sent events) open now. */
  readonly openStreams: number;
  /** The principals of the open authenticated streams (each once). */
  streamOwners(): Principal[];
  /** Ends the open streams whose principal `ended` picks; answers how many. */
  endStreamsOf(ended: (principal: Principal) => boolean): number;
}

const decoder = new TextDecoder();

const NO_BODY = Buffer.alloc(0);

/** uWS's `ListenOptions.LIBUS_LISTEN_EXCLUSIVE_PORT` (declared in its typings, not exported at run time). */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;

/** Creates the uWS app with r3's pipeline mounted on every path. */
export function createHttpServer(deps: HttpServerDeps): HttpServer {
  const router = new Router<RouteDef>();
  const uws = deps.uws;
  const app: UwsApp = uws.api.App();
  let listenSocket: UwsListenSocket | null = null;
  let inflight = 0;
  let draining = false;
  const streams = new Set<ResponseStream>();
  /** Who opened each authenticated stream: a revoked or expired caller's streams are ended. */
  const streamOwners = new Map<ResponseStream, Principal>();
  let idle: (() => void) | null = null;

  // The access log is written only at level info or below: at warn (benchmarks, quiet deployments)
  // the per-request entry would still cost its object and timer reading.
  const logRequests = deps.log.isLevelEnabled('info');

  app.any('/*', (res, req) => {
    const exchange: Exchange = { res, aborted: false, done: false, controller: null, onAbort: [] };
    res.onAborted(() => {
      exchange.aborted = true;
      exchange.controller?.abort();
      for (const fn of exchange.onAbort) fn();
    });
    // Everything from `req` must be read now: it is stack-allocated and gone after this callback.
    const method = req.getMethod().toUpperCase();
    const path = req.getUrl();
    const rawQuery = req.getQuery() ?? '';
    const headers: Record<string, string> = {};
    req.forEach((key, value) => {
      headers[key] = value;
    });
    const requestId = acceptRequestId(headers['x-request-id']) ?? randomUUID();
    const body = method === 'GET' || method === 'HEAD' ? null : readBody(exchange, headers['content-length']);
    if (draining) {
      const message = 'Server is shutting down.';
      respond(
        exchange,
        503,
        { error: { code: 'INTERNAL', message, details: {} } },
        { requestId, rate: null, close: true },
      );
      return;
    }
    // The peer address costs a system call: it is read only when something asks (per-address
    // limiting of unauthenticated calls), while the response is still open.
    let ip: string | null = null;
    const address = (): string => {
      if (ip === null) {
        const forwarded = deps.trustProxy ? headers['x-forwarded-for']?.split(',')[0]?.trim() : undefined;
        ip =
          forwarded ||
          (exchange.aborted || exchange.done ? '' : decoder.decode(res.getRemoteAddressAsText()));
      }
      return ip;
    };
    inflight++;
    const started = logRequests ? performance.now() : 0;
    const observed: ObservedRequest = { method, path, headers, route: null };
    const run = () =>
      handle(exchange, { method, path, rawQuery, headers, address, requestId, body, observed });
    void (deps.observe ? deps.observe(observed, run) : run()).then((status) => {
      inflight--;
      if (inflight === 0 && idle) idle();
      if (logRequests) {
        deps.log.info(
          {
            reqId: requestId,
            method,
            path,
            status,
            ms: Math.round((performance.now() - started) * 100) / 100,
          },
          'request',
        );
      }
    });
  });

  async function handle(
    exchange: Exchange,
    request: {
      method: string;
      path: string;
      rawQuery: string;
      headers: Record<string, string>;
      address: () => string;
      requestId: string;
      body: Promise<Buffer> | null;
      observed: ObservedRequest;
    },
  ): Promise<number> {
    const { method, path, headers, address, requestId } = request;
    const lookup = router.find(method, path);
    const route = lookup.kind === 'match' ? lookup.match.route : null;
    request.observed.route = route?.path ?? null;
    let rate: RateDecision | null = null;
    let principal = deps.anonymous;
    try {
      let fused: FusedAnswer | undefined;
      if (route?.access.kind !== 'public') {
        try {
          const asked = lookup.kind === 'match' ? lookup.match.route.fused : undefined;
          let key: number | FusedRequest | null = null;
          if (asked && lookup.kind === 'match') {
            const body = asked.fromBody && request.body ? await request.body.catch(() => null) : NO_BODY;
            key = body ? asked.key(lookup.match.params, body) : null;
          }
          ({ principal, rate, fused } = await deps.authenticate(
            headers.authorization,
            asked && key !== null ? (typeof key === 'number' ? { read: asked.read, key } : key) : null,
            { method, headers },
          ));
        } catch (error) {
          // A failed authentication is charged to the caller's address, so guessing is limited too.
          rate = await deps.rateLimitAddress(address());
          if (rate && !rate.allowed) throw rateLimited(rate.retryAfterSec);
          throw error;
        }
        if (rate && !rate.allowed) throw rateLimited(rate.retryAfterSec);
      } else if (route.limitByAddress) {
        rate = await deps.rateLimitAddress(address());
        if (rate && !rate.allowed) throw rateLimited(rate.retryAfterSec);
      }
      if (lookup.kind !== 'match') {
        throw routeNotFound(method, path);
      }
      const { route: matched, params: rawParams } = lookup.match;
      authorize(principal, matched.access);
      const checkedParams = guard(rawParams, 'params');
      const params = (
        matched.params ? parseOrThrow(matched.params, checkedParams, 'params') : checkedParams
      ) as Record<string, string>;
      const query = (
        matched.query
          ? parseOrThrow(matched.query, guard(parseQuery(request.rawQuery), 'query'), 'query')
          : {}
      ) as Record<string, unknown>;
      const rawBody = request.body ? await request.body : NO_BODY;
      let parsed: unknown;
      if (matched.body && !matched.rawBody) {
        parsed = parseOrThrow(matched.body, guard(parseJsonBody(rawBody), 'body'), 'body');
      }
      const units = matched.units?.(parsed) ?? 1;
      for (let unit = 1; unit < units && deps.chargeUnit; unit++) {
        const charged = await deps.chargeUnit(principal);
        if (!charged) break;
        rate = charged;
        if (!charged.allowed) throw rateLimited(charged.retryAfterSec);
      }
      const ctx: RequestContext = {
        requestId,
        method,
        path,
        headers,
        get ip() {
          return address();
        },
        params,
        query,
        body: parsed,
        rawBody,
        principal,
        fused,
        get signal() {
          exchange.controller ??= new AbortController();
          if (exchange.aborted) exchange.controller.abort();
          return exchange.controller.signal;
        },
        reportRate(decision) {
          rate = decision;
        },
      };
      // The client went away while the request was read (or uWS dropped the connection: a request
      // pipelined behind this one, see docs/api.md): nothing runs that no one will be told about.
      if (exchange.aborted) return CLIENT_GONE_STATUS;
      const reply = await matched.handler(ctx);
      return send(exchange, reply, requestId, rate, principal);
    } catch (error) {
      // A client that went away (mid-body, say) gets no answer and is no error of ours.
      if (error instanceof ClientGone || exchange.aborted) return CLIENT_GONE_STATUS;
      const apiError = toApiError(error, deps.log, requestId);
      const status = httpStatus(apiError);
      const errorHeaders = httpHeaders(apiError);
      if (status === 401 && route?.challenge) errorHeaders['WWW-Authenticate'] = route.challenge();
      respond(exchange, status, apiError.toBody(), {
        requestId,
        rate,
        headers: errorHeaders,
        close: status === 413,
        authenticated: principal !== deps.anonymous,
      });
      return status;
    }
  }

  function send(
    exchange: Exchange,
    reply: Reply,
    requestId: string,
    rate: RateDecision | null,
    principal: Principal,
  ): number {
    const authenticated = principal !== deps.anonymous;
    switch (reply.kind) {
      case 'json': {
        const head: ResponseHead = { requestId, rate, headers: reply.headers, authenticated };
        respond(exchange, reply.status, reply.body, head);
        return reply.status;
      }
      case 'raw':
        writeRaw(exchange, reply.status, reply.body, reply.contentType, {
          requestId,
          rate,
          headers: reply.headers,
          authenticated,
        });
        return reply.status;
      case 'stream': {
        const stream = openStream(
          exchange,
          reply,
          {
            'X-Request-Id': requestId,
            'X-Content-Type-Options': 'nosniff',
            ...(authenticated ? { 'Cache-Control': 'no-store' } : {}),
            ...rateHeaders(rate),
          },
          streams,
        );
        if (stream && principal !== deps.anonymous && !stream.closed) {
          streamOwners.set(stream, principal);
          stream.onClose(() => streamOwners.delete(stream));
        }
        return reply.status;
      }
    }
  }

  return {
    router,
    add(route) {
      router.add(route.method, route.path, route);
    },
    listen(host, port) {
      return new Promise((resolve, reject) => {
        // Exclusive: without it uWS sets SO_REUSEPORT, and a second r3 started on a taken port would
        // silently share it, each process answering some of the connections.
        app.listen(host, port, LIBUS_LISTEN_EXCLUSIVE_PORT, (socket) => {
          if (!socket) return reject(new Error(`cannot listen on ${host}:${port} (is it in use?)`));
          listenSocket = socket;
          resolve(uws.api.us_socket_local_port(socket));
        });
      });
    },
    async close(timeoutMs) {
      draining = true;
      if (listenSocket) {
        uws.api.us_listen_socket_close(listenSocket);
        listenSocket = null;
      }
      for (const stream of [...streams]) stream.end();
      if (inflight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, timeoutMs);
          idle = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    },
    get inflight() {
      return inflight;
    },
    get openStreams() {
      return streams.size;
    },
    streamOwners() {
      return [...new Set(streamOwners.values())];
    },
    endStreamsOf(ended) {
      let count = 0;
      for (const [stream, owner] of [...streamOwners]) {
        if (!ended(owner)) continue;
        stream.end();
        count++;
      }
      return count;
    },
    engine: uws,
  };
}

/** `value` when it holds nothing `inputIssues` refuses; else 400 naming each field. */
function guard<T>(value: T, where: string): T {
  const issues = inputIssues(value, where);
  if (issues.length > 0) throw validationFailed(issues);
  return value;
}

function toApiError(error: unknown, log: Logger, requestId: string): ApiError {
  if (error instanceof ApiError) return error;
  log.error({ err: error, reqId: requestId }, 'unhandled error');
  return internal();
}
