/**
 * Serving HTTP: the authenticator (tokens, rate limits, the features' fused reads), the uWS server
 * with every route the features registered plus the platform's own (health, machines, MCP), and the
 * bound port. The process's other roles never reach this file.
 */
import { actorRoutes } from './actors/actor-routes.js';
import { machineRoutes } from './actors/machine-routes.js';
import { ANONYMOUS, createAuthenticator } from './auth/authenticate.js';
import { createLastUsedRecorder, type LastUsedRecorder } from './auth/last-used.js';
import type { Principal } from './auth/principal.js';
import { withSessions } from './auth/sessions.js';
import { guardStreams, type StreamRevocation } from './auth/stream-revocation.js';
import { apiDocsRoutes } from './http/api-docs.js';
import { healthRoutes } from './http/health.js';
import { createHttpServer, type HttpServer } from './http/server.js';
import { loadUws } from './http/uws.js';
import { mcpRoutes } from './mcp/http-routes.js';
import { createToolset } from './mcp/toolset.js';
import { httpMetricsObserver, metricsRoutes } from './metrics/metrics-route.js';
import type { PlatformHost } from './platform.js';
import { createRateLimiter } from './ratelimit/limiter.js';
import { composeObservers, httpTracingObserver } from './tracing/tracing.js';

/** A process's HTTP side, built but not yet listening. */
export interface Serving {
  http: HttpServer;
  /** Token last-used bookkeeping (flushed periodically and at shutdown). */
  lastUsed: LastUsedRecorder;
  /** Listens on the configured host and port; resolves with the port bound and this process's URL. */
  listen(): Promise<{ port: number; url: string }>;
}

/** Idle rate-limit buckets are swept this often. */
const SWEEP_MS = 600_000;

/**
 * Builds the HTTP server over what the features registered on `platform` (call after they have).
 * `platform.stop()` stops it first: stop accepting, drain in-flight requests, end open streams.
 */
export function createServing(platform: PlatformHost): Serving {
  const { config, log, clock, db } = platform;
  const lastUsed = createLastUsedRecorder(db.sql, log);
  const limiterDefaults = { perMinute: config.rateLimit.perMinute, burst: config.rateLimit.burst };
  const limiter = createRateLimiter({ sql: db.sql, clock, defaults: limiterDefaults });
  // One more unit of a token's bucket: an MCP batch's further calls, a route's further units.
  const chargeUnit = (principal: Principal) =>
    principal.tokenId === null
      ? Promise.resolve(null)
      : limiter.take(`t:${principal.tokenId}`, {
          perMinute: principal.rateLimit.perMinute ?? limiterDefaults.perMinute,
          burst: principal.rateLimit.burst ?? limiterDefaults.burst,
        });
  const http = createHttpServer({
    log,
    authenticate: withSessions(
      createAuthenticator({
        sql: db.reads,
        env: config.env,
        clock,
        lastUsed,
        defaults: limiterDefaults,
        fusedReads: platform.auth.fusedReads,
      }),
      () => platform.auth.sessions,
      (key, policy) => limiter.take(key, policy),
      limiterDefaults,
    ),
    rateLimitAddress: (ip) => limiter.takeForAddress(ip),
    chargeUnit,
    trustProxy: config.trustProxy,
    anonymous: ANONYMOUS,
    uws: loadUws(config.httpEngine),
    observe: platform.tracing.enabled
      ? composeObservers(httpMetricsObserver(platform.metrics), httpTracingObserver(platform.tracing))
      : httpMetricsObserver(platform.metrics),
  });
  platform.metrics.addReading(
    {
      name: 'r3_sse_streams_open',
      help: 'Streamed responses open in this process: run event streams and MCP streams (server-sent events).',
    },
    (gauge) => gauge.set(http.openStreams),
  );
  const toolset = createToolset(platform.mcp.all, {
    httpAuthoring: config.mcp.httpAuthoring,
    validateOutput: config.mcp.validateOutput,
    log,
    metrics: platform.metrics,
    tracing: platform.tracing,
    resources: platform.mcp.resources,
    prompts: platform.mcp.prompts,
    taskKinds: platform.mcp.taskKinds,
  });
  const routes = [
    ...healthRoutes(platform),
    ...metricsRoutes(platform.metrics, config.metricsToken),
    ...platform.routes.all,
    ...machineRoutes(platform.actors.kinds()),
    ...actorRoutes(db.sql, platform.actors.kinds()),
    // Each tools/call of an MCP batch beyond the first pays one unit of the token's bucket.
    ...mcpRoutes(platform, toolset, chargeUnit),
    ...apiDocsRoutes(
      () => http.router.routes().map((entry) => entry.route),
      () => platform.baseUrl(),
    ),
  ];
  for (const route of routes) http.add(route);
  // Shutdown runs newest first: the server stops before the loops, the recorder flushes after them.
  platform.onClose(() => lastUsed.stop());
  const sweep = setInterval(() => void limiter.sweep().catch(() => undefined), SWEEP_MS);
  sweep.unref();
  platform.addService({ name: 'rate-limit sweep', stop: () => clearInterval(sweep) });
  platform.addService({ name: 'http', stop: () => http.close(config.shutdownTimeoutMs) });
  let revocation: StreamRevocation | null = null;
  platform.addService({
    name: 'stream revocation',
    async start() {
      revocation = await guardStreams({
        http,
        sql: db.sql,
        sessions: () => platform.auth.sessions,
        bus: platform.bus,
        clock,
        log,
      });
    },
    stop: () => revocation?.stop(),
  });

  return {
    http,
    lastUsed,
    async listen() {
      const port = await http.listen(config.host, config.port);
      const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
      // PORT=0 picked a free port: links must name the real one (set before any request is served).
      if (!config.baseUrlExplicit && config.port === 0) config.baseUrl = url;
      return { port, url };
    },
  };
}
