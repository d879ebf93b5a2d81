/**
 * Evaluations (docs/api.md "Evaluations", decisions.md §17): a skill's last reviewed runs replayed on
 * a candidate workspace version as shadow runs, compared with what reviewers approved.
 *
 * Terminology:
 * - original: a skill run a reviewer decided (`review_state` approved or rejected), not a shadow run.
 * - shadow run: the original's replay on the candidate version (`runs.shadow`; RunService
 *   `createShadowsIn`): never in the review queue, never on a webhook, its job in the background.
 * - approved output: what the reviewer approved — their edited output where they edited (the run's
 *   `output`; the model's draft is `draftOutput`); null for a rejected original.
 * - changed: the shadow run completed with an output other than the original's (`output` as JSON
 *   values: key order aside) — the approved one, or for a rejected original the draft it rejected.
 *
 * State: the evaluation's rows are written once, with every shadow run, in one transaction; its
 * status is read from the shadow runs' statuses (running until each is final; failed when none
 * completed), so it follows the runs' durable actors through any restart. Marks are the only later
 * writes.
 */
import type { ActorHost } from '../../platform/actors/host.js';
import { recordAuditSql } from '../../platform/audit/audit.js';
import type { Principal } from '../../platform/auth/principal.js';
import type { Db } from '../../platform/db/sql.js';
import { notFound, validationFailed } from '../../platform/errors.js';
import type { Clock } from '../../platform/util/clock.js';
import type { RunService } from '../runs/index.js';
import type { WorkspaceStore } from '../workspace/index.js';

/** Original statuses an evaluation may replay. */
export const ORIGINAL_STATUSES = ['approved', 'rejected'] as const;

/** A reviewer's verdict on a pair: the shadow output against the approved one. */
export const MARKS = ['better', 'same', 'worse'] as const;
export type Mark = (typeof MARKS)[number];

/** Body of `POST /skills/:slug/evaluations`. */
export interface EvaluationRequest {
  workspace: string;
  last: number;
  statuses: ReadonlyArray<(typeof ORIGINAL_STATUSES)[number]>;
}

/** One pair of an evaluation. */
export interface EvaluationRunView {
  originalRunId: number;
  shadowRunId: number;
  originalStatus: 'approved' | 'rejected';
  approvedOutput: unknown;
  shadowOutput: unknown;
  changed: boolean;
  /** The shadow run's status (running until it is final). */
  shadowStatus: string;
  /** The shadow run's error when it failed, else null. */
  shadowError: unknown;
  mark: Mark | null;
}

/** `GET /evaluations/:id`. */
export interface EvaluationView {
  evaluationId: number;
  skillSlug: string;
  workspace: string;
  status: 'running' | 'completed' | 'failed';
  runs: EvaluationRunView[];
  summary: { total: number; changed: number; failed: number };
  createdBy: string;
  createdAt: string;
  /** When the last shadow run ended, once every one has; else null. */
  completedAt: string | null;
}

/** Final statuses of a shadow run (it never waits for review). */
const FINAL = new Set(['completed', 'failed', 'cancelled']);

export interface EvaluationServiceDeps {
  db: Db;
  host: ActorHost;
  clock: Clock;
  runs: RunService;
  workspace: WorkspaceStore;
}

export class EvaluationService {
  constructor(private readonly deps: EvaluationServiceDeps) {}

  /**
   * Starts an evaluation of skill `slug` on version `body.workspace`: its `last` newest reviewed runs
   * of `statuses`, each replayed as a shadow run, all created with the evaluation in one transaction.
   * 404 unknown version, or no skill `slug` at it; 400 no reviewed runs, or an original's input or
   * agent that does not fit the version (nothing written).
   */
  async create(
    principal: Pick<Principal, 'orgId' | 'actor' | 'tokenId'>,
    slug: string,
    body: EvaluationRequest,
    requestId: string | null,
  ): Promise<{ evaluationId: number; statusUrl: string }> {
    const { db, runs, workspace, host } = this.deps;
    const orgId = principal.orgId;
    const sha = await workspace.resolveVersion(orgId, body.workspace);
    if (sha === null) throw notFound('workspace version', body.workspace);
    if (!(await workspace.readResourceAt(orgId, 'skill', slug, sha))) throw notFound('skill', slug);
    const originals = await db.query<{
      id: number;
      input: Record<string, unknown>;
      agent_slug: string | null;
    }>(
      `select id, input, agent_slug from runs
        where org_id = $1 and kind = 'skill' and slug = $2 and not shadow and review_state = any($3::text[])
        order by completed_at desc, id desc limit $4`,
      [orgId, slug, [...body.statuses], body.last],
    );
    if (originals.length === 0) {
      throw validationFailed(
        [
          {
            field: 'params.slug',
            message: `skill "${slug}" has no reviewed runs (${body.statuses.join(' or ')}) to replay`,
            statuses: body.statuses,
          },
        ],
        `Skill "${slug}" has no reviewed runs (${body.statuses.join(' or ')}) to evaluate: an evaluation replays runs a reviewer approved or rejected.`,
      );
    }
    const replays = await runs.prepareShadowReplays(
      orgId,
      slug,
      sha,
      originals.map((o) => ({ id: o.id, input: o.input, agentSlug: o.agent_slug })),
    );
    const at = new Date(this.deps.clock.now());
    const evaluationId = await host.transact(async (tx) => {
      const { id } = await tx.sql.one<{ id: number }>(
        `insert into evaluations (org_id, skill_slug, workspace_sha, last, statuses, created_by, api_token_id, created_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8) returning id`,
        [orgId, slug, sha, body.last, [...body.statuses], principal.actor, principal.tokenId, at],
      );
      const shadows = await runs.createShadowsIn(tx, principal, replays, { evaluationId: id, requestId });
      await tx.sql.query(
        `insert into evaluation_runs (evaluation_id, position, original_run_id, shadow_run_id)
         select $1, x.ord, x.original, x.shadow
           from unnest($2::bigint[], $3::bigint[]) with ordinality as x(original, shadow, ord)`,
        [id, replays.map((r) => r.originalRunId), shadows],
      );
      await recordAuditSql(tx.sql, {
        orgId,
        apiTokenId: principal.tokenId,
        actor: principal.actor,
        action: 'evaluation.create',
        targetKind: 'evaluation',
        targetId: String(id),
        details: { skillSlug: slug, workspace: sha, runs: replays.length },
        requestId,
        at,
      });
      return id;
    });
    return { evaluationId, statusUrl: evaluationPath(evaluationId) };
  }

  /** Evaluation `id` of org `orgId`; 404 otherwise (another org's too). */
  async get(orgId: number, id: number): Promise<EvaluationView> {
    const head = await this.deps.db.maybeOne<{
      skill_slug: string;
      workspace_sha: string;
      created_by: string;
      created_at: Date;
    }>(
      'select skill_slug, workspace_sha, created_by, created_at from evaluations where org_id = $1 and id = $2',
      [orgId, id],
    );
    if (!head) throw notFound('evaluation', id);
    const rows = await this.deps.db.query<{
      original_run_id: number;
      shadow_run_id: number;
      original_status: 'approved' | 'rejected';
      approved_output: unknown;
      shadow_output: unknown;
      shadow_status: string;
      shadow_error: unknown;
      changed: boolean;
      mark: Mark | null;
      completed_at: Date | null;
    }>(
      `select er.original_run_id, er.shadow_run_id, o.review_state as original_status,
              case when o.review_state = 'approved' then o.output end as approved_output,
              case when s.status = 'completed' then s.output end as shadow_output,
              s.status as shadow_status, s.error as shadow_error, s.completed_at, er.mark,
              (s.status = 'completed' and s.output::jsonb is distinct from o.output::jsonb) as changed
         from evaluation_runs er
         join runs o on o.id = er.original_run_id
         join runs s on s.id = er.shadow_run_id
        where er.evaluation_id = $1
        order by er.position`,
      [id],
    );
    const runs: EvaluationRunView[] = rows.map((r) => ({
      originalRunId: r.original_run_id,
      shadowRunId: r.shadow_run_id,
      originalStatus: r.original_status,
      approvedOutput: r.approved_output ?? null,
      shadowOutput: r.shadow_output ?? null,
      changed: r.changed,
      shadowStatus: r.shadow_status,
      shadowError: r.shadow_error ?? null,
      mark: r.mark,
    }));
    const done = rows.every((r) => FINAL.has(r.shadow_status));
    const completed = rows.filter((r) => r.shadow_status === 'completed').length;
    const ended = rows.map((r) => r.completed_at?.getTime() ?? 0);
    return {
      evaluationId: id,
      skillSlug: head.skill_slug,
      workspace: head.workspace_sha,
      status: !done ? 'running' : completed === 0 ? 'failed' : 'completed',
      runs,
      summary: {
        total: rows.length,
        changed: runs.filter((r) => r.changed).length,
        failed: rows.filter((r) => r.shadow_status === 'failed').length,
      },
      createdBy: head.created_by,
      createdAt: head.created_at.toISOString(),
      completedAt: done ? new Date(Math.max(...ended)).toISOString() : null,
    };
  }

  /**
   * Records the caller's mark of the pair of evaluation `id` whose original is `originalRunId`
   * (`null` clears it): the shadow output better, the same or worse than the approved one. 404
   * unknown evaluation (another org's too); 400 a run that is not one of its originals.
   */
  async mark(
    principal: Pick<Principal, 'orgId' | 'actor' | 'tokenId'>,
    id: number,
    originalRunId: number,
    mark: Mark | null,
    requestId: string | null,
  ): Promise<EvaluationView> {
    const at = new Date(this.deps.clock.now());
    const outcome = await this.deps.db.tx(async (sql) => {
      const found = await sql.maybeOne('select 1 from evaluations where org_id = $1 and id = $2', [
        principal.orgId,
        id,
      ]);
      if (!found) return 'not_found' as const;
      const rows = await sql.query(
        `update evaluation_runs set mark = $3, marked_by = $4, marked_at = $5
          where evaluation_id = $1 and original_run_id = $2 returning position`,
        [id, originalRunId, mark, mark === null ? null : principal.actor, mark === null ? null : at],
      );
      if (rows.length === 0) return 'no_pair' as const;
      await recordAuditSql(sql, {
        orgId: principal.orgId,
        apiTokenId: principal.tokenId,
        actor: principal.actor,
        action: 'evaluation.mark',
        targetKind: 'evaluation',
        targetId: String(id),
        details: { originalRunId, mark },
        requestId,
        at,
      });
      return 'marked' as const;
    });
    if (outcome === 'not_found') throw notFound('evaluation', id);
    if (outcome === 'no_pair') {
      throw validationFailed([
        {
          field: 'body.originalRunId',
          message: `run ${originalRunId} is not one of evaluation ${id}'s originals`,
        },
      ]);
    }
    return this.get(principal.orgId, id);
  }
}

/** The path of an evaluation's resource (`statusUrl`). */
export function evaluationPath(id: number): string {
  return `/api/v1/evaluations/${id}`;
}
