/**
 * The `proposal` actor kind: rows of `proposals`. Its review item (kind `action`) opens at creation
 * and closes with the decision or the cancel, in the proposal's own transaction (`openReview`,
 * `closeReview`); each domain event goes to the outbox (`emitProposalEvent`) in the transition's own
 * statement, and from there to SSE streams and webhooks.
 */
import { randomUUID } from 'node:crypto';
import {
  type CloseReviewParams,
  type EmitProposalEventParams,
  type OpenReviewParams,
  type ProposalEventName,
  projectProposal,
  proposalContextSchema,
  proposalEventSchema,
  proposalMachine,
} from '../../../machines/index.js';
import type { ActorKindDef, ColumnMap, EffectHandler } from '../../platform/actors/kind.js';
import { proposalEventSubject } from '../../platform/bus/subjects.js';
import type { ReviewItems } from '../reviews/index.js';

/** The actor kind name of proposals. */
export const PROPOSAL_KIND = 'proposal';

/** The review-item kind of proposals. */
export const ACTION_REVIEW_KIND = 'action';

/**
 * The payload of a proposal event on the bus (outbox → `evt.<org>.proposal.<id>.<event>`): the
 * proposal's state after the transition.
 */
export interface ProposalEventPayload {
  /** Unique per event (consumers dedupe by it). */
  eventId: string;
  orgId: number;
  proposalId: number;
  event: ProposalEventName;
  action: string;
  source: string;
  status: string;
  result: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
  /** Who caused it: `token:<id>`, `mcp`, `worker`. */
  by: string;
  at: string;
}

/** The review item's title: the action and the rationale's first line, with the proposal's id. */
export function proposalTitle(action: string, rationale: string, id: number): string {
  const line = rationale.split('\n', 1)[0]?.trim() ?? '';
  const short = line.length > 80 ? `${line.slice(0, 79)}…` : line;
  return short ? `${action}: ${short} (proposal ${id})` : `${action} (proposal ${id})`;
}

/** The columns of `proposals` the kind owns. */
const COLUMNS = {
  action: 'create',
  source_slug: 'create',
  agent_slug: 'create',
  params: 'create',
  rationale: 'load',
  summary: 'load',
  run_id: 'create',
  call_key: 'create',
  created_by: 'create',
  api_token_id: 'create',
  status: 'project',
  review: 'project',
  approved_params: 'project',
  result: 'project',
  error: 'project',
  attempts: 'project',
  completed_at: 'project',
} as const satisfies ColumnMap;

/** The `proposal` kind, whose review items open and close through `items`. */
export function proposalKind(items: ReviewItems): ActorKindDef<typeof proposalMachine, typeof COLUMNS> {
  type Handler<P> = EffectHandler<P, typeof proposalMachine>;
  const emitProposalEvent: Handler<EmitProposalEventParams> = ({ event }, ctx) => {
    const { context } = ctx.after;
    const payload: ProposalEventPayload = {
      eventId: randomUUID(),
      orgId: ctx.row.orgId,
      proposalId: ctx.row.id,
      event,
      action: context.action,
      source: context.source,
      status: ctx.projection.status as string,
      result: context.result,
      error: context.error,
      by: ctx.actingAs.actor,
      at: ctx.at,
    };
    ctx.writes.outbox.push({
      subject: proposalEventSubject(String(ctx.row.orgId), ctx.row.id, event),
      event_id: payload.eventId,
      payload,
    });
  };
  const openReview: Handler<OpenReviewParams> = (_params, ctx) => {
    const { context } = ctx.after;
    const title = proposalTitle(context.action, String(ctx.row.columns.rationale ?? ''), ctx.row.id);
    ctx.writes.followUp((tx) =>
      items.open(
        tx,
        { orgId: ctx.row.orgId, kind: ACTION_REVIEW_KIND, id: ctx.row.id },
        {
          title,
          summary: (ctx.row.columns.summary as string | null) ?? null,
          assignTo: null,
          actingAs: ctx.actingAs,
        },
      ),
    );
  };
  const closeReview: Handler<CloseReviewParams> = ({ reason }, ctx) => {
    const { context } = ctx.after;
    const review = reason === 'decided' ? context.review : null;
    const decision = review
      ? {
          action: review.decision,
          by: review.by,
          reason: (review.decision === 'approve' ? review.note : review.reason) ?? null,
          // The review.decided event says whether the reviewer's edits were applied.
          ...(review.edited ? { edited: true } : {}),
        }
      : null;
    ctx.writes.followUp((tx) =>
      items.close(
        tx,
        { orgId: ctx.row.orgId, kind: ACTION_REVIEW_KIND, id: ctx.row.id },
        { decision, at: ctx.at, actingAs: ctx.actingAs },
      ),
    );
  };
  return {
    name: PROPOSAL_KIND,
    machine: proposalMachine,
    eventSchema: proposalEventSchema,
    table: 'proposals',
    sequence: 'proposals_id_seq',
    contextSchema: proposalContextSchema,
    columns: COLUMNS,
    project(snapshot) {
      const p = projectProposal(snapshot);
      return {
        status: p.status,
        review: p.review,
        approved_params: p.approvedParams,
        result: p.result,
        error: p.error,
        attempts: p.attempts,
        completed_at: p.completedAt,
      };
    },
    runEvents: false,
    effects: { emitProposalEvent, openReview, closeReview },
  };
}
