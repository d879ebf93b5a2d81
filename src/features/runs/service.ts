/**
 * Runs as the API (and later MCP and the review queue) use them: trigger a skill or workflow run,
 * read and list runs, decide one (approve, reject: only for the review queue's choke point,
 * reviews/decisions.ts), cancel, give feedback. Every state change is a transition of
 * the run's actor through the host (409 when the run's state refuses it); feedback is not a state
 * change, only columns.
 *
 * Terminology: a *trigger* creates a run (202); a *decision* is approve or reject; *replayed* means an
 * idempotent trigger answered from its key's record.
 */

import { setImmediate as nextTurn } from 'node:timers/promises';
import type {
  JsonObject,
  RunApproveEvent,
  RunCancelEvent,
  RunRejectEvent,
  SkillRunInput,
  StepResults,
  WorkflowRunInput,
} from '../../../machines/index.js';
import { actingAs } from '../../platform/actors/acting-as.js';
import {
  type ActorHost,
  actorStatus,
  type SendResult,
  type TransitionAudit,
} from '../../platform/actors/host.js';
import type { ActorTx } from '../../platform/actors/tx.js';
import type { CreateArgs } from '../../platform/actors/types.js';
import { recordAuditSql } from '../../platform/audit/audit.js';
import type { Attribution } from '../../platform/auth/attribution.js';
import type { FusedAnswer } from '../../platform/auth/authenticate.js';
import type { Principal } from '../../platform/auth/principal.js';
import type { Db } from '../../platform/db/sql.js';
import { type ApiError, conflict, notFound, validationFailed } from '../../platform/errors.js';
import type { Clock } from '../../platform/util/clock.js';
import { newTraceId } from '../../platform/util/trace.js';
import {
  badEdit,
  changeRequestAudit,
  changeRequestEvent,
  type Decider,
  decisionEvent,
  type SubjectChangeRequest,
  type SubjectDecision,
  type SubjectOutcome,
  subjectOutcome,
} from '../reviews/index.js';
import { type AppliedResources, renderRunTitle, shortSha, type WorkspaceStore } from '../workspace/index.js';
import { claimKey, completeKey, findKey, replay, requestHash } from './idempotency.js';
import { agentLearnings, type Learning } from './learnings.js';
import { RUN_KINDS, SKILL_RUN_KIND, WORKFLOW_RUN_KIND } from './run-kinds.js';
import type { SchemaCache } from './schema-cache.js';
import {
  type RunManifest,
  type RunTarget,
  resolveSkillTarget,
  resolveWorkflowTarget,
  resourcesAt,
  type SkillSnapshot,
  type TargetResources,
} from './targets.js';
import { createRunReader, listRuns, type RunFilter, type RunView, runPath } from './view.js';

/** Body of `POST /skills/:slug/runs` and `POST /workflows/:slug/runs`. */
export interface TriggerBody {
  input: Record<string, unknown>;
  idempotencyKey?: string | undefined;
  agentSlug?: string | undefined;
  /** Object instances of the org the run uses: linked `via: "input"` (400 for one it does not have). */
  objects?: number[] | undefined;
}

/** A workflow run r3 starts by itself, resolved and checked (`prepareTriggered`). */
export interface PreparedRun {
  orgId: number;
  slug: string;
  target: RunTarget;
  input: Record<string, unknown>;
}

/** The 202 answer of a trigger. */
export interface TriggerAnswer {
  runId: number;
  status: string;
  pollUrl: string;
}

/** A trigger's outcome: the answer, and whether it was replayed from an idempotency key. */
export interface TriggerResult {
  answer: TriggerAnswer;
  replayed: boolean;
}

/** Body of `POST /runs/:id/fork` (docs/api.md "Fork a run"). */
export interface ForkBody {
  fromStep?: string | undefined;
  input?: Record<string, unknown> | undefined;
  /** `current` (the applied version) or a version's sha; absent: the forked run's own version. */
  workspace?: string | undefined;
}

/** The 202 answer of a fork. */
export interface ForkAnswer extends TriggerAnswer {
  forkOf: { runId: number; fromStep: string | null };
}

/** A shadow replay of a skill run, prepared for an evaluation (`RunService.prepareShadowReplays`). */
export interface ShadowReplay {
  originalRunId: number;
  slug: string;
  target: RunTarget;
  input: Record<string, unknown>;
  agentSlug: string | null;
}

/** A run to create (`createIn`, `createShadowsIn`). */
interface NewRun {
  orgId: number;
  kind: 'skill' | 'workflow';
  slug: string;
  target: RunTarget;
  input: Record<string, unknown>;
  agentSlug: string | null;
  by: Attribution;
  traceId: string | undefined;
  /** The run this one forks, when it is a fork. */
  fork?: ForkOrigin;
  /** The skill run this one replays, when it is a replay. */
  replayOf?: number;
  /** A shadow run (an evaluation's replay): no review, no webhook, its job in the background. */
  shadow?: boolean;
  audit: { details: Record<string, unknown>; requestId: string | null };
}

/** The actor kinds of runs. */
type RunKind = (typeof RUN_KINDS)[number];

/**
 * Shadow runs prepared and created per turn of the event loop: an evaluation's hundred in one turn
 * held the loop long enough that every request arriving meanwhile waited it out (docs/performance.md,
 * "Evaluations"); between chunks, other work runs.
 */
const SHADOW_CHUNK = 10;

/** Where a fork starts: the run it forks, its step (workflow runs) and the results it copies. */
interface ForkOrigin {
  runId: number;
  fromStep: string | null;
  from: NonNullable<WorkflowRunInput['from']> | null;
}

/** One row of a run's transition log. */
export interface TransitionView {
  id: number;
  actorKind: string;
  actorId: number;
  from: string | null;
  event: unknown;
  to: string;
  actor: string;
  at: string;
}

export interface RunServiceDeps {
  db: Db;
  host: ActorHost;
  clock: Clock;
  applied: AppliedResources;
  /** Workspace versions, for a fork on another version than the applied one. */
  workspace: WorkspaceStore;
  schemas: SchemaCache;
  /** BASE_URL (read at call time: PORT=0 learns its port at start). */
  baseUrl(): string;
}

/** Whether a run of `target` waits for review from its creation: a skill that requires approval. */
function opensReview(target: RunTarget): boolean {
  return target.manifest.kind === 'skill' && target.manifest.skill.manifest.requiresApproval;
}

/**
 * Where a fork of run `runId` starts on `target`: nothing for a skill run; for a workflow run the step
 * `fromStep` (default: the first) and the forked run's results of every step before it, copied. 400
 * when the workflow has no such step, or a step before it has no result in the forked run.
 */
function forkOrigin(
  runId: number,
  target: RunTarget,
  results: StepResults,
  fromStep: string | undefined,
): ForkOrigin {
  if (target.manifest.kind !== 'workflow') return { runId, fromStep: null, from: null };
  const steps = target.manifest.workflow.steps.map((step) => step.name);
  const name = fromStep ?? (steps[0] as string);
  const index = steps.indexOf(name);
  if (index < 0) {
    throw validationFailed([
      { field: 'body.fromStep', message: `The workflow has no step "${name}".`, fromStep: name, steps },
    ]);
  }
  const missing = steps.slice(0, index).filter((step) => results[step] === undefined);
  if (missing.length > 0) {
    throw validationFailed([
      {
        field: 'body.fromStep',
        message: `Run ${runId} has no result for step "${missing[0]}" before "${name}"; fork from a step whose earlier steps completed.`,
        fromStep: name,
        missing,
      },
    ]);
  }
  const copied: StepResults = {};
  for (const step of steps.slice(0, index)) {
    copied[step] = { output: (results[step] as StepResults[string]).output, copied: true };
  }
  return { runId, fromStep: name, from: { index, stepResults: copied } };
}

export class RunService {
  /** Reads runs by id for concurrent callers in one statement per batch. */
  private readonly reader: ReturnType<typeof createRunReader>;

  constructor(private readonly deps: RunServiceDeps) {
    this.reader = createRunReader(deps.db, deps.baseUrl);
  }

  /**
   * Creates a run of skill or workflow `slug` (docs/api.md "Runs"): 404 unknown slug, 409 inactive skill,
   * 400 bad agent or input, 409 idempotency key reused with another request. `request.appliedSha`:
   * the org's applied version as the request's authentication read it, when it did
   * (`fusedAppliedRead`).
   */
  async trigger(
    principal: Pick<Principal, 'orgId' | 'actor' | 'tokenId'>,
    kind: 'skill' | 'workflow',
    slug: string,
    body: TriggerBody,
    request: {
      method: string;
      path: string;
      requestId: string | null;
      appliedSha?: string | null;
      /** The trace the run joins (the request's); a new one when absent. */
      traceId?: string | undefined;
    },
  ): Promise<TriggerResult> {
    const { db, host, clock } = this.deps;
    const key = body.idempotencyKey;
    // Keys are the token's; without a token (stdio MCP) they are the actor's within its org.
    const tokenKey = principal.tokenId ?? `${principal.actor}@org:${principal.orgId}`;
    const hash = key === undefined ? '' : requestHash(request.method, request.path, body);
    if (key !== undefined) {
      const prior = await findKey(db, tokenKey, key, clock.now());
      if (prior) return { answer: replay(prior, hash, key) as TriggerAnswer, replayed: true };
    }
    const resolve = kind === 'skill' ? resolveSkillTarget : resolveWorkflowTarget;
    const target = await resolve(
      this.deps.applied,
      principal.orgId,
      slug,
      body.agentSlug,
      request.appliedSha,
    );
    this.checkInput(principal.orgId, kind, slug, target, body.input);
    const objects = body.objects ?? [];
    await this.checkObjects(principal.orgId, objects);
    const by = actingAs(principal);
    // Without a key the creation is one statement, a single transaction — unless the run waits for
    // review from its start (a gated skill): its item is opened in a follow-up, which needs a real
    // transaction, so it starts in one rather than computing the creation twice (so do its links).
    const single = key === undefined && !opensReview(target) && objects.length === 0;
    return host.transact(
      async (tx) => {
        if (key !== undefined) {
          const holder = await claimKey(tx.sql, {
            tokenKey,
            key,
            orgId: principal.orgId,
            hash,
            now: clock.now(),
          });
          if (holder) return { answer: replay(holder, hash, key) as TriggerAnswer, replayed: true };
        }
        const answer = await this.createIn(tx, {
          orgId: principal.orgId,
          kind,
          slug,
          target,
          input: body.input,
          agentSlug: body.agentSlug ?? null,
          by,
          traceId: request.traceId,
          audit: { details: { kind, slug, idempotencyKey: key ?? null }, requestId: request.requestId },
        });
        const runId = answer.runId;
        if (objects.length > 0) {
          await tx.sql.query(
            `insert into run_objects (run_id, object_id, org_id, via)
             select $1, o.id, o.org_id, 'input' from object_instances o where o.org_id = $2 and o.id = any($3::bigint[])`,
            [runId, principal.orgId, objects],
          );
        }
        if (key !== undefined) await completeKey(tx.sql, tokenKey, key, runId, answer);
        return { answer, replayed: false };
      },
      { single },
    );
  }

  /**
   * Resolves workflow `slug` for a run that r3 starts by itself (a workflow trigger) and checks
   * `input` against its inputSchema; throws what `trigger` answers (404 unknown workflow, 409 an
   * inactive step skill, 400 input).
   */
  async prepareTriggered(orgId: number, slug: string, input: Record<string, unknown>): Promise<PreparedRun> {
    const target = await resolveWorkflowTarget(this.deps.applied, orgId, slug, undefined);
    this.checkInput(orgId, 'workflow', slug, target, input);
    return { orgId, slug, target, input };
  }

  /**
   * Creates a prepared workflow run in the caller's transaction. It has no token: it is attributed to
   * `createdBy` (its `createdBy`, the actor of its transitions and audit row); `details` join the
   * `run.create` audit row's.
   */
  async createTriggered(
    tx: ActorTx,
    run: PreparedRun,
    by: { createdBy: string; details: Record<string, unknown> },
  ): Promise<TriggerAnswer> {
    return this.createIn(tx, {
      orgId: run.orgId,
      kind: 'workflow',
      slug: run.slug,
      target: run.target,
      input: run.input,
      agentSlug: null,
      by: { actor: by.createdBy, apiTokenId: null },
      traceId: undefined,
      audit: { details: { kind: 'workflow', slug: run.slug, ...by.details }, requestId: null },
    });
  }

  /**
   * Forks run `id` (docs/api.md "Fork a run"): a new run of the same skill or workflow, on the
   * run's own version, the applied one (`current`) or version `body.workspace`, with `body.input` or
   * the run's input. A workflow fork copies the results of the steps before `fromStep` (default: the
   * first step) and executes from there. 404 unknown run or version; 409 a run still running; 400
   * `fromStep` unknown, on a skill run, or after a step without a result; 400 input.
   */
  async fork(
    principal: Pick<Principal, 'orgId' | 'actor' | 'tokenId'>,
    id: number,
    body: ForkBody,
    request: { requestId: string | null; traceId?: string | undefined },
  ): Promise<ForkAnswer> {
    const { host } = this.deps;
    const original = await this.stoppedRun(principal.orgId, id, 'fork');
    const { kind, slug } = original;
    if (kind === 'skill' && body.fromStep !== undefined) {
      throw validationFailed([
        {
          field: 'body.fromStep',
          message: 'A skill run has no steps: its fork re-runs the skill.',
          runId: id,
        },
      ]);
    }
    const target = await this.forkTarget(principal.orgId, original, body.workspace);
    const input = body.input ?? original.input;
    this.checkInput(principal.orgId, kind, slug, target, input);
    const origin = forkOrigin(id, target, original.step_results ?? {}, body.fromStep);
    const by = actingAs(principal);
    const answer = await host.transact(
      (tx) =>
        this.createIn(tx, {
          orgId: principal.orgId,
          kind,
          slug,
          target,
          input,
          agentSlug: original.agent_slug,
          by,
          traceId: request.traceId,
          fork: origin,
          audit: {
            details: {
              kind,
              slug,
              forkOf: id,
              fromStep: origin.fromStep,
              workspace: body.workspace ?? null,
            },
            requestId: request.requestId,
          },
        }),
      { single: !opensReview(target) },
    );
    return { ...answer, forkOf: { runId: id, fromStep: origin.fromStep } };
  }

  /**
   * Replays skill run `id` on version `workspace` (docs/api.md "Replay a skill run"): a new run of the
   * skill with the run's input and agent, whose tool calls equal to the run's recorded ones are
   * answered from the record and whose other calls of writing tools are refused (tool-loop.ts). 404
   * unknown run or version; 409 a run still running; 400 a workflow run.
   */
  async replay(
    principal: Pick<Principal, 'orgId' | 'actor' | 'tokenId'>,
    id: number,
    workspace: string,
    request: { requestId: string | null; traceId?: string | undefined },
  ): Promise<TriggerAnswer & { replayOf: number }> {
    const original = await this.stoppedRun(principal.orgId, id, 'replay');
    if (original.kind !== 'skill') {
      throw validationFailed(
        [
          {
            field: 'params.id',
            message: 'Only skill runs are replayed; fork a workflow run instead.',
            runId: id,
          },
        ],
        `Run ${id} is a workflow run; only skill runs are replayed.`,
      );
    }
    const target = await this.forkTarget(principal.orgId, original, workspace);
    this.checkInput(principal.orgId, 'skill', original.slug, target, original.input);
    const answer = await this.deps.host.transact(
      (tx) =>
        this.createIn(tx, {
          orgId: principal.orgId,
          kind: 'skill',
          slug: original.slug,
          target,
          input: original.input,
          agentSlug: original.agent_slug,
          by: actingAs(principal),
          traceId: request.traceId,
          replayOf: id,
          audit: {
            details: { kind: 'skill', slug: original.slug, replayOf: id, workspace },
            requestId: request.requestId,
          },
        }),
      { single: !opensReview(target) },
    );
    return { ...answer, replayOf: id };
  }

  /**
   * Shadow replays of skill `slug`'s runs `originals` on version `sha` (full), for an evaluation
   * (docs/api.md "Evaluations"): each original's target at that version with its agent, its input
   * checked against that version's inputSchema. 404 when the skill is not at that version; 400 when an
   * original's agent or input does not fit it. Nothing is written: `createShadowsIn` creates them.
   */
  async prepareShadowReplays(
    orgId: number,
    slug: string,
    sha: string,
    originals: ReadonlyArray<{ id: number; input: Record<string, unknown>; agentSlug: string | null }>,
  ): Promise<ShadowReplay[]> {
    const resources = resourcesAt(this.deps.workspace, orgId, sha);
    const targets = new Map<string | null, Promise<RunTarget>>();
    const targetOf = (agent: string | null) => {
      let target = targets.get(agent);
      if (!target) {
        target = resolveSkillTarget(resources, orgId, slug, agent ?? undefined);
        targets.set(agent, target);
      }
      return target;
    };
    const replays: ShadowReplay[] = [];
    for (const original of originals) {
      if (replays.length > 0 && replays.length % SHADOW_CHUNK === 0) await nextTurn();
      const target = await targetOf(original.agentSlug);
      try {
        this.checkInput(orgId, 'skill', slug, target, original.input);
      } catch (error) {
        throw validationFailed(
          [
            {
              field: 'body.workspace',
              message: `run ${original.id}'s input does not match this version's inputSchema`,
              runId: original.id,
            },
          ],
          `Run ${original.id}'s input does not match the inputSchema of skill "${slug}" at ${shortSha(sha)}: ${(error as Error).message}`,
        );
      }
      replays.push({
        originalRunId: original.id,
        slug,
        target,
        input: original.input,
        agentSlug: original.agentSlug,
      });
    }
    return replays;
  }

  /**
   * Creates shadow replays `replays` in `tx` (an evaluation's transaction), a write per SHADOW_CHUNK
   * (the event loop turns between them): skill runs
   * with `shadow: true` that replay their originals (tool calls answered from the record, writing
   * tools refused), never open a review item nor reach a webhook, and whose jobs run in the background
   * (below every other job). Their run ids, in the order of `replays`.
   */
  async createShadowsIn(
    tx: ActorTx,
    principal: Pick<Principal, 'orgId' | 'actor' | 'tokenId'>,
    replays: readonly ShadowReplay[],
    audit: { evaluationId: number; requestId: string | null },
  ): Promise<number[]> {
    const ids: number[] = [];
    for (let at = 0; at < replays.length; at += SHADOW_CHUNK) {
      if (at > 0) await nextTurn();
      const created = await this.createShadowChunk(
        tx,
        principal,
        replays.slice(at, at + SHADOW_CHUNK),
        audit,
      );
      ids.push(...created);
    }
    return ids;
  }

  /** `createShadowsIn` for one chunk: one write. */
  private async createShadowChunk(
    tx: ActorTx,
    principal: Pick<Principal, 'orgId' | 'actor' | 'tokenId'>,
    replays: readonly ShadowReplay[],
    audit: { evaluationId: number; requestId: string | null },
  ): Promise<number[]> {
    const created = await this.deps.host.createMany<RunKind>(
      tx,
      SKILL_RUN_KIND,
      replays.map((replay) =>
        this.creation({
          orgId: principal.orgId,
          kind: 'skill',
          slug: replay.slug,
          target: replay.target,
          input: replay.input,
          agentSlug: replay.agentSlug,
          by: actingAs(principal),
          traceId: undefined,
          replayOf: replay.originalRunId,
          shadow: true,
          audit: {
            details: {
              kind: 'skill',
              slug: replay.slug,
              replayOf: replay.originalRunId,
              shadow: true,
              evaluationId: audit.evaluationId,
            },
            requestId: audit.requestId,
          },
        }),
      ),
    );
    return created.map((done) => done.actor.row.id);
  }

  /** 400 naming `body.objects` when the org has no object instance of one of `ids`. */
  private async checkObjects(orgId: number, ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    const found = await this.deps.db.query<{ id: number }>(
      'select id from object_instances where org_id = $1 and id = any($2::bigint[])',
      [orgId, ids],
    );
    const known = new Set(found.map((row) => Number(row.id)));
    const missing = ids.filter((id) => !known.has(id));
    if (missing.length > 0) {
      throw validationFailed(
        [{ field: 'body.objects', message: `no object ${missing.join(', ')} in this organization`, missing }],
        `body.objects names objects this organization does not have: ${missing.join(', ')}`,
      );
    }
  }

  /** Run `id` of the org for a fork or replay: 404 when there is none, 409 while it is running. */
  private async stoppedRun(orgId: number, id: number, action: 'fork' | 'replay') {
    const run = await this.deps.db.maybeOne<{
      kind: 'skill' | 'workflow';
      slug: string;
      name: string;
      status: string;
      input: Record<string, unknown>;
      agent_slug: string | null;
      workspace_sha: string | null;
      manifest: RunManifest;
      step_results: StepResults | null;
    }>(
      `select kind, slug, name, status, input, agent_slug, workspace_sha, manifest, step_results
         from runs where org_id = $1 and id = $2`,
      [orgId, id],
    );
    if (!run) throw notFound('run', id);
    if (run.status === 'running') {
      throw conflict(
        `Run ${id} is running; a run is ${action}ed once it stopped (paused, pending or final).`,
        {
          runId: id,
          status: run.status,
          action,
        },
      );
    }
    return run;
  }

  /**
   * What a fork executes: the forked run's own manifests (no `workspace`), or the skill or workflow
   * resolved anew on the applied version (`current`) or on version `workspace` (404 when the org has
   * no such version).
   */
  private async forkTarget(
    orgId: number,
    original: {
      kind: 'skill' | 'workflow';
      slug: string;
      name: string;
      agent_slug: string | null;
      workspace_sha: string | null;
      manifest: RunManifest;
    },
    workspace: string | undefined,
  ): Promise<RunTarget> {
    const { kind, slug, manifest } = original;
    if (workspace === undefined) {
      const inputSchema =
        manifest.kind === 'skill' ? manifest.skill.manifest.inputSchema : manifest.workflow.inputSchema;
      return { manifest, workspaceSha: original.workspace_sha, name: original.name, inputSchema };
    }
    let resources: TargetResources = this.deps.applied;
    if (workspace !== 'current') {
      const sha = await this.deps.workspace.resolveVersion(orgId, workspace);
      if (sha === null) throw notFound('workspace version', workspace);
      resources = resourcesAt(this.deps.workspace, orgId, sha);
    }
    const resolve = kind === 'skill' ? resolveSkillTarget : resolveWorkflowTarget;
    return resolve(resources, orgId, slug, original.agent_slug ?? undefined);
  }

  /** The run `id` of the caller's org; 404 otherwise. */
  async get(principal: Principal, id: number): Promise<RunView> {
    return JSON.parse(await this.getJson(principal, id)) as RunView;
  }

  /**
   * The run `id` of the caller's org as JSON text, as GET /runs/:id answers it; 404 otherwise.
   * `fused`: the run read with the caller's authentication (`fusedRunRead`), used when it is `id`'s.
   */
  async getJson(principal: Principal, id: number, fused?: FusedAnswer): Promise<string> {
    const json = fused?.key === id ? fused.value : await this.reader.load({ orgId: principal.orgId, id });
    if (json === null) throw notFound('run', id);
    return json;
  }

  /** When run `id` of the caller's org last changed (ISO 8601); 404 otherwise. */
  async updatedAt(principal: Pick<Principal, 'orgId'>, id: number): Promise<string> {
    const row = await this.deps.db.maybeOne<{ updated_at: Date }>(
      'select updated_at from runs where org_id = $1 and id = $2',
      [principal.orgId, id],
    );
    if (!row) throw notFound('run', id);
    return row.updated_at.toISOString();
  }

  /** A page of the org's runs, newest first. */
  async list(
    principal: Pick<Principal, 'orgId'>,
    filter: RunFilter,
  ): Promise<{ runs: RunView[]; last: RunView | null; more: boolean }> {
    const { runs, more } = await listRuns(this.deps.db, principal.orgId, filter, this.deps.baseUrl());
    return { runs, last: runs.at(-1) ?? null, more };
  }

  /** What reviewers told `agentSlug` (null: any run of the org), newest first; see learnings.ts. */
  learnings(
    orgId: number,
    agentSlug: string | null,
    topic: string | null,
    limit: number,
  ): Promise<Learning[]> {
    return agentLearnings(this.deps.db, orgId, agentSlug, topic, limit);
  }

  /**
   * Approves or rejects run `id` in `tx` — only the review queue's choke point calls this
   * (reviews/decisions.ts): decided, or, when the run no longer accepts one, the refusal as a value
   * with the run's status. NOT_FOUND for no such run in the org.
   */
  async decideIn(
    tx: ActorTx,
    decider: Decider,
    id: number,
    decision: SubjectDecision,
  ): Promise<SubjectOutcome> {
    const event = {
      ...decisionEvent(decider, decision, this.now()),
      ...(await this.editsIn(tx, decider, id, decision)),
    };
    const result = await this.deps.host.send(tx, RUN_KINDS, { orgId: decider.orgId, id }, event, {
      actingAs: decider.actingAs,
      audit: {
        action: decision.audit.action,
        targetKind: 'run',
        targetId: String(id),
        details: {
          reviewedBy: decision.reviewedBy,
          note: event.type === 'APPROVE' ? event.note : null,
          reason: event.type === 'REJECT' ? event.reason : null,
          ...decision.audit.details,
        },
        requestId: decision.requestId,
      },
    });
    return subjectOutcome(result, 'run', id);
  }

  /**
   * Sends skill run `id`'s draft back to its model with the reviewer's reason (decisions.md §15), in
   * `tx` (the review queue's choke point calls it): the run goes back to `running`, its item closes as
   * `changes_requested`, and the step executes again with the earlier drafts and reasons as turns.
   * A pending run whose draft is not there yet: 409 (there is nothing to send back).
   */
  async requestChangesIn(
    tx: ActorTx,
    decider: Decider,
    id: number,
    request: SubjectChangeRequest,
  ): Promise<SubjectOutcome> {
    const event = changeRequestEvent(decider, request, this.now());
    const result = await this.deps.host.send(tx, SKILL_RUN_KIND, { orgId: decider.orgId, id }, event, {
      actingAs: decider.actingAs,
      audit: changeRequestAudit(request, 'run', id),
    });
    if (result.outcome === 'refused' && actorStatus(result.actor) === 'pending') {
      throw conflict(`Run ${id}'s draft is not ready yet: there is nothing to send back.`, {
        status: 'pending',
      });
    }
    return subjectOutcome(result, 'run', id);
  }

  /**
   * An approval's edits of run `id`, checked against the run (decisions.md §15): a skill run's
   * `output` (its draft must be there) against the skill's outputSchema; a workflow run's
   * `stepOutputs`, each of a skill step it completed, against that step's skill's outputSchema.
   * VALIDATION_FAILED naming `body.edits…` otherwise. A run that no longer waits is left to its
   * machine's refusal (409).
   */
  private async editsIn(
    tx: ActorTx,
    decider: Decider,
    id: number,
    decision: SubjectDecision,
  ): Promise<{ output?: JsonObject; stepOutputs?: Record<string, JsonObject> }> {
    const edits = decision.edits;
    if (!edits) return {};
    const run = await tx.sql.maybeOne<{
      kind: 'skill' | 'workflow';
      slug: string;
      status: string;
      workspace_sha: string | null;
      manifest: RunManifest;
      step_results: Record<string, unknown> | null;
    }>(
      'select kind, slug, status, workspace_sha, manifest, step_results from runs where id = $1 and org_id = $2',
      [id, decider.orgId],
    );
    if (!run) throw notFound('run', id);
    if (run.status !== 'pending' && run.status !== 'paused') return {};
    const done = run.step_results ?? {};
    const check = (skill: SkillSnapshot | undefined, field: string, output: JsonObject) => {
      const schema = skill?.manifest.outputSchema;
      if (!schema || !skill) return;
      const key = `${decider.orgId}:${run.workspace_sha}:skill:${skill.manifest.slug}:output`;
      const issues = this.deps.schemas.check(key, schema, field)(output);
      if (issues.length > 0) {
        throw validationFailed(
          issues,
          `${field} does not match the skill's outputSchema: ${issues[0]?.field} ${issues[0]?.message}`,
        );
      }
    };
    if (run.manifest.kind === 'skill') {
      const output = edits.output as JsonObject;
      if (!(run.slug in done))
        throw badEdit('output', 'the draft is not ready yet: there is nothing to edit');
      check(run.manifest.skill, 'body.edits.output', output);
      return { output };
    }
    const stepOutputs = edits.stepOutputs as Record<string, JsonObject>;
    const steps = run.manifest.workflow.steps;
    for (const [name, output] of Object.entries(stepOutputs)) {
      const step = steps.find((s) => s.name === name);
      if (step?.type !== 'skill' || !(name in done)) {
        throw badEdit(`stepOutputs.${name}`, 'is not a skill step this run completed');
      }
      check(run.manifest.skills[step.skill], `body.edits.stepOutputs.${name}`, output);
    }
    return { stepOutputs };
  }

  /** The 409 of a decision run `id` refused in `status`. */
  static decisionRefused(
    id: number,
    verb: 'approve' | 'reject' | 'request_changes',
    status: string,
  ): ApiError {
    return conflict(
      `Run ${id} is ${status}; ${verb} is accepted only when it is pending (skill runs) or paused (workflow runs).`,
      { runId: id, status, action: verb },
    );
  }

  /** Cancels a running, paused or pending run: a hard stop. 409 from any other status. */
  async cancel(principal: Principal, id: number, requestId: string | null = null): Promise<RunView> {
    const event: RunCancelEvent = { type: 'CANCEL', by: principal.actor, at: this.now() };
    const result = await this.send(
      principal,
      id,
      event,
      actingAs(principal),
      { action: 'run.cancel', targetKind: 'run', targetId: String(id), requestId },
      true,
    );
    this.expectApplied(result, id, 'cancel', 'running, paused or pending');
    return this.get(principal, id);
  }

  /**
   * Records feedback on any run in any status. The body replaces the feedback (rating and note; an
   * absent note clears it); `rating: null` clears the rating; `feedbackAt` is set on every call.
   */
  async feedback(
    principal: Principal,
    id: number,
    args: { rating: 'up' | 'down' | null; note?: string | null | undefined; requestId?: string | null },
  ): Promise<RunView> {
    const at = this.now();
    const found = await this.deps.db.tx(async (sql) => {
      const rows = await sql.query(
        `update runs set rating = $3, feedback_note = $4, feedback_at = $5 where id = $1 and org_id = $2 returning id`,
        [id, principal.orgId, args.rating, args.note ?? null, at],
      );
      if (rows.length === 0) return false;
      await recordAuditSql(sql, {
        orgId: principal.orgId,
        apiTokenId: principal.tokenId,
        actor: principal.actor,
        action: 'run.feedback',
        targetKind: 'run',
        targetId: String(id),
        details: { rating: args.rating, note: args.note ?? null },
        requestId: args.requestId ?? null,
        at: new Date(at),
      });
      return true;
    });
    if (!found) throw notFound('run', id);
    return this.get(principal, id);
  }

  /** The transition log of run `id` and of its review items, oldest first. */
  async transitions(principal: Principal, id: number): Promise<TransitionView[]> {
    const row = await this.get(principal, id);
    const rows = await this.deps.db.query<{
      id: number;
      actor_kind: string;
      actor_id: number;
      from_state: string | null;
      event: unknown;
      to_state: string;
      actor: string;
      at: Date;
    }>(
      `select id, actor_kind, actor_id, from_state, event, to_state, actor, at
         from actor_transitions
        where org_id = $1
          and ((actor_kind = any($3::text[]) and actor_id = $2)
            or (actor_kind = 'review-item' and actor_id in (
                  select r.id from review_items r where r.org_id = $1 and r.run_id = $2 and r.kind = $4)))
        order by id`,
      [principal.orgId, id, [...RUN_KINDS], row.kind],
    );
    return rows.map((r) => ({
      id: r.id,
      actorKind: r.actor_kind,
      actorId: r.actor_id,
      from: r.from_state,
      event: r.event,
      to: r.to_state,
      actor: r.actor,
      at: r.at.toISOString(),
    }));
  }

  private send(
    principal: Principal,
    id: number,
    event: RunApproveEvent | RunRejectEvent | RunCancelEvent,
    by: Attribution,
    audit: TransitionAudit | undefined,
    single = false,
  ): Promise<SendResult> {
    const { host } = this.deps;
    return host.transact(
      (tx) =>
        host.send(tx, RUN_KINDS, { orgId: principal.orgId, id }, event, {
          actingAs: by,
          ...(audit ? { audit } : {}),
        }),
      { single },
    );
  }

  private expectApplied(result: SendResult, id: number, verb: string, accepted: string): void {
    if (result.outcome === 'not_found') throw notFound('run', id);
    if (result.outcome === 'invalid') throw validationFailed(result.issues);
    if (result.outcome === 'refused') {
      const status = actorStatus(result.actor);
      throw conflict(`Run ${id} is ${status}; ${verb} is accepted only when it is ${accepted}.`, {
        runId: id,
        status,
        action: verb,
      });
    }
  }

  /** Creates a run (its actor, and its review item when it needs one) in `tx`. */
  private async createIn(tx: ActorTx, run: NewRun): Promise<TriggerAnswer> {
    const created = await this.deps.host.create<RunKind>(
      tx,
      run.kind === 'skill' ? SKILL_RUN_KIND : WORKFLOW_RUN_KIND,
      this.creation(run),
    );
    const runId = created.actor.row.id;
    return { runId, status: created.projection.status as string, pollUrl: runPath(runId) };
  }

  /** What creates `run`'s actor (`ActorHost.create`). */
  private creation(run: NewRun): CreateArgs<RunKind> {
    const { kind, slug, target } = run;
    const shadow = run.shadow === true;
    return {
      orgId: run.orgId,
      input: (runId, at) =>
        this.machineInput(kind, runId, slug, target, run.input, at, run.fork?.from ?? null, shadow),
      columns: {
        slug,
        name: target.name,
        agent_slug: run.agentSlug,
        created_by: run.by.actor,
        api_token_id: run.by.apiTokenId,
        workspace_sha: target.workspaceSha,
        trace_id: run.traceId ?? newTraceId(),
        input: run.input,
        manifest: target.manifest,
        fork_of_run_id: run.fork?.runId ?? null,
        fork_from_step: run.fork?.fromStep ?? null,
        replay_of_run_id: run.replayOf ?? null,
        shadow,
      },
      actingAs: run.by,
      audit: {
        action: 'run.create',
        targetKind: 'run',
        details: run.audit.details,
        requestId: run.audit.requestId,
      },
    };
  }

  private checkInput(
    orgId: number,
    kind: 'skill' | 'workflow',
    slug: string,
    target: RunTarget,
    input: Record<string, unknown>,
  ): void {
    if (!target.inputSchema) return;
    const check = this.deps.schemas.check(
      `${orgId}:${target.workspaceSha}:${kind}:${slug}:input`,
      target.inputSchema,
      'body.input',
    );
    const issues = check(input);
    if (issues.length > 0) {
      throw validationFailed(
        issues,
        `body.input does not match the ${kind}'s inputSchema: ${issues[0]?.field} ${issues[0]?.message}`,
      );
    }
  }

  private machineInput(
    kind: 'skill' | 'workflow',
    runId: number,
    slug: string,
    target: RunTarget,
    input: Record<string, unknown>,
    at: string,
    from: WorkflowRunInput['from'] | null,
    shadow: boolean,
  ): SkillRunInput | WorkflowRunInput {
    const manifest = target.manifest;
    if (kind === 'skill' && manifest.kind === 'skill') {
      const { titleTemplate } = manifest.skill.manifest;
      // A shadow run never waits for review: it completes with its output for its evaluation.
      const requiresApproval = manifest.skill.manifest.requiresApproval && !shadow;
      const title = renderRunTitle(titleTemplate, input);
      return { runId, slug, requiresApproval, ...(title === undefined ? {} : { title }), at };
    }
    if (manifest.kind !== 'workflow') throw new Error('run target does not match its kind');
    const steps = manifest.workflow.steps.map((step) =>
      step.type === 'approve'
        ? {
            name: step.name,
            type: 'approve' as const,
            ...(step.title === undefined ? {} : { title: step.title }),
            ...(step.assignTo === undefined ? {} : { assignTo: step.assignTo }),
          }
        : { name: step.name, type: 'skill' as const },
    );
    return { runId, slug, steps, at, ...(from ? { from } : {}) };
  }

  private now(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }
}
