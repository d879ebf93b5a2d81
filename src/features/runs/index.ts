/**
 * Runs: skill and workflow runs (the `skill-run` and `workflow-run` actors), the `execute_step` job
 * that executes their steps on the model providers, the runs routes, per-run event streams (SSE),
 * the runtime MCP tools, and the review subjects `skill` and `workflow` (a run waiting for approval
 * is an item of the review queue).
 */
import { z } from 'zod';
import { skillRunMachine, workflowRunMachine } from '../../../machines/index.js';
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { ReviewsApi } from '../reviews/index.js';
import type { WorkspaceApi } from '../workspace/index.js';
import { createRunCancellations } from './cancellations.js';
import { createStepExecutor, EXECUTE_STEP_JOB } from './execute-step.js';
import { sweepKeys } from './idempotency.js';
import { runResources, runTasks, runtimeTools } from './mcp-tools.js';
import { Migration0009RunEventsCascade } from './migrations/0009-run-events-cascade.js';
import { Migration0022ToolCalls } from './migrations/0022-tool-calls.js';
import { Migration0047RunForks } from './migrations/0047-run-forks.js';
import { Migration0048RunReplays } from './migrations/0048-run-replays.js';
import { Migration0050RunObjects } from './migrations/0050-run-objects.js';
import { createReviewStepsReader, reviewSteps } from './review-steps.js';
import { runRoutes } from './routes.js';
import { type ChildRunListener, RUN_KINDS, runKinds } from './run-kinds.js';
import { createSchemaCache } from './schema-cache.js';
import { RunService } from './service.js';
import { runStreamRoutes } from './sse/routes.js';
import { RunStreamService } from './sse/stream-service.js';
import { fusedRunRead, runPath } from './view.js';

export {
  claimKey,
  completeKey,
  findKey,
  replay,
  requestHash,
} from './idempotency.js';
export type { Learning } from './learnings.js';
export { RUN_STATUS_FILTERS } from './routes.js';
export { isTerminalRunEvent, runEventPayloadSchema } from './run-event-payload.js';
export {
  type ChildRunListener,
  RUN_KINDS,
  type RunEventPayload,
  SKILL_RUN_KIND,
  WORKFLOW_RUN_KIND,
} from './run-kinds.js';
export { createSchemaCache, type SchemaCache } from './schema-cache.js';
export type { PreparedRun, RunService } from './service.js';
export type { RunStreamService } from './sse/stream-service.js';
export type { AgentSnapshot, SkillRunManifest, SkillSnapshot } from './targets.js';
export type { RunView } from './view.js';

/** What the runs feature offers. */
export interface RunsApi {
  runs: RunService;
  /** Where the mission feature listens to its child runs' events (see `ChildRunListener`). */
  childRuns: { onEvent(listener: ChildRunListener): void };
  /** Per-run server-sent-event streams of this process. */
  streams: RunStreamService;
}

/** A JSON object (a draft, a step's output). */
const objectSchema = z.record(z.string(), z.unknown());

/** Edits of a skill run's approval: the output that replaces the draft. */
const SKILL_EDITS = z.strictObject({ output: objectSchema });

/** Edits of a workflow gate's approval: outputs of completed steps, replacing what later steps read. */
const WORKFLOW_EDITS = z.strictObject({
  stepOutputs: z.record(z.string().min(1).max(63), objectSchema).refine((o) => Object.keys(o).length > 0, {
    message: 'names at least one step',
  }),
});

/** How long `runtime_run_skill` waits for the run to settle. */
const RUN_WAIT_MS = 60_000;

/** How often expired idempotency keys are swept. */
const MAINTENANCE_MS = 10 * 60_000;

export const runsFeature = defineFeature({
  name: 'runs',
  migrations: [
    { name: '0009-run-events-cascade', class: Migration0009RunEventsCascade },
    { name: '0022-tool-calls', class: Migration0022ToolCalls },
    { name: '0047-run-forks', class: Migration0047RunForks },
    { name: '0048-run-replays', class: Migration0048RunReplays },
    { name: '0050-run-objects', class: Migration0050RunObjects },
  ],
  machines: { 'skill-run': skillRunMachine, 'workflow-run': workflowRunMachine },
  register(
    platform: Platform,
    { workspace, reviews }: { workspace: WorkspaceApi; reviews: ReviewsApi },
  ): RunsApi {
    const { config, db, bus, clock, log, actors, jobs } = platform;
    const childListeners: ChildRunListener[] = [];
    for (const kind of runKinds(reviews.reviewItems, platform.metrics, childListeners)) actors.register(kind);

    const schemas = createSchemaCache();
    const cancellations = createRunCancellations(bus, log);
    platform.addService({
      name: 'run cancellations',
      roles: ['serve', 'worker'],
      prepare: () => cancellations.start(),
      stop: () => cancellations.stop(),
    });
    const executor = createStepExecutor({
      db: db.sql,
      host: actors,
      clock,
      log,
      providers: platform.models,
      schemas,
      tracing: platform.tracing,
      tools: platform.agentTools,
      runDeadlineMs: platform.config.runDeadlineMs,
      cancellations,
    });
    jobs.register(EXECUTE_STEP_JOB, executor.handler, executor.options);

    const runs = new RunService({
      db: db.sql,
      host: actors,
      clock,
      applied: workspace.applied,
      workspace: workspace.workspace,
      schemas,
      baseUrl: platform.baseUrl,
    });
    const streams = new RunStreamService({
      db: db.sql,
      bus,
      log,
      heartbeatMs: config.sse.heartbeatMs,
      maxStreamsPerToken: config.sse.maxStreamsPerToken,
      queueLimit: config.sse.queueLimit,
    });

    const stepsReader = createReviewStepsReader(db.sql);
    for (const kind of ['skill', 'workflow'] as const) {
      reviews.reviewSubjects.register(kind, {
        decide: (tx, decider, id, decision) => runs.decideIn(tx, decider, id, decision),
        // decideIn's transition is one of these kinds' (runs.decideIn sends to RUN_KINDS).
        actors: RUN_KINDS,
        // A skill run's draft may go back to its model (decisions.md §15); a workflow gate's may not.
        ...(kind === 'skill'
          ? { requestChanges: (tx, decider, id, request) => runs.requestChangesIn(tx, decider, id, request) }
          : {}),
        edits: kind === 'skill' ? SKILL_EDITS : WORKFLOW_EDITS,
        view: (principal, id) => runs.get(principal, id),
        steps: (principal, id) => reviewSteps(stepsReader, principal, kind, id),
        reviewUrl: (id) => `${platform.baseUrl()}/review/runs/${id}`,
        pollUrl: runPath,
      });
    }

    // GET /runs/:id and runtime_get_run read the run in the statement that authenticates the caller.
    platform.auth.addFusedRead('run', fusedRunRead(platform.baseUrl));
    platform.routes.add(...runRoutes(runs, reviews.decisions), ...runStreamRoutes(streams));
    platform.mcp.add(
      ...runtimeTools({ runs, bus, log, decisions: reviews.decisions }, { waitMs: RUN_WAIT_MS }),
    );
    platform.mcp.addResources(runResources(runs));
    platform.mcp.addTaskKinds(runTasks({ runs, bus, log }));

    let maintenance: NodeJS.Timeout | null = null;
    platform.addService({
      name: 'idempotency key sweep',
      start() {
        maintenance = setInterval(() => {
          void sweepKeys(db.sql, clock.now()).catch((error) =>
            log.warn({ err: error }, 'idempotency sweep failed'),
          );
        }, MAINTENANCE_MS);
        maintenance.unref();
      },
      stop() {
        if (maintenance) clearInterval(maintenance);
      },
    });
    platform.addService({ name: 'run streams', stop: () => streams.close() });
    return { runs, streams, childRuns: { onEvent: (listener) => childListeners.push(listener) } };
  },
});
