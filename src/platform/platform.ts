/**
 * The platform: the infrastructure every feature plugs into, and the contract by which it plugs in.
 * A feature (`src/features/<name>/index.ts`) receives the platform in its `register` and adds to it:
 *
 * - actor kinds (`actors.register`), job kinds (`jobs.register`);
 * - routes (`routes.add`: under `/api/v1` or anywhere else, each declaring its access and schemas);
 * - MCP tools (`mcp.add`: one registry feeds `tools/list` and `tools/call` on every transport);
 * - reads fused into authentication (`auth.addFusedRead`);
 * - services with a life (`addService`): bus consumers and periodic work, started after the
 *   platform's own loops and stopped before them.
 *
 * Terminology:
 * - role: what a process does. `serve` (r3 serve): HTTP, workers, timers, outbox relay, every
 *   service — but no workers, no relay and no `withJobs` service when it has worker processes
 *   (R3_WORKER_PROCESSES): they relay its outbox rows, woken by a bus signal. `worker` (r3 work,
 *   r3 mcp): workers, timers, the relay only when the bus is shared, the services that declare the
 *   role. `cli` (one-shot commands): nothing runs; features are registered so their services can be
 *   called.
 * - loops: the job workers, the timer scheduler and the outbox relay, woken after each commit that
 *   gave them work (`actors.onWake`).
 */

import type { EntitySchema, MigrationObject } from '@mikro-orm/core';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { type ActorHost, createActorHost } from './actors/host.js';
import { CREATION_FILL } from './actors/registry.js';
import { createTimerScheduler, type TimerScheduler } from './actors/timers.js';
import type { FusedRead } from './auth/authenticate.js';
import type { SessionAuthenticator } from './auth/sessions.js';
import type { Bus, Subscription } from './bus/bus.js';
import { connectBus } from './bus/connect.js';
import { tickSignal } from './bus/tick-signal.js';
import type { Config } from './config.js';
import { type Database, openConfiguredDatabase } from './db/database.js';
import type { RouteDef } from './http/server.js';
import { holdWhenSignalled, signalWhenSaturated } from './jobs/hold.js';
import { createJobQueue, type JobQueue } from './jobs/queue.js';
import type { Logger } from './log.js';
import type { PromptSource } from './mcp/prompts.js';
import type { ResourceSource } from './mcp/resources.js';
import type { TaskKind } from './mcp/tasks.js';
import type { ToolDef } from './mcp/tool.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { addPlatformReadings } from './metrics/readings.js';
import { createModelProviderRegistry, type ModelProviderRegistry } from './models/providers/index.js';
import { createOutboxRelay, OUTBOX_WAKE_SIGNAL, type OutboxRelay } from './outbox/relay.js';
import { loadMasterSecret } from './secrets/master-key.js';
import type { SealedColumn, SealedColumns } from './secrets/rekey.js';
import { type AgentToolRegistry, createAgentToolRegistry } from './tools/registry.js';
import { createTracing, type Tracing } from './tracing/tracing.js';
import type { Clock } from './util/clock.js';

/** What a process does (see the terminology above). */
export type Role = 'serve' | 'worker' | 'cli';

/** Something with a life in the process: a bus consumer, a periodic sweep, a per-process registry. */
export interface PlatformService {
  /** For logs. */
  name: string;
  /** Roles whose processes start it (default: `serve` only). */
  roles?: readonly Role[];
  /**
   * It goes where the jobs are executed: not in a `serve` process whose jobs run in its worker
   * processes (R3_WORKER_PROCESSES), which then do it (give it the `worker` role too).
   */
  withJobs?: boolean;
  /** Runs before the loops start (workers may need what it reads: secrets, caches). */
  prepare?(): Promise<void> | void;
  /** Runs after the loops started (bus consumers, periodic work). */
  start?(): Promise<void> | void;
  stop?(): Promise<void> | void;
}

/** The routes of the process; the HTTP server mounts them when the process serves. */
export interface RouteTable {
  add(...routes: RouteDef[]): void;
  /** Every route, in the order added. */
  readonly all: readonly RouteDef[];
}

/** The MCP tools, resources and prompts of the process: every transport serves these. */
export interface ToolRegistry {
  add(...tools: ToolDef[]): void;
  /** Every tool, in the order added. */
  readonly all: readonly ToolDef[];
  /** Adds collections of resources (`r3://<collection>/…`, src/platform/mcp/resources.ts). */
  addResources(...sources: ResourceSource[]): void;
  /** Every resource source, in the order added (the order `resources/list` pages through them). */
  readonly resources: readonly ResourceSource[];
  /** Adds prompts (src/platform/mcp/prompts.ts). */
  addPrompts(...sources: PromptSource[]): void;
  readonly prompts: readonly PromptSource[];
  /** Adds the kinds of tasks tools start (src/platform/mcp/tasks.ts). */
  addTaskKinds(...kinds: TaskKind[]): void;
  readonly taskKinds: readonly TaskKind[];
}

/** Where features extend authentication. */
export interface AuthRegistry {
  /** A read routes may fuse into the authenticating statement (`RouteDef.fused.read` names it). */
  addFusedRead(name: string, read: FusedRead): void;
  readonly fusedReads: Readonly<Record<string, FusedRead>>;
  /** Registers the browser-session authenticator (one per process; see auth/sessions.ts). */
  setSessions(sessions: SessionAuthenticator): void;
  readonly sessions: SessionAuthenticator | null;
}

/** The platform a feature registers on. */
export interface Platform {
  readonly role: Role;
  readonly config: Config;
  readonly log: Logger;
  readonly clock: Clock;
  readonly db: Database;
  readonly bus: Bus;
  /** Every persisted actor's transitions; features register their kinds. */
  readonly actors: ActorHost;
  /** The job queue and this process's workers; features register their job kinds. */
  readonly jobs: JobQueue;
  /** Durable timers (`runDue()` fires what is due). */
  readonly timers: TimerScheduler;
  /** Publishes outbox rows to the bus. */
  readonly outbox: OutboxRelay;
  /** The model providers prompts run on. */
  readonly models: ModelProviderRegistry;
  /** This process's Prometheus metrics (`GET /metrics`); features count what they do here. */
  readonly metrics: Metrics;
  /** OpenTelemetry spans (on when an OTLP endpoint is configured); features trace their work here. */
  readonly tracing: Tracing;
  readonly routes: RouteTable;
  readonly mcp: ToolRegistry;
  /** The agent tools (docs/mcp.md "Built-in tools"): runs' tool loops and MCP use them; each usable over MCP is also in `mcp`. */
  readonly agentTools: AgentToolRegistry;
  readonly auth: AuthRegistry;
  /** BASE_URL, read at call time (with PORT=0 the bound port is known only once the process listens). */
  baseUrl(): string;
  /** The deployment's master secret (`R3_SECRET_KEY`, else `R3_DATA_DIR/secret.key`), read once on first use. */
  masterSecret(): Promise<string>;
  /** Columns of values sealed with keys derived from the master secret (`r3 secrets rekey` reseals them). */
  readonly sealedColumns: SealedColumns;
  addService(service: PlatformService): void;
}

export interface PlatformOptions {
  role: Role;
  clock: Clock;
  log: Logger;
  /** Every owner's migrations, in order (src/migrations.ts). */
  migrations: readonly MigrationObject[];
  /** The entities the features' ORM queries read (src/features.ts). */
  // biome-ignore lint/suspicious/noExplicitAny: entities of any row type
  entities?: readonly EntitySchema<any>[];
  /** Apply pending migrations (default true). */
  migrate?: boolean;
  /** Use this database instead of resolving one from the config (tests share one per file). */
  database?: Database;
  /** Use this bus instead of connecting one from the config. */
  bus?: Bus;
  /** Replaces the configured model providers (tests). */
  models?: ModelProviderRegistry;
  /** Turns tracing on with this exporter instead of OTLP (tests: an in-memory exporter). */
  spanExporter?: SpanExporter;
}

/** The platform as its owner (the composition root) holds it: the features' view plus the life cycle. */
export interface PlatformHost extends Platform {
  /** Starts the loops and services of the role (not the HTTP server: see main.ts). */
  start(): Promise<void>;
  /** Stops services (newest first), then the loops, then closes the bus and database it opened. */
  stop(): Promise<void>;
  /** Runs `cleanup` at `stop()`, after the services and loops (newest first). */
  onClose(cleanup: () => Promise<void>): void;
}

/**
 * Opens the platform: database (migrated unless told not to), bus (in-process for `cli`), actor host,
 * job queue, timers, outbox relay. Nothing runs until `start()`.
 */
export async function openPlatform(config: Config, options: PlatformOptions): Promise<PlatformHost> {
  const { role, log } = options;
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const cleanup of closers.splice(0).reverse()) {
      await cleanup().catch((error) => log.warn({ err: error }, 'shutdown step failed'));
    }
  };
  try {
    const db =
      options.database ?? (await openConfiguredDatabase(config, log, options.migrations, options.entities));
    if (!options.database) closers.push(() => db.close());
    if (options.migrate !== false) {
      const applied = await db.migrate();
      if (applied.length > 0) log.info({ applied }, 'migrations applied');
    }
    // One-shot commands publish nothing themselves (outbox rows wait for a server's relay).
    const natsUrl = role === 'cli' ? undefined : config.natsUrl;
    const bus = options.bus ?? (await connectBus({ natsUrl, prefix: config.busPrefix, logger: log }));
    if (!options.bus) closers.push(() => bus.close());
    const exporter = options.spanExporter;
    const tracing = await createTracing(config.tracing, exporter ? { exporter } : {});
    return createHost(config, options, { db, bus, tracing }, closers, close);
  } catch (error) {
    await close();
    throw error;
  }
}

function createHost(
  config: Config,
  options: PlatformOptions,
  { db, bus, tracing }: { db: Database; bus: Bus; tracing: Tracing },
  closers: Array<() => Promise<void>>,
  close: () => Promise<void>,
): PlatformHost {
  const { role, clock, log } = options;
  // A serving process with worker processes leaves the jobs to them (src/cli/workers.ts).
  const jobsElsewhere = role === 'serve' && config.workerProcesses > 0;
  const concurrency = role === 'cli' || jobsElsewhere ? 0 : config.workerConcurrency;
  const jobs = createJobQueue({
    db: db.sql,
    bus,
    clock,
    log,
    concurrency,
    databaseUrl: db.url,
    backgroundRate: config.shadowRunRate,
  });
  // A serving process that runs no jobs tells the processes that do to step back while its accepts
  // are saturated (a batch as big as the creations' fill); a process that runs jobs listens
  // (jobs/hold.ts).
  const actors = createActorHost({
    db: db.sql,
    clock,
    log,
    jobs,
    ...(role === 'serve' && concurrency === 0 ? { onBatch: signalWhenSaturated(bus, CREATION_FILL) } : {}),
  });
  let unhold: (() => void) | null = null;
  const timers = createTimerScheduler({ db: db.sql, host: actors, clock, log });
  const metrics = createMetrics({ defaults: role === 'serve' });
  // Runs first among the closers: every service and loop has stopped, so every span has ended.
  closers.push(() => tracing.shutdown());
  addPlatformReadings(metrics, { sql: db.sql, bus });
  // Commit times (r3_db_commit_duration_seconds): a writing transaction's include the WAL's flush to disk.
  const stopObservingCommits = db.sql.observeCommits((seconds) => metrics.dbCommitDuration.observe(seconds));
  closers.push(async () => stopObservingCommits());
  const outbox = createOutboxRelay({ db: db.sql, bus, log, metrics });
  actors.onWake((what) => {
    if (what === 'jobs') jobs.notifyEnqueued();
    else if (what === 'urgentJobs') jobs.notifyEnqueued({ urgent: true });
    else if (what === 'outbox') wakeRelay();
    else timers.wake();
  });
  const models =
    options.models ??
    createModelProviderRegistry({
      provider: config.model.provider,
      openai: {
        baseUrl: config.model.openai.baseUrl,
        model: config.model.openai.model,
        ...(config.model.openai.apiKey ? { apiKey: config.model.openai.apiKey } : {}),
      },
    });
  const routes: RouteDef[] = [];
  const tools: ToolDef[] = [];
  const resources: ResourceSource[] = [];
  const prompts: PromptSource[] = [];
  const taskKinds: TaskKind[] = [];
  const fusedReads: Record<string, FusedRead> = {};
  let sessions: SessionAuthenticator | null = null;
  const services: PlatformService[] = [];
  const sealed: SealedColumn[] = [];
  const started: PlatformService[] = [];
  let masterSecret: Promise<string> | null = null;
  // The relay runs wherever this process's events can reach a reader: always when serving; in a
  // worker only when the bus is shared (an in-process bus would publish to no one).
  // A serving process with worker processes leaves the relay to them too, and tells them (one bus
  // signal per tick, at most one per 5 ms: their relays linger 10 ms between passes anyway) when its
  // commits wrote outbox rows: publishing is then work at their priority.
  const relays = (role === 'serve' && !jobsElsewhere) || (role === 'worker' && config.natsUrl !== undefined);
  const signalRelays = tickSignal(bus, OUTBOX_WAKE_SIGNAL, 5);
  function wakeRelay(): void {
    if (relays) outbox.wake();
    else if (jobsElsewhere) signalRelays();
  }
  let relayWakes: Subscription | null = null;
  const loops = role !== 'cli';
  let loopsStarted = false;

  return {
    role,
    config,
    log,
    clock,
    db,
    bus,
    actors,
    jobs,
    timers,
    outbox,
    models,
    metrics,
    tracing,
    routes: {
      add: (...added) => void routes.push(...added),
      all: routes,
    },
    mcp: {
      add: (...added) => void tools.push(...added),
      all: tools,
      addResources: (...added) => void resources.push(...added),
      resources,
      addPrompts: (...added) => void prompts.push(...added),
      prompts,
      addTaskKinds: (...added) => void taskKinds.push(...added),
      taskKinds,
    },
    agentTools: createAgentToolRegistry((tool) => void tools.push(tool)),
    auth: {
      addFusedRead(name, read) {
        if (fusedReads[name]) throw new Error(`fused read ${name} registered twice`);
        fusedReads[name] = read;
      },
      fusedReads,
      setSessions(authenticator) {
        if (sessions) throw new Error('session authenticator registered twice');
        sessions = authenticator;
      },
      get sessions() {
        return sessions;
      },
    },
    baseUrl: () => config.baseUrl,
    sealedColumns: {
      add: (...columns) => void sealed.push(...columns),
      all: sealed,
    },
    masterSecret() {
      masterSecret ??= loadMasterSecret(config.secretKey, config.dataDir);
      return masterSecret;
    },
    addService(service) {
      services.push(service);
    },
    onClose(cleanup) {
      closers.push(cleanup);
    },
    async start() {
      const mine = services.filter(
        (service) => (service.roles ?? ['serve']).includes(role) && !(service.withJobs && jobsElsewhere),
      );
      for (const service of mine) await service.prepare?.();
      if (loops) {
        await jobs.start();
        if (concurrency > 0) unhold = await holdWhenSignalled(bus, (ms) => db.holdJobs(ms));
        timers.start();
        if (relays) {
          outbox.start();
          if (role === 'worker') relayWakes = await bus.subscribe(OUTBOX_WAKE_SIGNAL, () => outbox.wake());
        }
        loopsStarted = true;
      }
      for (const service of mine) {
        await service.start?.();
        started.push(service);
      }
    },
    async stop() {
      for (const service of started.splice(0).reverse()) {
        await Promise.resolve(service.stop?.()).catch((error) =>
          log.warn({ err: error, service: service.name }, 'shutdown step failed'),
        );
      }
      if (loopsStarted) {
        loopsStarted = false;
        unhold?.();
        unhold = null;
        await jobs
          .stop(config.shutdownTimeoutMs)
          .catch((error) => log.warn({ err: error }, 'jobs stop failed'));
        await timers.stop().catch((error) => log.warn({ err: error }, 'timers stop failed'));
        if (relays) {
          relayWakes?.unsubscribe();
          // Last, so what the stopping workers committed is still published.
          await outbox.stop();
          await outbox.flush().catch((error) => log.warn({ err: error }, 'final outbox flush failed'));
        }
      }
      await close();
    },
  };
}
