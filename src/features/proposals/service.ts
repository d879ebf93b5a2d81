/**
 * Proposals as the API and the review queue use them (docs/api.md#proposals): create one (what
 * `propose_action` does once its checks passed), read one or a page of them, decide one (the review
 * queue's `action` items dispatch here), cancel one. Every change is a transition of the proposal
 * actor, attributed to the caller in the transition log and an audit row; executing an approved one
 * is the `execute_action` job's (execute-job.ts).
 */
import type { JsonObject, ProposalEvent } from '../../../machines/index.js';
import { actingAs } from '../../platform/actors/acting-as.js';
import {
  type ActorHost,
  type ActorTx,
  actorStatus,
  type SendResult,
  type TransitionAudit,
} from '../../platform/actors/host.js';
import type { Attribution } from '../../platform/auth/attribution.js';
import type { Principal } from '../../platform/auth/principal.js';
import type { Db } from '../../platform/db/sql.js';
import { conflict, notFound, validationFailed } from '../../platform/errors.js';
import type { Clock } from '../../platform/util/clock.js';
import {
  type ActionName,
  type ConnectorAction,
  describeAction,
  parseAction,
  type SourceLookup,
} from '../connectors/index.js';
import {
  badEdit,
  type Decider,
  decisionEvent,
  oneLineSummary,
  type SubjectDecision,
  type SubjectOutcome,
  subjectOutcome,
} from '../reviews/index.js';
import { EXECUTE_ACTION_JOB } from './execute-job.js';
import { ACTION_REVIEW_KIND, PROPOSAL_KIND } from './proposal-kind.js';

/** A proposal's review item, as `GET /proposals/:id` shows it. */
export interface ProposalReviewItemView {
  kind: 'action';
  /** The proposal's id (an item's id in the queue is its subject's). */
  id: number;
  /** Whether it is in the queue (not decided, not cancelled). */
  open: boolean;
  /** The item's own status: unassigned, assigned, snoozed, decided, cancelled. */
  status: string;
  title: string;
  assignedTo: string | null;
  snoozedUntil: string | null;
  note: string | null;
}

/** A proposal as the API shows it. */
export interface ProposalView {
  id: number;
  action: string;
  source: string;
  agentSlug: string | null;
  /** The params it executes with: a reviewer's edit, else the proposed ones. */
  params: Record<string, unknown>;
  /** The params as proposed (the same as `params` unless a reviewer edited them). */
  proposedParams: Record<string, unknown>;
  rationale: string;
  status: string;
  result: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
  attempts: number;
  review: Record<string, unknown> | null;
  reviewItem: ProposalReviewItemView | null;
  runId: number | null;
  createdBy: string;
  createdAt: string;
  completedAt: string | null;
  reviewUrl: string;
}

/**
 * A proposal as its review screen reads it (`GET /proposals/:id`): the view, when its next execution
 * attempt is due while a retry waits, and the synced record it changes (a `crm.update_deal`'s deal as
 * last synced: its properties are the table's "before").
 */
export interface ProposalDetail extends ProposalView {
  /** While `executing` with a retry waiting: when the next attempt is due; else null. */
  nextAttemptAt: string | null;
  /** The record the action changes as last synced, or null (not synced, or no record to show). */
  syncedRecord: {
    type: string;
    externalId: string;
    properties: Record<string, unknown>;
    syncedAt: string | null;
  } | null;
}

/** What `create` needs: the validated action, its source, and who proposes it from where. */
export interface NewProposal {
  orgId: number;
  action: ConnectorAction;
  source: string;
  agentSlug: string | null;
  rationale: string;
  runId: number | null;
  /** Deduplicates a run's retried tool call (run id + call id); null over MCP. */
  callKey: string | null;
  actingAs: Attribution;
  requestId: string | null;
}

/** Which proposals `list` returns. */
export interface ProposalQuery {
  status?: string | undefined;
  limit: number;
  after?: { createdAt: string; id: number } | undefined;
}

interface ProposalRow {
  id: number;
  action: string;
  source_slug: string;
  agent_slug: string | null;
  params: Record<string, unknown>;
  approved_params: Record<string, unknown> | null;
  rationale: string;
  status: string;
  result: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
  attempts: number;
  review: Record<string, unknown> | null;
  run_id: number | null;
  created_by: string;
  created_at: Date;
  completed_at: Date | null;
  item_status: string | null;
  item_open: boolean | null;
  item_title: string | null;
  item_assigned_to: string | null;
  item_snoozed_until: Date | null;
  item_note: string | null;
}

// A proposal with its latest review item (there is one per proposal: it opens at creation).
const SELECT = `
  select p.id, p.action, p.source_slug, p.agent_slug, p.params, p.approved_params, p.rationale, p.status, p.result, p.error,
         p.attempts, p.review, p.run_id, p.created_by, p.created_at, p.completed_at,
         i.status as item_status, i.open as item_open, i.title as item_title,
         i.assigned_to as item_assigned_to, i.snoozed_until as item_snoozed_until, i.note as item_note
    from proposals p
    left join lateral (
      select status, open, title, assigned_to, snoozed_until, note from review_items
       where org_id = p.org_id and kind = 'action' and run_id = p.id
       order by id desc limit 1
    ) i on true`;

/** The params a reviewer may edit before approving, per action (decisions.md §15). */
export const EDITABLE_PARAMS: Readonly<Partial<Record<ActionName, readonly string[]>>> = {
  'crm.update_deal': ['properties'],
  'crm.create_note': ['body'],
  'mail.send': ['to', 'subject', 'text'],
};

export interface ProposalServiceDeps {
  db: Db;
  host: ActorHost;
  clock: Clock;
  baseUrl: () => string;
  /** The org's sources (which object type a source's deals sync into). */
  sources: SourceLookup;
}

// The waiting execution job of proposal $2 (no lock held: a retry waits for its backoff).
const NEXT_ATTEMPT = `
  select run_at from jobs
   where org_id = $1 and kind = '${EXECUTE_ACTION_JOB}' and payload @> jsonb_build_object('actorId', $2::bigint)
     and dead_at is null and (locked_until is null or locked_until < now())
   order by run_at limit 1`;

// A synced record by its upstream id (one per source, type and external id).
const SYNCED_RECORD = `
  select metadata, synced_at from object_instances
   where org_id = $1 and source_slug = $2 and type_slug = $3 and external_id = $4 and status = 'active'`;

export class ProposalService {
  constructor(private readonly deps: ProposalServiceDeps) {}

  /** The review screen of proposal `id`. */
  reviewUrl(id: number): string {
    return `${this.deps.baseUrl()}/review/actions/${id}`;
  }

  /**
   * Creates a pending proposal (its review item opens in the same transaction). A `callKey` seen
   * before answers the proposal it made instead of a second one.
   */
  async create(p: NewProposal): Promise<{ proposalId: number; status: string }> {
    if (p.callKey) {
      const known = await this.byCallKey(p.orgId, p.callKey);
      if (known) return known;
    }
    const { host } = this.deps;
    try {
      const created = await host.transact((tx) =>
        host.create(tx, PROPOSAL_KIND, {
          orgId: p.orgId,
          input: (id, at) => ({ proposalId: id, action: p.action.action, source: p.source, at }),
          columns: {
            action: p.action.action,
            source_slug: p.source,
            agent_slug: p.agentSlug,
            params: p.action.params,
            rationale: p.rationale,
            summary: oneLineSummary(describeAction(p.action)),
            run_id: p.runId,
            call_key: p.callKey,
            created_by: p.actingAs.actor,
            api_token_id: p.actingAs.apiTokenId,
          },
          actingAs: p.actingAs,
          audit: {
            action: 'proposal.create',
            targetKind: 'proposal',
            details: { action: p.action.action, source: p.source, agentSlug: p.agentSlug, runId: p.runId },
            requestId: p.requestId,
          },
        }),
      );
      return { proposalId: created.actor.row.id, status: String(created.projection.status) };
    } catch (error) {
      // Two retries of one tool call raced: the other made it.
      if (p.callKey && (error as { code?: string }).code === '23505') {
        const known = await this.byCallKey(p.orgId, p.callKey);
        if (known) return known;
      }
      throw error;
    }
  }

  /** Proposal `id` of the caller's org; 404 for another org's or none. */
  /** Proposal `id` with its next attempt and the record it changes (see `ProposalDetail`). */
  async detail(principal: Pick<Principal, 'orgId'>, id: number): Promise<ProposalDetail> {
    const view = await this.get(principal, id);
    const [nextAttemptAt, syncedRecord] = await Promise.all([
      view.status === 'executing' ? this.nextAttempt(principal.orgId, id) : null,
      this.syncedRecord(principal.orgId, view),
    ]);
    return { ...view, nextAttemptAt, syncedRecord };
  }

  private async nextAttempt(orgId: number, id: number): Promise<string | null> {
    const rows = await this.deps.db.prepared<{ run_at: Date }>('proposals_next_attempt', NEXT_ATTEMPT, [
      orgId,
      id,
    ]);
    return rows[0]?.run_at.toISOString() ?? null;
  }

  /** The deal a `crm.update_deal` changes, as its source last synced it (null when it never did). */
  private async syncedRecord(orgId: number, view: ProposalView): Promise<ProposalDetail['syncedRecord']> {
    if (view.action !== 'crm.update_deal') return null;
    const externalId = String(view.params.dealId ?? '');
    const type = (await this.deps.sources(orgId, view.source))?.sync?.objectTypes.deal;
    if (!type || !externalId) return null;
    const rows = await this.deps.db.prepared<{ metadata: Record<string, unknown>; synced_at: Date | null }>(
      'proposals_synced_record',
      SYNCED_RECORD,
      [orgId, view.source, type, externalId],
    );
    const row = rows[0];
    if (!row) return null;
    return { type, externalId, properties: row.metadata, syncedAt: row.synced_at?.toISOString() ?? null };
  }

  async get(principal: Pick<Principal, 'orgId'>, id: number): Promise<ProposalView> {
    const rows = await this.deps.db.prepared<ProposalRow>(
      'proposals_get',
      `${SELECT} where p.id = $1 and p.org_id = $2`,
      [id, principal.orgId],
    );
    const row = rows[0];
    if (!row) throw notFound('proposal', id);
    return this.view(row);
  }

  /** A page of the org's proposals, newest first. */
  async list(
    principal: Pick<Principal, 'orgId'>,
    query: ProposalQuery,
  ): Promise<{ proposals: ProposalView[]; next: { createdAt: string; id: number } | null }> {
    const values: unknown[] = [principal.orgId];
    const param = (value: unknown) => `$${values.push(value)}`;
    const where = ['p.org_id = $1'];
    if (query.status) where.push(`p.status = ${param(query.status)}`);
    if (query.after) {
      where.push(
        `(p.created_at, p.id) < (${param(query.after.createdAt)}::timestamptz, ${param(query.after.id)}::bigint)`,
      );
    }
    const rows = await this.deps.db.query<ProposalRow>(
      `${SELECT} where ${where.join(' and ')} order by p.created_at desc, p.id desc limit ${param(query.limit + 1)}`,
      values,
    );
    const more = rows.length > query.limit;
    const page = more ? rows.slice(0, query.limit) : rows;
    const last = page.at(-1);
    return {
      proposals: page.map((row) => this.view(row)),
      next: more && last ? { createdAt: last.created_at.toISOString(), id: last.id } : null,
    };
  }

  /**
   * Applies a review decision in `tx` — only the review queue's choke point calls this
   * (reviews/decisions.ts): approve → executing (the execution is enqueued in the same transaction),
   * reject → rejected; decided, or, when it no longer accepts one, the refusal as a value with its
   * status. NOT_FOUND for no such proposal in the org.
   */
  async decideIn(
    tx: ActorTx,
    decider: Decider,
    id: number,
    decision: SubjectDecision,
  ): Promise<SubjectOutcome> {
    const params = await this.editedParams(tx, decider, id, decision);
    const event: ProposalEvent = {
      ...decisionEvent(decider, decision, this.now()),
      ...(params ? { params } : {}),
    };
    const result = await this.deps.host.send(tx, PROPOSAL_KIND, { orgId: decider.orgId, id }, event, {
      actingAs: decider.actingAs,
      audit: {
        action: decision.audit.action,
        targetKind: 'proposal',
        targetId: String(id),
        details: { ...decision.audit.details, reviewedBy: decision.reviewedBy, reason: decision.reason },
        requestId: decision.requestId,
      },
    });
    return subjectOutcome(result, 'proposal', id);
  }

  /**
   * The params an approval's edits make (decisions.md §15): merged over the proposed ones, only the
   * action's editable fields (`EDITABLE_PARAMS`), the result valid for the action. VALIDATION_FAILED
   * naming `body.edits.params…` otherwise; null without edits, and for a proposal that no longer
   * waits (its machine refuses the decision: 409).
   */
  private async editedParams(
    tx: ActorTx,
    decider: Decider,
    id: number,
    decision: SubjectDecision,
  ): Promise<JsonObject | null> {
    if (!decision.edits) return null;
    const edits = decision.edits.params as Record<string, unknown>;
    const row = await tx.sql.maybeOne<{
      action: ActionName;
      params: Record<string, unknown>;
      status: string;
    }>('select action, params, status from proposals where id = $1 and org_id = $2', [id, decider.orgId]);
    if (!row) throw notFound('proposal', id);
    if (row.status !== 'pending') return null;
    const editable: readonly string[] = EDITABLE_PARAMS[row.action] ?? [];
    for (const key of Object.keys(edits)) {
      if (!editable.includes(key)) {
        const may = editable.length > 0 ? `only ${editable.join(', ')} may change` : 'no param may change';
        throw badEdit(`params.${key}`, `may not change (${row.action}: ${may})`);
      }
    }
    const parsed = parseAction(row.action, { ...row.params, ...edits });
    if (!parsed.ok) {
      throw validationFailed(
        parsed.issues.map((issue) => ({ ...issue, field: `body.edits.${issue.field}` })),
      );
    }
    return parsed.value.params as JsonObject;
  }

  /** Withdraws a pending proposal: cancelled, never executed; 409 once decided. */
  async cancel(
    principal: Principal,
    id: number,
    args: { reason?: string | null | undefined; requestId?: string | null },
  ): Promise<ProposalView> {
    const event: ProposalEvent = {
      type: 'CANCEL',
      by: principal.actor,
      reason: args.reason ?? null,
      at: this.now(),
    };
    const result = await this.send(principal, id, event, {
      action: 'proposal.cancel',
      targetKind: 'proposal',
      targetId: String(id),
      details: { reason: args.reason ?? null },
      requestId: args.requestId ?? null,
    });
    this.expectApplied(result, id, 'cancel');
    return this.get(principal, id);
  }

  private send(
    principal: Principal,
    id: number,
    event: ProposalEvent,
    audit: TransitionAudit,
  ): Promise<SendResult> {
    const { host } = this.deps;
    return host.transact((tx) =>
      host.send(tx, PROPOSAL_KIND, { orgId: principal.orgId, id }, event, {
        actingAs: actingAs(principal),
        audit,
      }),
    );
  }

  private expectApplied(result: SendResult, id: number, verb: string): void {
    if (result.outcome === 'not_found') throw notFound('proposal', id);
    if (result.outcome === 'invalid') throw validationFailed(result.issues);
    if (result.outcome === 'refused') {
      const status = actorStatus(result.actor);
      throw conflict(`Proposal ${id} is ${status}; ${verb} is accepted only while it is pending.`, {
        proposalId: id,
        status,
      });
    }
  }

  private async byCallKey(
    orgId: number,
    key: string,
  ): Promise<{ proposalId: number; status: string } | null> {
    const row = await this.deps.db.maybeOne<{ id: number }>(
      'select id from proposals where org_id = $1 and call_key = $2',
      [orgId, key],
    );
    // The tool answers what a first call answered: the proposal, pending when it was made.
    return row ? { proposalId: row.id, status: 'pending' } : null;
  }

  private view(row: ProposalRow): ProposalView {
    return {
      id: row.id,
      action: row.action,
      source: row.source_slug,
      agentSlug: row.agent_slug,
      params: row.approved_params ?? row.params,
      proposedParams: row.params,
      rationale: row.rationale,
      status: row.status,
      result: row.result,
      error: row.error,
      attempts: row.attempts,
      review: row.review,
      reviewItem:
        row.item_status === null
          ? null
          : {
              kind: ACTION_REVIEW_KIND,
              id: row.id,
              open: row.item_open === true,
              status: row.item_status,
              title: row.item_title ?? '',
              assignedTo: row.item_assigned_to,
              snoozedUntil: row.item_snoozed_until?.toISOString() ?? null,
              note: row.item_note,
            },
      runId: row.run_id,
      createdBy: row.created_by,
      createdAt: row.created_at.toISOString(),
      completedAt: row.completed_at?.toISOString() ?? null,
      reviewUrl: this.reviewUrl(row.id),
    };
  }

  private now(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }
}
