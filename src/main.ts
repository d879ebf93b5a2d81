/**
 * The composition root: configuration → database (+ migrations) → bus → services → HTTP server →
 * background loops. `startApp` is what `r3 serve` runs and what tests start in-process; `close`
 * undoes it in reverse (stop accepting, drain, stop loops, close pools).
 */

import { objectRoutes } from './features/objects/routes/objects.js';
import { searchRoutes } from './features/objects/routes/search.js';
import { sourceRoutes } from './features/objects/routes/sources.js';
import { reviewRoutes } from './features/reviews/routes.js';
import { ReviewService } from './features/reviews/service.js';
import { runRoutes } from './features/runs/routes.js';
import { createRunRuntime } from './features/runs/runtime.js';
import { runStreamRoutes } from './features/runs/sse/routes.js';
import { RunStreamService } from './features/runs/sse/stream-service.js';
import { fusedRunRead } from './features/runs/view.js';
import { tokenRoutes } from './features/tokens/routes.js';
import { TokenService } from './features/tokens/service.js';
import { webhookRoutes } from './features/webhooks/routes.js';
import { createWebhookRuntime } from './features/webhooks/runtime.js';
import { fusedAppliedRead } from './features/workspace/applied.js';
import { agentRoutes } from './features/workspace/routes/agents.js';
import { objectTypeRoutes } from './features/workspace/routes/object-types.js';
import { skillRoutes } from './features/workspace/routes/skills.js';
import { workflowRoutes } from './features/workspace/routes/workflows.js';
import { machineRoutes } from './platform/actors/machine-routes.js';
import { ANONYMOUS, createAuthenticator } from './platform/auth/authenticate.js';
import { createLastUsedRecorder, type LastUsedRecorder } from './platform/auth/last-used.js';
import type { Bus } from './platform/bus/bus.js';
import { connectBus } from './platform/bus/connect.js';
import type { Config } from './platform/config.js';
import { type Database, openDatabase, resolveDatabaseUrl } from './platform/db/database.js';
import { healthRoutes } from './platform/http/health.js';
import { createHttpServer, type HttpServer, type RouteDef } from './platform/http/server.js';
import { loadUws } from './platform/http/uws.js';
import { createLogger, type Logger } from './platform/log.js';
import { mcpRoutes } from './platform/mcp/http-routes.js';
import { createRateLimiter } from './platform/ratelimit/limiter.js';
import { type Clock, systemClock } from './platform/util/clock.js';
import { createResourceServices } from './resource-services.js';
import type { Services } from './services.js';

export interface App extends Services {
  http: HttpServer;
  /** Token last-used bookkeeping (flushed periodically and at shutdown). */
  lastUsed: LastUsedRecorder;
  /** The port actually bound (PORT=0 picks a free one). */
  port: number;
  /** `http://host:port` of this process (BASE_URL may differ behind a proxy). */
  url: string;
  close(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  log?: Logger;
  /** Apply pending migrations before serving (default true, as `r3 serve` does). */
  migrate?: boolean;
  /** Use this database instead of resolving one from the config (tests share one per file). */
  database?: Database;
  /** Use this bus instead of connecting one from the config. */
  bus?: Bus;
}

/** Opens the database for `config` (embedded when DATABASE_URL is unset). */
export async function openConfiguredDatabase(config: Config, log: Logger): Promise<Database> {
  const { url, embedded } = await resolveDatabaseUrl(config, log);
  return openDatabase(url, { poolSize: config.dbPoolSize, log, embedded });
}

/** Starts a whole r3 process and resolves once it listens. */
export async function startApp(config: Config, options: StartOptions = {}): Promise<App> {
  const log = options.log ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const db = options.database ?? (await openConfiguredDatabase(config, log));
  const cleanups: Array<() => Promise<void>> = [];
  if (!options.database) cleanups.push(() => db.close());
  try {
    if (options.migrate !== false) {
      const applied = await db.migrate();
      if (applied.length > 0) log.info({ applied }, 'migrations applied');
    }
    const bus =
      options.bus ?? (await connectBus({ natsUrl: config.natsUrl, prefix: config.busPrefix, logger: log }));
    if (!options.bus) cleanups.push(() => bus.close());

    const lastUsed = createLastUsedRecorder(db.sql, log);
    cleanups.push(() => lastUsed.stop());
    const limiterDefaults = { perMinute: config.rateLimit.perMinute, burst: config.rateLimit.burst };
    const limiter = createRateLimiter({ sql: db.sql, clock, defaults: limiterDefaults });
    const runtime = createRunRuntime({ config, db, bus, clock, log });
    cleanups.push(() => runtime.stop());
    const webhooks = await createWebhookRuntime({
      config,
      db,
      bus,
      host: runtime.actors,
      jobs: runtime.jobs,
      clock,
      log,
    });
    cleanups.push(() => webhooks.stop());
    const streams = new RunStreamService({
      db: db.sql,
      bus,
      log,
      heartbeatMs: config.sse.heartbeatMs,
      maxStreamsPerToken: config.sse.maxStreamsPerToken,
      queueLimit: config.sse.queueLimit,
    });
    cleanups.push(async () => streams.close());
    const services: Services = {
      config,
      log,
      clock,
      db,
      bus,
      tokens: new TokenService(db, config.env, clock),
      actors: runtime.actors,
      jobs: runtime.jobs,
      timers: runtime.timers,
      outbox: runtime.outbox,
      runs: runtime.runs,
      reviews: new ReviewService({
        db: db.sql,
        host: runtime.actors,
        runs: runtime.runs,
        clock,
        baseUrl: () => config.baseUrl,
      }),
      models: runtime.models,
      webhooks: webhooks.service,
      webhookDispatcher: webhooks.dispatcher,
      streams,
      ...createResourceServices({
        config,
        log,
        clock,
        db,
        jobs: runtime.jobs,
        onOutbox: runtime.outbox.wake,
      }),
    };
    const http = createHttpServer({
      log,
      authenticate: createAuthenticator({
        sql: db.sql,
        env: config.env,
        clock,
        lastUsed,
        defaults: limiterDefaults,
        fusedReads: { run: fusedRunRead(() => config.baseUrl), applied: fusedAppliedRead() },
      }),
      rateLimitAddress: (ip) => limiter.takeForAddress(ip),
      trustProxy: config.trustProxy,
      anonymous: ANONYMOUS,
      uws: loadUws(config.httpEngine),
    });
    for (const route of allRoutes(services)) http.add(route);
    await runtime.start();
    await webhooks.start();

    const sweep = setInterval(() => void limiter.sweep().catch(() => undefined), 600_000);
    sweep.unref();
    cleanups.push(async () => clearInterval(sweep));

    const port = await http.listen(config.host, config.port);
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    // PORT=0 picked a free port: links must name the real one (set before any request is served).
    if (!config.baseUrlExplicit && config.port === 0) config.baseUrl = url;
    const engine = http.engine;
    if (engine.kind === 'node-http') {
      log.warn(
        { http: 'node:http', node: process.version, why: engine.detail },
        'no native uWebSockets.js build loads on this Node: serving over node:http, performance is reduced',
      );
    }
    log.info(
      {
        url,
        baseUrl: config.baseUrl,
        env: config.env,
        bus: config.natsUrl ? 'nats' : 'in-process',
        node: process.version,
        http: engine.kind === 'native' ? engine.detail : 'node:http',
      },
      'r3 listening',
    );
    let closing: Promise<void> | null = null;
    return {
      ...services,
      http,
      lastUsed,
      port,
      url,
      close() {
        closing ??= (async () => {
          await http.close(config.shutdownTimeoutMs);
          for (const cleanup of cleanups.reverse()) {
            await cleanup().catch((error) => log.warn({ err: error }, 'shutdown step failed'));
          }
          log.info('r3 stopped');
        })();
        return closing;
      },
    };
  } catch (error) {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    throw error;
  }
}

/** Every route of the service, in one list (also the source of the route table in docs). */
export function allRoutes(s: Services): RouteDef[] {
  return [
    ...healthRoutes(s),
    ...tokenRoutes(s),
    ...runRoutes(s.runs),
    ...runStreamRoutes(s.streams),
    ...webhookRoutes(s.webhooks),
    ...reviewRoutes(s.reviews),
    ...machineRoutes(),
    ...agentRoutes(s),
    ...skillRoutes(s),
    ...workflowRoutes(s),
    ...objectTypeRoutes(s),
    ...objectRoutes(s),
    ...sourceRoutes(s),
    ...searchRoutes(s),
    ...mcpRoutes(s),
  ];
}
