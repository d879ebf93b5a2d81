/**
 * proposal: a connector action an agent proposed (`propose_action`), waiting for a human, persisted
 * as an actor (docs/api.md "Sources and connectors"). It never executes on its own: only an approval starts execution.
 *
 * Terminology:
 * - pending: in the review queue (its item, kind `action`, opens at creation). APPROVE → executing;
 *   REJECT → rejected; CANCEL → cancelled. Each closes the item in the same transaction.
 * - attempt: one execution by a worker (the `execute_action` job). EXECUTION_STARTED counts it
 *   before the connector is called, so a worker that dies mid-attempt still used it up, and the
 *   next attempt tells the connector that an earlier one may have taken effect. Every attempt number
 *   an event carries is checked, so a stale or duplicate report is refused.
 * - retry: a failure the upstream may get over (down, slow, busy) with attempts left keeps the
 *   proposal `executing` with the error shown; the job tries again later. Any other failure, or the
 *   last attempt's, is final: `failed`.
 * - proposal event: every transition but a started attempt or a retry publishes one domain event
 *   (`emitProposalEvent`): `created`, `approved`, `rejected`, `cancelled`, `executed`, `failed`.
 */
import { assertEvent, assign, setup } from 'xstate';
import { effectActionsOf, type ProposalEventName } from '../shared/effects.js';
import type { ProposalContext } from './context.js';
import type { ProposalEvent, ProposalInput } from './events.js';

export type { ProposalProjection, ProposalStatus } from './project.js';
export { PROPOSAL_STATUSES, projectProposal } from './project.js';

/** Publishes the proposal's domain event `event` (the host writes it to the outbox). */
const emit = (event: ProposalEventName) => ({ type: 'emitProposalEvent', params: { event } }) as const;

const closeReview = (reason: 'decided' | 'cancelled') =>
  ({ type: 'closeReview', params: { reason } }) as const;

/** The proposal machine (`id` `proposal`, `version` `1`). */
export const proposalMachine = setup({
  types: {
    context: {} as ProposalContext,
    events: {} as ProposalEvent,
    input: {} as ProposalInput,
  },
  actions: {
    ...effectActionsOf('closeReview', 'emitProposalEvent', 'enqueueJob', 'openReview'),
    storeApproval: assign(({ event }) => {
      assertEvent(event, 'APPROVE');
      const edited = event.params !== undefined;
      return {
        review: {
          decision: 'approve' as const,
          by: event.by,
          onBehalfOf: event.onBehalfOf ?? null,
          note: event.note ?? null,
          reason: null,
          ...(edited ? { edited } : {}),
          at: event.at,
        },
        ...(edited ? { approvedParams: event.params } : {}),
      };
    }),
    storeRejection: assign(({ event }) => {
      assertEvent(event, 'REJECT');
      return {
        review: {
          decision: 'reject' as const,
          by: event.by,
          onBehalfOf: event.onBehalfOf ?? null,
          note: null,
          reason: event.reason ?? null,
          at: event.at,
        },
        completedAt: event.at,
      };
    }),
    storeCancel: assign(({ event }) => {
      assertEvent(event, 'CANCEL');
      return {
        cancelled: { by: event.by, reason: event.reason ?? null, at: event.at },
        completedAt: event.at,
      };
    }),
    startAttempt: assign(({ context, event }) => {
      assertEvent(event, 'EXECUTION_STARTED');
      return { attempts: event.attempt, firstAttemptAt: context.firstAttemptAt ?? event.at };
    }),
    storeResult: assign(({ event }) => {
      assertEvent(event, 'EXECUTION_SUCCEEDED');
      return { result: event.result, error: null, completedAt: event.at };
    }),
    storeRetryableError: assign(({ event }) => {
      assertEvent(event, 'EXECUTION_FAILED');
      return { error: event.error };
    }),
    storeFinalError: assign(({ event }) => {
      assertEvent(event, 'EXECUTION_FAILED');
      return { error: event.error, completedAt: event.at };
    }),
  },
  guards: {
    isNextAttempt: ({ context, event }) =>
      event.type === 'EXECUTION_STARTED' && event.attempt === context.attempts + 1,
    isCurrentAttempt: ({ context, event }) =>
      (event.type === 'EXECUTION_SUCCEEDED' || event.type === 'EXECUTION_FAILED') &&
      context.attempts > 0 &&
      event.attempt === context.attempts,
    isRetry: ({ context, event }) =>
      event.type === 'EXECUTION_FAILED' && event.retry && event.attempt === context.attempts,
  },
}).createMachine({
  id: 'proposal',
  version: '1',
  context: ({ input }) => ({
    proposalId: input.proposalId,
    action: input.action,
    source: input.source,
    createdAt: input.at,
    review: null,
    cancelled: null,
    attempts: 0,
    firstAttemptAt: null,
    result: null,
    error: null,
    completedAt: null,
  }),
  initial: 'pending',
  states: {
    pending: {
      entry: [{ type: 'openReview', params: {} }, emit('created')],
      on: {
        APPROVE: {
          target: 'executing',
          actions: [
            'storeApproval',
            closeReview('decided'),
            { type: 'enqueueJob', params: { job: 'execute_action', attempt: 1 } },
            emit('approved'),
          ],
        },
        REJECT: { target: 'rejected', actions: ['storeRejection', closeReview('decided'), emit('rejected')] },
        CANCEL: {
          target: 'cancelled',
          actions: ['storeCancel', closeReview('cancelled'), emit('cancelled')],
        },
      },
    },
    executing: {
      on: {
        EXECUTION_STARTED: { guard: 'isNextAttempt', actions: 'startAttempt' },
        EXECUTION_SUCCEEDED: {
          guard: 'isCurrentAttempt',
          target: 'executed',
          actions: ['storeResult', emit('executed')],
        },
        EXECUTION_FAILED: [
          { guard: 'isRetry', actions: 'storeRetryableError' },
          { guard: 'isCurrentAttempt', target: 'failed', actions: ['storeFinalError', emit('failed')] },
        ],
      },
    },
    executed: { type: 'final' },
    failed: { type: 'final' },
    rejected: { type: 'final' },
    cancelled: { type: 'final' },
  },
});

/** The proposal machine's type. */
export type ProposalMachine = typeof proposalMachine;
