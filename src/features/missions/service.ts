/**
 * Mission runs as the API, MCP and the review queue use them (docs/api.md#missions): start one from an
 * applied mission or ad hoc (a team and a goal), read and list them, approve or reject one awaiting
 * review, cancel one. Every state change is a transition of the run's `mission-run` actor (409 when
 * its state refuses it); another org's run is 404.
 */
import {
  checkPlan,
  type JsonObject,
  type MissionRunEvent,
  type RunCancelEvent,
} from '../../../machines/index.js';
import { actingAs } from '../../platform/actors/acting-as.js';
import { type ActorHost, type ActorTx, actorStatus, type SendResult } from '../../platform/actors/host.js';
import type { Attribution as ActingAs } from '../../platform/auth/attribution.js';
import type { Principal } from '../../platform/auth/principal.js';
import type { Db } from '../../platform/db/sql.js';
import { type ApiError, conflict, notFound, validationFailed } from '../../platform/errors.js';
import type { Clock } from '../../platform/util/clock.js';
import { renderTemplate } from '../../platform/util/template.js';
import { newTraceId } from '../../platform/util/trace.js';
import type { ArtifactService } from '../artifacts/index.js';
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
import { claimKey, completeKey, findKey, replay, requestHash, type SchemaCache } from '../runs/index.js';
import type { AppliedResources, MissionLimits } from '../workspace/index.js';
import { plannerOf } from '../workspace/index.js';
import type { MissionDefinition, TeamMember } from './definition.js';
import { MISSION_RUN_KIND } from './mission-kind.js';
import { type MissionRunView, missionRunPath, readMissionRun, readMissionRuns } from './view.js';

/** Defaults of an ad hoc mission (as a manifest's). */
const AD_HOC_LIMITS: MissionLimits = { maxTasks: 20, maxParallel: 3, maxToolCalls: 50 };

/** What starts a mission run: an applied mission, or a team and a goal. */
export type StartBody =
  | { missionSlug: string; input?: Record<string, unknown> | undefined; idempotencyKey?: string | undefined }
  | {
      team: TeamMember[];
      goal: string;
      input?: Record<string, unknown> | undefined;
      idempotencyKey?: string | undefined;
    };

/** The 202 answer of a start. */
export interface StartAnswer {
  missionRunId: number;
  status: MissionRunView['status'];
  pollUrl: string;
}

export interface MissionServiceDeps {
  db: Db;
  host: ActorHost;
  clock: Clock;
  applied: AppliedResources;
  schemas: SchemaCache;
  artifacts: ArtifactService;
  baseUrl(): string;
}

/** Statuses a mission run can be cancelled from. */
const CANCELLABLE = 'planning, awaiting_review or executing';

export class MissionService {
  constructor(private readonly deps: MissionServiceDeps) {}

  /**
   * Starts a mission run: 404 unknown mission; 400 bad input, unknown or inactive team agent; 409
   * idempotency key reused with another request. `replayed`: answered from the key's record.
   */
  async start(
    principal: Principal,
    body: StartBody,
    request: { method: string; path: string; requestId: string | null; traceId?: string | undefined },
  ): Promise<{ answer: StartAnswer; replayed: boolean }> {
    const { db, host, clock } = this.deps;
    const key = body.idempotencyKey;
    const tokenKey = principal.tokenId ?? `${principal.actor}@org:${principal.orgId}`;
    const hash = key === undefined ? '' : requestHash(request.method, request.path, body);
    if (key !== undefined) {
      const prior = await findKey(db, tokenKey, key, clock.now());
      if (prior) return { answer: replay(prior, hash, key) as StartAnswer, replayed: true };
    }
    const input = body.input ?? {};
    const resolved = await this.resolve(principal.orgId, body, input);
    const goal = renderTemplate(resolved.goal, { input }).text;
    const { definition } = resolved;
    return host.transact(async (tx) => {
      if (key !== undefined) {
        const holder = await claimKey(tx.sql, {
          tokenKey,
          key,
          orgId: principal.orgId,
          hash,
          now: clock.now(),
        });
        if (holder) return { answer: replay(holder, hash, key) as StartAnswer, replayed: true };
      }
      const created = await host.create(tx, MISSION_RUN_KIND, {
        orgId: principal.orgId,
        input: (missionRunId, at) => ({
          missionRunId,
          review: definition.review,
          team: definition.team.map((m) => m.agent),
          maxTasks: definition.limits.maxTasks,
          maxParallel: definition.limits.maxParallel,
          at,
        }),
        columns: {
          mission_slug: resolved.slug,
          goal,
          input,
          definition,
          created_by: principal.actor,
          api_token_id: principal.tokenId,
          workspace_sha: resolved.workspaceSha,
          trace_id: request.traceId ?? newTraceId(),
        },
        actingAs: actingAs(principal),
        audit: {
          action: 'mission_run.create',
          targetKind: 'mission_run',
          details: { mission: resolved.slug, idempotencyKey: key ?? null },
          requestId: request.requestId,
        },
      });
      const id = created.actor.row.id;
      const answer: StartAnswer = {
        missionRunId: id,
        status: created.projection.status as StartAnswer['status'],
        pollUrl: missionRunPath(id),
      };
      if (key !== undefined) await completeKey(tx.sql, tokenKey, key, id, answer);
      return { answer, replayed: false };
    });
  }

  /** Mission run `id` of the caller's org; 404 otherwise. */
  async get(principal: Principal, id: number): Promise<MissionRunView> {
    const view = await readMissionRun(this.deps.db, principal.orgId, id, this.deps.baseUrl());
    if (!view) throw notFound('mission run', id);
    const { items } = await this.deps.artifacts.list(principal.orgId, { missionRunId: id, limit: 200 });
    return { ...view, artifacts: items };
  }

  /** When mission run `id` of the caller's org last changed (ISO 8601); 404 otherwise. */
  async updatedAt(principal: Pick<Principal, 'orgId'>, id: number): Promise<string> {
    const row = await this.deps.db.maybeOne<{ updated_at: Date }>(
      'select updated_at from mission_runs where org_id = $1 and id = $2',
      [principal.orgId, id],
    );
    if (!row) throw notFound('mission run', id);
    return row.updated_at.toISOString();
  }

  /** A page of the org's mission runs, newest first (artifacts are on the detail only: `[]` here). */
  list(
    principal: Principal,
    filter: {
      status?: string | undefined;
      before?: { createdAt: Date; id: number } | undefined;
      limit: number;
    },
  ) {
    return readMissionRuns(this.deps.db, principal.orgId, filter, this.deps.baseUrl());
  }

  /** Cancels a mission run that is planning, awaiting review or executing (and its running child runs). */
  async cancel(
    principal: Principal,
    id: number,
    args: { reason?: string | undefined; requestId?: string | null } = {},
  ) {
    const event: RunCancelEvent = { type: 'CANCEL', by: principal.actor, at: this.now() };
    const result = await this.send(principal, id, event, actingAs(principal), {
      action: 'mission_run.cancel',
      details: { reason: args.reason ?? null },
      requestId: args.requestId ?? null,
    });
    this.expectApplied(result, id, 'cancel', CANCELLABLE);
    return this.get(principal, id);
  }

  /**
   * Approves (resumes) or rejects (cancels) mission run `id` in `tx` — only the review queue's choke
   * point calls this (reviews/decisions.ts): decided, or, when it no longer accepts one, the refusal
   * as a value with its status. NOT_FOUND for no such mission run in the org.
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
    const result = await this.deps.host.send(tx, MISSION_RUN_KIND, { orgId: decider.orgId, id }, event, {
      actingAs: decider.actingAs,
      audit: {
        action: decision.audit.action,
        targetKind: 'mission_run',
        targetId: String(id),
        details: { note: decision.reason, reviewedBy: decision.reviewedBy, ...decision.audit.details },
        requestId: decision.requestId,
      },
    });
    return subjectOutcome(result, 'mission run', id);
  }

  /**
   * Sends mission run `id`'s plan back to its planner with the reviewer's reason (decisions.md §15),
   * in `tx` (the review queue's choke point calls it): the run plans again (`planning`), its item
   * closes as `changes_requested`, and a new planner attempt is asked with the earlier plans and
   * reasons as turns. At result review: 400 naming `body.action` (a result does not go back).
   */
  async requestChangesIn(
    tx: ActorTx,
    decider: Decider,
    id: number,
    request: SubjectChangeRequest,
  ): Promise<SubjectOutcome> {
    const event = changeRequestEvent(decider, request, this.now());
    const result = await this.deps.host.send(tx, MISSION_RUN_KIND, { orgId: decider.orgId, id }, event, {
      actingAs: decider.actingAs,
      audit: changeRequestAudit(request, 'mission_run', id),
    });
    // Awaiting review and refused: its result is under review (the choke point counted the rounds).
    if (result.outcome === 'refused' && actorStatus(result.actor) === 'awaiting_review') {
      throw validationFailed([
        {
          field: 'body.action',
          message: 'a mission run takes request_changes at plan review only, not at result review',
        },
      ]);
    }
    return subjectOutcome(result, 'mission run', id);
  }

  /**
   * An approval's edits of mission run `id` (decisions.md §15): a `plan` at plan review, checked as
   * a planner's plan is (its team, maxTasks, ids, dependencies). VALIDATION_FAILED naming
   * `body.edits.plan` otherwise. A run that no longer waits is left to its machine's refusal (409).
   */
  private async editsIn(
    tx: ActorTx,
    decider: Decider,
    id: number,
    decision: SubjectDecision,
  ): Promise<{ plan?: JsonObject }> {
    if (!decision.edits) return {};
    const plan = decision.edits.plan as JsonObject;
    const run = await tx.sql.maybeOne<{
      status: string;
      stage: string | null;
      definition: MissionDefinition;
    }>(
      `select status, snapshot->'context'->>'reviewStage' as stage, definition
         from mission_runs where id = $1 and org_id = $2`,
      [id, decider.orgId],
    );
    if (!run) throw notFound('mission run', id);
    if (run.status !== 'awaiting_review') return {};
    if (run.stage !== 'plan')
      throw badEdit('plan', 'a plan is edited at plan review only, not at result review');
    const check = checkPlan(plan, {
      team: run.definition.team.map((m) => m.agent),
      maxTasks: run.definition.limits.maxTasks,
    });
    if (!check.ok) {
      throw validationFailed(
        check.errors.map((message) => ({ field: 'body.edits.plan', message })),
        `body.edits.plan is not a valid plan: ${check.errors.join('; ')}`,
      );
    }
    return { plan };
  }

  /** The 409 of a decision mission run `id` refused in `status`. */
  static decisionRefused(id: number, verb: 'approve' | 'reject', status: string): ApiError {
    return conflict(`Mission run ${id} is ${status}; ${verb} is accepted only when it is awaiting_review.`, {
      missionRunId: id,
      status,
      action: verb,
    });
  }

  /** The definition mission run `id` was started with (name, team, planner, review, limits); 404 otherwise. */
  async definitionOf(principal: Principal, id: number): Promise<MissionDefinition> {
    const row = await this.deps.db.maybeOne<{ definition: MissionDefinition }>(
      'select definition from mission_runs where id = $1 and org_id = $2',
      [id, principal.orgId],
    );
    if (!row) throw notFound('mission run', id);
    return row.definition;
  }

  /** The definition, goal template and version of a start request; throws 404/400. */
  private async resolve(orgId: number, body: StartBody, input: Record<string, unknown>) {
    const { applied } = this.deps;
    if ('missionSlug' in body) {
      const mission = await applied.getMission(orgId, body.missionSlug);
      if (!mission) throw notFound('mission', body.missionSlug);
      const m = mission.manifest;
      const issues = this.deps.schemas.check(
        `${orgId}:${mission.workspaceSha}:mission:${m.slug}:input`,
        m.inputSchema,
        'body.input',
      )(input);
      if (issues.length > 0) {
        throw validationFailed(
          issues,
          `body.input does not match the mission's inputSchema: ${issues[0]?.field} ${issues[0]?.message}`,
        );
      }
      await this.checkTeam(orgId, m.team, 'team');
      const definition: MissionDefinition = {
        name: m.name,
        team: m.team.map((t) => ({ agent: t.agent, role: t.role })),
        planner: plannerOf(m),
        review: m.review,
        limits: m.limits,
      };
      return { slug: m.slug, goal: m.goal, definition, workspaceSha: mission.workspaceSha };
    }
    const workspaceSha = await this.checkTeam(orgId, body.team, 'body.team');
    const definition: MissionDefinition = {
      name: 'Ad hoc mission',
      team: body.team.map((t) => ({ agent: t.agent, role: t.role })),
      planner: body.team[0]?.agent as string,
      review: 'result',
      limits: AD_HOC_LIMITS,
    };
    return { slug: null, goal: body.goal, definition, workspaceSha };
  }

  /** 400 naming each team member whose agent is unknown or inactive; the applied version otherwise. */
  private async checkTeam(orgId: number, team: readonly TeamMember[], field: string): Promise<string | null> {
    const agents = await Promise.all(team.map((m) => this.deps.applied.getAgent(orgId, m.agent)));
    const issues = team.flatMap((member, i) => {
      const agent = agents[i];
      if (!agent)
        return [
          { field: `${field}.${i}.agent`, message: `No agent "${member.agent}" in this organization.` },
        ];
      if (!agent.manifest.active)
        return [{ field: `${field}.${i}.agent`, message: `Agent "${member.agent}" is not active.` }];
      return [];
    });
    if (issues.length > 0) throw validationFailed(issues);
    return agents[0]?.workspaceSha ?? null;
  }

  private send(
    principal: Principal,
    id: number,
    event: MissionRunEvent,
    by: ActingAs,
    audit: { action: string; details?: Record<string, unknown>; requestId: string | null },
  ): Promise<SendResult> {
    const { host } = this.deps;
    return host.transact((tx) =>
      host.send(tx, MISSION_RUN_KIND, { orgId: principal.orgId, id }, event, {
        actingAs: by,
        audit: { ...audit, targetKind: 'mission_run', targetId: String(id) },
      }),
    );
  }

  private expectApplied(result: SendResult, id: number, verb: string, accepted: string): void {
    if (result.outcome === 'not_found') throw notFound('mission run', id);
    if (result.outcome === 'invalid') throw validationFailed(result.issues);
    if (result.outcome === 'refused') throw this.refusal(id, verb, accepted, actorStatus(result.actor));
  }

  /** The 409 of a transition the mission run's status refused. */
  private refusal(id: number, verb: string, accepted: string, status: string): ApiError {
    return conflict(`Mission run ${id} is ${status}; ${verb} is accepted only when it is ${accepted}.`, {
      missionRunId: id,
      status,
      action: verb,
    });
  }

  private now(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }
}
