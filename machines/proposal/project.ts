import type { SnapshotFrom } from 'xstate';
import { statusOf } from '../shared/status.js';
import type { ProposalError, ProposalReview } from './context.js';
import type { ProposalMachine } from './machine.js';

/** A proposal's statuses (docs/api.md "Sources and connectors"). */
export const PROPOSAL_STATUSES = [
  'pending',
  'executing',
  'executed',
  'failed',
  'rejected',
  'cancelled',
] as const;

/** A proposal's status. */
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

/** The columns of a proposal's row that the host stores for querying. */
export interface ProposalProjection {
  status: ProposalStatus;
  review: ProposalReview | null;
  /** The params a reviewer approved when they edited the proposed ones; else null. */
  approvedParams: Record<string, unknown> | null;
  result: Record<string, unknown> | null;
  error: ProposalError | null;
  attempts: number;
  completedAt: string | null;
}

/** The queryable columns of a proposal's snapshot. */
export function projectProposal(
  snapshot: Pick<SnapshotFrom<ProposalMachine>, 'value' | 'context'>,
): ProposalProjection {
  const { context } = snapshot;
  return {
    status: statusOf(snapshot.value, PROPOSAL_STATUSES, 'proposal'),
    review: context.review,
    approvedParams: context.approvedParams ?? null,
    result: context.result,
    error: context.error,
    attempts: context.attempts,
    completedAt: context.completedAt,
  };
}
