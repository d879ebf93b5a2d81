/**
 * The `execute_step` job: runs one step of one run (a skill run's only step, or a workflow's skill
 * step) and reports the outcome to the run's actor as STEP_SUCCEEDED or STEP_FAILED.
 *
 * Exactly one result per (run, step, attempt): the result is a row of `step_executions`, written in
 * the same statement as the run's transition that takes it (and the job's completion), so a result is
 * recorded exactly when the run took it. A job that runs again (its worker died, or its lease expired
 * while it was slow) finds the recorded result before executing and re-sends that instead; the run
 * refuses the duplicate and nothing changes. Two executions racing: the first transition wins, the
 * other is refused and records nothing. Only a step whose result was never taken executes twice.
 *
 * An approve gate's job (only for a gate a workflow run starts at) executes nothing: it sends
 * GATE_REACHED, and the run pauses there.
 *
 * A skill step: its input (the run's input, or the workflow step's `input` rendered from
 * `{input, steps}`), validated against the skill's inputSchema; the prompt rendered from `{input}`
 * (missing keys render empty and are recorded on the execution); the agent's system prompt; the
 * provider of the skill's `model.provider` (the deployment default when absent); the output
 * validated against the skill's outputSchema.
 *
 * A skill run's later attempt is a round of review (decisions.md §15 "Request changes"): the model is
 * asked with the prompt, then each draft a reviewer sent back (an assistant turn) and the reason (a
 * user turn), as the run's context keeps them (`conversation`, then `rounds`). Its tool loop starts
 * after those turns and reads back only the calls of this round.
 */

import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  FINAL_RUN_STATUSES,
  type GateReachedEvent,
  type JsonObject,
  type SkillRunContext,
  type StepFailedEvent,
  type StepSucceededEvent,
} from '../../../machines/index.js';
import { WORKER } from '../../platform/actors/acting-as.js';
import type { ActorJobPayload } from '../../platform/actors/builtin-effects.js';
import type { ActorHost, LoadedActor } from '../../platform/actors/host.js';
import { transactTogether } from '../../platform/actors/together.js';
import type { SendItem } from '../../platform/actors/types.js';
import { inLane } from '../../platform/db/lanes.js';
import type { Db } from '../../platform/db/sql.js';
import type { JobContext, JobHandler, JobKindOptions, JobOrigin } from '../../platform/jobs/queue.js';
import type { Logger } from '../../platform/log.js';
import {
  type CompletionRequest,
  type CompletionResult,
  completionOutput,
  isProviderError,
  type ModelProvider,
  revisionTurns,
} from '../../platform/models/model-provider.js';
import type { ModelProviderRegistry } from '../../platform/models/providers/index.js';
import type { AgentToolRegistry } from '../../platform/tools/registry.js';
import type { Tracing } from '../../platform/tracing/tracing.js';
import { createBatchLoader } from '../../platform/util/batch-loader.js';
import type { Clock } from '../../platform/util/clock.js';
import { renderTemplate, renderValue } from '../../platform/util/template.js';
import { skillMaxToolCalls, skillTools } from '../workspace/index.js';
import { type RunCancellations, RunCancelledError } from './cancellations.js';
import { RUN_KINDS, WORKFLOW_RUN_KIND } from './run-kinds.js';
import type { SchemaCache } from './schema-cache.js';
import type { RunManifest, SkillSnapshot } from './targets.js';
import { type CallRow, recordedCallsSql, runToolLoop } from './tool-loop.js';

/** The job kind. */
export const EXECUTE_STEP_JOB = 'execute_step';

/** The payload of an `execute_step` job (enqueued by the run machines' `enqueueJob`). */
export interface ExecuteStepPayload extends ActorJobPayload {
  step: string;
  attempt: number;
  /** The mission run whose child the run is (run-kinds.ts `jobsPayload`); absent outside missions. */
  missionRunId?: number;
}

type StepError = StepFailedEvent['error'];

/** A step's outcome as `step_executions` records it and the run is told it. */
type Recorded = ({ output: JsonObject } | { error: StepError }) & { meta?: Record<string, unknown> };

/** A step's outcome as recorded and reported. */
type Outcome =
  | { ok: true; output: JsonObject; meta: Record<string, unknown> }
  | { ok: false; error: StepError; meta: Record<string, unknown> }
  /** The run refused the tool loop's transitions (cancelled): nothing to report. */
  | { ok: false; stopped: true; meta: Record<string, unknown> };

interface RunRow {
  id: number;
  org_id: number;
  version: number;
  last_seq: number;
  snapshot: unknown;
  name: string;
  kind: 'skill' | 'workflow';
  slug: string;
  status: string;
  input: Record<string, unknown>;
  manifest: RunManifest;
  output: JsonObject | null;
  step_results: Record<string, { output: unknown }>;
  trace_id: string;
  workspace_sha: string | null;
  agent_slug: string | null;
  mission_run_id: number | string | null;
  /** The skill run this one replays (absent on a run created here without one). */
  replay_of_run_id?: number | string | null;
  /** An evaluation's shadow run (its events say so: never on a webhook). */
  shadow: boolean;
  created_by: string;
  api_token_id: string | null;
  created_at: Date;
  tool_calls: CallRow[] | null;
  /** A workflow step's start (its `step_started` event); null for a skill run. */
  step_started_at: Date | null;
  se_output: JsonObject | null;
  se_error: StepError | null;
  se_finished: Date | null;
}

/**
 * What a step reads of its run beyond what the host's load reads (`ActorHost.loadColumns`: the
 * snapshot, the kind's load columns and the columns that hold context fields).
 */
const STEP_COLUMNS =
  'r.status, r.input, r.manifest, r.trace_id, r.replay_of_run_id, r.agent_slug, r.created_by, r.api_token_id, r.created_at';

/**
 * Reads the runs of several jobs (each with what the host needs to transition it: its load's columns,
 * so a context field a run kind keeps in a column comes with it) and any recorded result of each
 * one's step, `load_key` naming the job's place in the arrays (1-based). Read-only: nothing is
 * committed before the outcome is known. Prepared: sent unnamed, it was planned on every execution,
 * and planning cost more than executing (docs/performance.md, "Choices in the code").
 */
function loadStatement(host: ActorHost): string {
  return `
  select q.n as load_key, ${host.loadColumns(RUN_KINDS, 'r', '')}, ${STEP_COLUMNS},
         ${recordedCallsSql('r.id')} as tool_calls,
         case when r.kind = 'workflow' then
           (select e.at from run_events e
             where e.run_id = r.id and e.event = 'step_started' and e.step = q.step
             order by e.seq desc limit 1)
         end as step_started_at,
         s.output as se_output, s.error as se_error, s.finished_at as se_finished
    from unnest($1::bigint[], $2::bigint[], $3::text[], $4::int[]) with ordinality as q(id, org_id, step, attempt, n)
    join runs r on r.id = q.id and r.org_id = q.org_id
    left join step_executions s on s.run_id = r.id and s.step = q.step and s.attempt = q.attempt`;
}

/**
 * Statuses in which no step outcome is taken any more. (An approved or rejected skill run still takes
 * its draft: a reviewer may decide before it exists.)
 */
const FINISHED: ReadonlySet<string> = new Set(FINAL_RUN_STATUSES);

export interface StepExecutorDeps {
  db: Db;
  host: ActorHost;
  clock: Clock;
  log: Logger;
  providers: ModelProviderRegistry;
  schemas: SchemaCache;
  /** Spans: one per step execution (in the run's trace), one per model call, one per tool call. */
  tracing: Tracing;
  /** The agent tools a skill's tool loop calls. */
  tools: AgentToolRegistry;
  /** How long a step's tool loop may take from the run's creation, a workflow step's from its start (R3_RUN_DEADLINE). */
  runDeadlineMs: number;
  /** Aborts a step's model and tool calls (and their retry waits) when its run is cancelled. */
  cancellations: RunCancellations;
}

/** Whether `step` of a workflow run is an approve gate (its job only brings the run there). */
function isGate(manifest: RunManifest, step: string): boolean {
  return (
    manifest.kind === 'workflow' &&
    manifest.workflow.steps.some((s) => s.name === step && s.type === 'approve')
  );
}

/** An object (not an array): a value parsed from JSON, so a JSON object (the host checks an output in full). */
function isPlainObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The review rounds a skill run's model is asked again with (its context's `conversation`, then its
 * own `rounds`), and when the last of its own began (its tool loop reads back only later calls).
 */
function roundsOf(loaded: LoadedActor | null): {
  rounds: Array<{ draft: JsonObject; reason: string }>;
  since: string | undefined;
} {
  const context = loaded?.snapshot.context as Partial<SkillRunContext> | undefined;
  const own = context?.rounds ?? [];
  return { rounds: [...(context?.conversation ?? []), ...own], since: own.at(-1)?.at };
}

/** The `execute_step` handler and its kind options (a dead job fails the step). */
export function createStepExecutor(deps: StepExecutorDeps): { handler: JobHandler; options: JobKindOptions } {
  const { db, host, clock, log } = deps;
  const reportTogether = transactTogether(
    host,
    (tx, items: SendItem[]) => host.sendMany(tx, RUN_KINDS, items),
    (fn) => inLane('urgent', fn),
  );
  const iso = () => new Date(clock.now()).toISOString();
  const runLoad = loadStatement(host);
  /** The runs of `keys` (and each one's recorded result), in their order; undefined where none is found. */
  async function readRuns(keys: readonly ExecuteStepPayload[]): Promise<Array<RunRow | undefined>> {
    const rows = await db.prepared<RunRow & { load_key: number }>('execute_step_load', runLoad, [
      keys.map((k) => k.actorId),
      keys.map((k) => k.orgId),
      keys.map((k) => k.step),
      keys.map((k) => k.attempt),
    ]);
    const found: Array<RunRow | undefined> = new Array(keys.length);
    for (const row of rows) found[row.load_key - 1] = row;
    return found;
  }
  // The jobs a claim hands out start in the same turn of the event loop: their runs are read in one
  // statement (a batch loader; alone, under light load), not one each (docs/performance.md,
  // "One read for a claim's runs").
  const runs = createBatchLoader<ExecuteStepPayload, RunRow | undefined>({ maxInFlight: 4, batch: readRuns });
  // A mission's child run alone, though, where the jobs' pace matters more than their cost. Read
  // together, the runs' jobs go on in step, and their transactions reach PostgreSQL in bursts: a
  // burst of new missions' planners reached their reports at once, and those (in the urgent lane: a
  // report starts the mission's first task) crowded out the hand-overs of missions under way (their
  // task scheduling delay's p99 grew several times over). Held workers (src/platform/jobs/hold.ts)
  // read together too: on their one connection, reading alone tied their pace to a round trip a run
  // and halved the runs they completed (docs/performance.md, "Held workers read a claim's runs together").
  const readRun = async (payload: ExecuteStepPayload): Promise<RunRow | undefined> =>
    payload.missionRunId === undefined ? runs.load(payload) : (await readRuns([payload]))[0];

  async function execute(
    run: RunRow,
    payload: ExecuteStepPayload,
    loaded: LoadedActor | null,
    signal: AbortSignal,
  ): Promise<Outcome> {
    const { step, attempt } = payload;
    const started = performance.now();
    const manifest = run.manifest;
    let skill: SkillSnapshot | undefined;
    let input: unknown;
    const meta: Record<string, unknown> = {};
    let review: ReturnType<typeof roundsOf> = { rounds: [], since: undefined };
    if (manifest.kind === 'skill') {
      skill = manifest.skill;
      input = run.input;
      review = roundsOf(loaded);
      if (review.rounds.length > 0) meta.rounds = review.rounds.length;
    } else {
      const definition = manifest.workflow.steps.find((s) => s.name === step);
      if (definition?.type !== 'skill') {
        return { ok: false, error: { code: 'STEP_UNKNOWN', message: `no skill step "${step}"` }, meta };
      }
      skill = manifest.skills[definition.skill];
      const rendered = renderValue(definition.input, { input: run.input, steps: run.step_results });
      input = rendered.value ?? {};
      if (rendered.missing.length > 0) meta.missingInput = rendered.missing;
    }
    if (!skill)
      return { ok: false, error: { code: 'STEP_UNKNOWN', message: `no skill for step "${step}"` }, meta };
    const slug = skill.manifest.slug;
    if (!isPlainObject(input)) {
      return {
        ok: false,
        error: { code: 'INPUT_INVALID', message: 'the step input is not an object' },
        meta,
      };
    }
    if (manifest.kind === 'workflow' && skill.manifest.inputSchema) {
      const issues = deps.schemas.check(
        `${run.org_id}:${run.workspace_sha}:skill:${slug}:input`,
        skill.manifest.inputSchema,
        'input',
      )(input);
      if (issues.length > 0) {
        const message = issues.map((i) => `${i.field} ${i.message}`).join('; ');
        return { ok: false, error: { code: 'INPUT_INVALID', message: `step input: ${message}` }, meta };
      }
    }
    const prompt = renderTemplate(skill.promptMd, { input });
    if (prompt.missing.length > 0) meta.missing = prompt.missing;
    let provider: ModelProvider;
    let result: CompletionResult;
    const model = skill.manifest.model;
    // Where the step's time went (ms): bench:tools reads r3's own share as stepMs - modelMs - toolMs,
    // and recordMs as the part of it spent waiting for the tool loop's records to commit.
    const timing = { stepMs: 0, modelMs: 0, toolMs: 0, recordMs: 0 };
    const round = (ms: number) => Math.round(ms * 100) / 100;
    const stamp = () => {
      meta.timing = {
        stepMs: round(performance.now() - started),
        modelMs: round(timing.modelMs),
        toolMs: round(timing.toolMs),
        recordMs: round(timing.recordMs),
      };
    };
    try {
      provider = deps.providers.get(model?.provider);
      meta.provider = provider.name;
      const system = manifest.agent?.systemPrompt;
      const chosen = provider;
      const attributes = {
        'gen_ai.system': provider.name,
        ...(model?.name ? { 'gen_ai.request.model': model.name } : {}),
      };
      const request: CompletionRequest = {
        prompt: prompt.text,
        ...(system ? { system } : {}),
        ...(model?.name ? { model: model.name } : {}),
        ...(model?.temperature !== undefined ? { temperature: model.temperature } : {}),
        ...(skill.manifest.outputSchema ? { json: { schema: skill.manifest.outputSchema, name: slug } } : {}),
        ...(review.rounds.length > 0 ? { turns: revisionTurns(review.rounds) } : {}),
        signal,
        traceId: run.trace_id,
      };
      const complete = (req: CompletionRequest) =>
        deps.tracing.inSpan(`model ${chosen.name}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
          const asked = performance.now();
          try {
            const answer = await chosen.complete(req);
            span?.setAttribute('gen_ai.response.model', answer.model);
            return answer;
          } finally {
            timing.modelMs += performance.now() - asked;
          }
        });
      const listed = skillTools(skill.manifest);
      // The tool loop: a skill (a skill run's, or a workflow step's) that lists tools, on a provider
      // that calls them (not echo).
      if (listed.length > 0 && provider.name !== 'echo') {
        const loop = await runToolLoop(deps, {
          run: {
            id: run.id,
            orgId: run.org_id,
            createdBy: run.created_by,
            apiTokenId: run.api_token_id,
            agentSlug: run.agent_slug,
            missionRunId: run.mission_run_id === null ? null : Number(run.mission_run_id),
            replayOf: run.replay_of_run_id == null ? null : Number(run.replay_of_run_id),
            // A workflow step's loop counts from the step's start (an earlier gate may have waited for days).
            deadline: new Date(run.step_started_at ?? run.created_at).getTime() + deps.runDeadlineMs,
          },
          step,
          attempt,
          request,
          policy: { skillTools: listed, agent: manifest.agent?.tools ?? null },
          maxToolCalls: skillMaxToolCalls(skill.manifest),
          signal,
          complete,
          loaded,
          recorded: run.tool_calls ?? [],
          ...(review.since === undefined ? {} : { since: review.since }),
        });
        meta.toolCalls = loop.toolCalls;
        timing.toolMs = loop.toolMs;
        timing.recordMs = loop.recordMs;
        if (loop.kind === 'stopped') return { ok: false, stopped: true, meta };
        if (loop.kind === 'failed') {
          meta.durationMs = Math.round(performance.now() - started);
          stamp();
          return { ok: false, error: loop.error, meta };
        }
        result = loop.result;
      } else {
        result = await complete(request);
      }
    } catch (error) {
      if (!isProviderError(error)) throw error;
      meta.durationMs = Math.round(performance.now() - started);
      return {
        ok: false,
        error: { code: error.code, message: error.message },
        meta: { ...meta, ...error.details },
      };
    }
    meta.model = result.model;
    if (result.usage) meta.usage = result.usage;
    meta.durationMs = Math.round(performance.now() - started);
    stamp();
    const output = completionOutput(result);
    if (!isPlainObject(output)) {
      return {
        ok: false,
        error: { code: 'OUTPUT_INVALID', message: 'the output is not a JSON object' },
        meta,
      };
    }
    if (skill.manifest.outputSchema) {
      const issues = deps.schemas.check(
        `${run.org_id}:${run.workspace_sha}:skill:${slug}:output`,
        skill.manifest.outputSchema,
        'output',
      )(output);
      if (issues.length > 0) {
        const message = issues.map((i) => `${i.field} ${i.message}`).join('; ');
        return {
          ok: false,
          error: { code: 'OUTPUT_INVALID', message: `output does not match outputSchema: ${message}` },
          meta,
        };
      }
    }
    return { ok: true, output, meta };
  }

  function eventOf(payload: ExecuteStepPayload, outcome: Recorded): StepFailedEvent | StepSucceededEvent {
    const at = iso();
    const { step, attempt } = payload;
    return 'error' in outcome
      ? { type: 'STEP_FAILED', step, attempt, error: outcome.error, at }
      : { type: 'STEP_SUCCEEDED', step, attempt, output: outcome.output, at };
  }

  /**
   * Reports `recorded` (an outcome) to the run. When the run takes it, the same statement records it
   * in `step_executions` (if `startedAt` is given: a fresh execution) and completes the job.
   */
  async function report(
    payload: ExecuteStepPayload,
    recorded: Recorded,
    startedAt: string | null,
    loaded: LoadedActor | null,
    job: { id: number; workerId: string } | null,
    runLog: Logger,
  ): Promise<boolean> {
    const event = eventOf(payload, recorded);
    const execution = startedAt
      ? [
          {
            run_id: payload.actorId,
            step: payload.step,
            attempt: payload.attempt,
            org_id: payload.orgId,
            output: 'error' in recorded ? null : recorded.output,
            error: 'error' in recorded ? recorded.error : null,
            meta: recorded.meta ?? {},
            started_at: startedAt,
            finished_at: event.at,
          },
        ]
      : [];
    const item: SendItem = {
      ref: { orgId: payload.orgId, id: payload.actorId },
      event,
      options: {
        actingAs: WORKER,
        loaded: loaded ?? undefined,
        extraRows: { step_executions: execution },
        ...(job ? { completesJob: job } : {}),
      },
    };
    // A mission's child run hands over to its mission run in this transaction (the next tasks start
    // in it): it goes first for a connection (platform/db/lanes.ts), straight to a real transaction
    // (its follow-ups need one; tried as a single statement first, the transition would be computed
    // twice), and together with its siblings' reports that start while it waits for the connection
    // (together.ts: one transaction, one transition of the mission run).
    const missionRunId = loaded?.row.columns.mission_run_id;
    const result = await (missionRunId != null
      ? reportTogether(`${payload.orgId}:${missionRunId}`, item)
      : host.transact((tx) => host.send(tx, RUN_KINDS, item.ref, event, item.options), { single: true }));
    if (result.outcome === 'invalid' && event.type === 'STEP_SUCCEEDED') {
      // An output the run's event schema refuses (not plain JSON) fails the step instead.
      const message = result.issues.map((i) => `${i.field} ${i.message}`).join('; ');
      const error = { code: 'OUTPUT_INVALID', message: `the output is not a JSON object: ${message}` };
      return report(payload, { error, meta: recorded.meta ?? {} }, startedAt, loaded, job, runLog);
    }
    if (result.outcome !== 'applied') {
      runLog.debug({ outcome: result.outcome }, 'step outcome not taken: duplicate or stale');
    }
    return result.outcome === 'applied';
  }

  /**
   * Brings a workflow run to the gate it starts at (GATE_REACHED: it pauses and opens its review
   * item), completing the job in the same transaction. Refused means a duplicate: already there.
   */
  async function reachGate(
    payload: ExecuteStepPayload,
    loaded: LoadedActor | null,
    job: { id: number; workerId: string },
    runLog: Logger,
  ): Promise<boolean> {
    const event: GateReachedEvent = { type: 'GATE_REACHED', step: payload.step, at: iso() };
    const result = await host.transact(
      (tx) =>
        host.send(tx, WORKFLOW_RUN_KIND, { orgId: payload.orgId, id: payload.actorId }, event, {
          actingAs: WORKER,
          loaded: loaded ?? undefined,
          completesJob: job,
        }),
      { single: true },
    );
    if (result.outcome !== 'applied') runLog.debug({ outcome: result.outcome }, 'gate already reached');
    return result.outcome === 'applied';
  }

  /**
   * The run of a job started where its creation committed (`JobContext.origin`), as that transaction
   * wrote it, instead of reading it: a skill run's first execution, so no step execution, tool call
   * or workflow step exists yet. Its cancel is seen as a read would see it: nobody else could cancel
   * the run before that commit, and the watch began at it (the handler runs in the commit's callback).
   */
  function createdRun(
    origin: JobOrigin,
    payload: ExecuteStepPayload,
  ): { run: RunRow; loaded: LoadedActor } | null {
    const row = origin.row;
    if (row.id !== payload.actorId || row.kind !== 'skill' || payload.attempt !== 1) return null;
    const run = {
      ...(row as unknown as RunRow),
      created_at: new Date(row.created_at as string),
      tool_calls: null,
      step_started_at: null,
      se_output: null,
      se_error: null,
      se_finished: null,
    };
    return { run, loaded: origin.actor };
  }

  const handler: JobHandler = (ctx) => {
    const payload = ctx.job.payload as ExecuteStepPayload;
    // Watched before the run is read: a cancel committed after the read aborts the step's calls.
    return deps.cancellations.watch(payload.orgId, payload.actorId, (cancelled) =>
      handle(ctx, payload, AbortSignal.any([ctx.signal, cancelled])),
    );
  };

  async function handle(ctx: JobContext, payload: ExecuteStepPayload, signal: AbortSignal): Promise<void> {
    const created = ctx.origin ? createdRun(ctx.origin, payload) : null;
    const run = created?.run ?? (await readRun(payload));
    if (!run) return;
    const runLog = ctx.log.child({ runId: run.id, traceId: run.trace_id, step: payload.step });
    const loaded = created?.loaded ?? host.resolveRow(RUN_KINDS, run as unknown as Record<string, unknown>);
    const job = { id: ctx.job.id, workerId: ctx.workerId };
    if (run.se_finished) {
      // Recorded by an earlier execution (and so already taken by the run): re-send it, never re-run.
      const recorded: Recorded = run.se_error ? { error: run.se_error } : { output: run.se_output ?? {} };
      if (await report(payload, recorded, null, loaded, job, runLog)) ctx.markCompleted();
      return;
    }
    if (FINISHED.has(run.status)) {
      runLog.debug({ status: run.status }, 'run is over; step not executed');
      return;
    }
    if (isGate(run.manifest, payload.step)) {
      if (await reachGate(payload, loaded, job, runLog)) ctx.markCompleted();
      return;
    }
    const attributes = {
      'r3.run.id': run.id,
      'r3.run.step': payload.step,
      'r3.run.step.attempt': payload.attempt,
    };
    const parent = deps.tracing.runContext(run.trace_id, run.id);
    await deps.tracing.inSpan(`run step ${payload.step}`, { parent, attributes }, async (span) => {
      const startedAt = iso();
      let outcome: Outcome;
      try {
        outcome = await execute(run, payload, loaded, signal);
      } catch (error) {
        if (!(signal.reason instanceof RunCancelledError && signal.aborted)) throw error;
        runLog.info('run is over: cancelled while the step executed');
        return;
      }
      if ('stopped' in outcome) {
        runLog.info({ toolCalls: outcome.meta.toolCalls }, 'run is over: tool loop stopped between calls');
        return;
      }
      if (!outcome.ok) {
        runLog.info({ error: outcome.error }, 'step failed');
        span?.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error.code });
      }
      const recorded: Recorded = outcome.ok
        ? { output: outcome.output, meta: outcome.meta }
        : { error: outcome.error, meta: outcome.meta };
      if (await report(payload, recorded, startedAt, loaded, job, runLog)) ctx.markCompleted();
    });
  }

  return {
    handler,
    options: {
      async onDead(job, error) {
        const payload = job.payload as ExecuteStepPayload;
        const recorded: Recorded = {
          error: { code: 'EXECUTION_FAILED', message: `the step could not be executed: ${error}` },
          meta: { job: job.id, attempts: job.attempts },
        };
        await report(
          payload,
          recorded,
          iso(),
          null,
          null,
          log.child({ runId: payload.actorId, step: payload.step }),
        );
      },
    },
  };
}
