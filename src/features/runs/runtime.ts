/**
 * Wiring of the run machinery for the composition root: the actor host with its kinds, the job queue
 * with the step executor, the timer scheduler, the outbox relay and the run service; `start()` starts
 * their loops (workers only when R3_WORKER_CONCURRENCY > 0), `stop()` stops them, newest first.
 */
import { type ActorHost, createActorHost } from '../../platform/actors/host.js';
import { createTimerScheduler, type TimerScheduler } from '../../platform/actors/timers.js';
import type { Bus } from '../../platform/bus/bus.js';
import type { Config } from '../../platform/config.js';
import type { Database } from '../../platform/db/database.js';
import { createJobQueue, type JobQueue } from '../../platform/jobs/queue.js';
import type { Logger } from '../../platform/log.js';
import {
  createModelProviderRegistry,
  type ModelProviderRegistry,
} from '../../platform/models/providers/index.js';
import { createOutboxRelay, type OutboxRelay } from '../../platform/outbox/relay.js';
import type { Clock } from '../../platform/util/clock.js';
import { reviewItemKind } from '../reviews/review-item-kind.js';
import { AppliedResources } from '../workspace/applied.js';
import { createStepExecutor, EXECUTE_STEP_JOB } from './execute-step.js';
import { sweepKeys } from './idempotency.js';
import { runKinds } from './run-kinds.js';
import { createSchemaCache } from './schema-cache.js';
import { RunService } from './service.js';

/** The run machinery of one process. */
export interface RunRuntime {
  actors: ActorHost;
  jobs: JobQueue;
  timers: TimerScheduler;
  outbox: OutboxRelay;
  runs: RunService;
  models: ModelProviderRegistry;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface RunRuntimeDeps {
  config: Config;
  db: Database;
  bus: Bus;
  clock: Clock;
  log: Logger;
  /** Replaces the configured model providers (tests). */
  models?: ModelProviderRegistry;
}

const MAINTENANCE_MS = 10 * 60_000;

/** Builds the run machinery (nothing runs until `start()`). */
export function createRunRuntime(deps: RunRuntimeDeps): RunRuntime {
  const { config, db, bus, clock, log } = deps;
  const actors = createActorHost({ db: db.sql, clock, log });
  actors.register(reviewItemKind);
  for (const kind of runKinds(actors, log)) actors.register(kind);

  const jobs = createJobQueue({ db: db.sql, bus, clock, log, concurrency: config.workerConcurrency });
  const timers = createTimerScheduler({ db: db.sql, host: actors, clock, log });
  const outbox = createOutboxRelay({ db: db.sql, bus, log });
  actors.onWake((what) => {
    if (what === 'jobs') jobs.notifyEnqueued();
    else if (what === 'outbox') outbox.wake();
    else timers.wake();
  });

  const models =
    deps.models ??
    createModelProviderRegistry({
      provider: config.model.provider,
      openai: {
        baseUrl: config.model.openai.baseUrl,
        model: config.model.openai.model,
        ...(config.model.openai.apiKey ? { apiKey: config.model.openai.apiKey } : {}),
      },
    });
  const schemas = createSchemaCache();
  const executor = createStepExecutor({ db: db.sql, host: actors, clock, log, providers: models, schemas });
  jobs.register(EXECUTE_STEP_JOB, executor.handler, executor.options);

  const runs = new RunService({
    db: db.sql,
    host: actors,
    clock,
    applied: new AppliedResources(db.sql),
    schemas,
    baseUrl: () => config.baseUrl,
  });

  let maintenance: NodeJS.Timeout | null = null;
  return {
    actors,
    jobs,
    timers,
    outbox,
    runs,
    models,
    async start() {
      await jobs.start();
      timers.start();
      outbox.start();
      maintenance = setInterval(() => {
        void sweepKeys(db.sql, clock.now()).catch((error) =>
          log.warn({ err: error }, 'idempotency sweep failed'),
        );
      }, MAINTENANCE_MS);
      maintenance.unref();
    },
    async stop() {
      if (maintenance) clearInterval(maintenance);
      await jobs.stop(config.shutdownTimeoutMs);
      await timers.stop();
      // Last, so what the stopping workers committed is still published.
      await outbox.stop();
      await outbox.flush().catch((error) => log.warn({ err: error }, 'final outbox flush failed'));
    },
  };
}
