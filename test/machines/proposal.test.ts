/**
 * The proposal machine against the table of docs/api.md "Proposals" (`pending` → `executing` → `executed` |
 * `failed`; `pending` → `rejected` | `cancelled`), row by row, with every refused transition.
 */
import { describe, expect, it } from 'vitest';
import {
  type ProposalEvent,
  type ProposalInput,
  proposalEventSchema,
} from '../../machines/proposal/events.js';
import { PROPOSAL_STATUSES, projectProposal, proposalMachine } from '../../machines/proposal/machine.js';
import {
  type InitialRow,
  type RefusedRow,
  reach,
  roundTrip,
  specTable,
  type TransitionRow,
} from './helpers.js';

type M = typeof proposalMachine;

const T0 = '2025-03-01T10:00:00.000Z';
const T1 = '2025-03-01T10:00:05.000Z';
const T2 = '2025-03-01T10:00:06.000Z';
const T3 = '2025-03-01T10:00:09.000Z';
const T4 = '2025-03-01T10:00:10.000Z';

const input: ProposalInput = { proposalId: 7, action: 'crm.update_deal', source: 'hubspot', at: T0 };

const approve: ProposalEvent = { type: 'APPROVE', by: 'token:abc', onBehalfOf: 'ann', note: 'go', at: T1 };
const reject: ProposalEvent = { type: 'REJECT', by: 'token:abc', reason: 'wrong deal', at: T1 };
const cancel: ProposalEvent = { type: 'CANCEL', by: 'token:def', reason: null, at: T1 };
const started = (attempt: number, at = T2): ProposalEvent => ({ type: 'EXECUTION_STARTED', attempt, at });
const succeeded = (attempt: number, at = T3): ProposalEvent => ({
  type: 'EXECUTION_SUCCEEDED',
  attempt,
  result: { dealId: '42', updatedAt: '2025-03-01T10:00:08.000Z' },
  at,
});
const failed = (attempt: number, retry: boolean, at = T3): ProposalEvent => ({
  type: 'EXECUTION_FAILED',
  attempt,
  error: { code: retry ? 'UNAVAILABLE' : 'REJECTED', message: 'HubSpot said no' },
  retry,
  at,
});

const emit = (event: string) => ({ type: 'emitProposalEvent', params: { event } });
const close = (reason: string) => ({ type: 'closeReview', params: { reason } });
const executeJob = { type: 'enqueueJob', params: { job: 'execute_action', attempt: 1 } };

const initialRows: InitialRow<M>[] = [
  {
    name: 'propose_action creates it pending, opens its review item and publishes created',
    input,
    to: 'pending',
    actions: [{ type: 'openReview', params: {} }, emit('created')],
    context: {
      proposalId: 7,
      action: 'crm.update_deal',
      source: 'hubspot',
      createdAt: T0,
      review: null,
      cancelled: null,
      attempts: 0,
      firstAttemptAt: null,
      result: null,
      error: null,
      completedAt: null,
    },
  },
];

const transitionRows: TransitionRow<M>[] = [
  {
    name: 'pending → executing: approve closes the item as decided and enqueues the execution',
    input,
    from: [],
    event: approve,
    to: 'executing',
    actions: [close('decided'), executeJob, emit('approved')],
    context: {
      review: { decision: 'approve', by: 'token:abc', onBehalfOf: 'ann', note: 'go', reason: null, at: T1 },
      completedAt: null,
    },
  },
  {
    name: 'pending → executing: an approval with edited params keeps them beside the proposed ones',
    input,
    from: [],
    event: { ...approve, params: { dealId: '42', properties: { dealstage: 'closedlost' } } } as ProposalEvent,
    to: 'executing',
    actions: [close('decided'), executeJob, emit('approved')],
    context: {
      review: {
        decision: 'approve',
        by: 'token:abc',
        onBehalfOf: 'ann',
        note: 'go',
        reason: null,
        edited: true,
        at: T1,
      },
      approvedParams: { dealId: '42', properties: { dealstage: 'closedlost' } },
    },
  },
  {
    name: 'pending → rejected: reject closes the item as decided and executes nothing',
    input,
    from: [],
    event: reject,
    to: 'rejected',
    actions: [close('decided'), emit('rejected')],
    context: {
      review: {
        decision: 'reject',
        by: 'token:abc',
        onBehalfOf: null,
        note: null,
        reason: 'wrong deal',
        at: T1,
      },
      completedAt: T1,
    },
  },
  {
    name: 'pending → cancelled: cancel closes the item as cancelled and executes nothing',
    input,
    from: [],
    event: cancel,
    to: 'cancelled',
    actions: [close('cancelled'), emit('cancelled')],
    context: { cancelled: { by: 'token:def', reason: null, at: T1 }, review: null, completedAt: T1 },
  },
  {
    name: 'executing: a worker starts attempt 1 (counted before the connector is called)',
    input,
    from: [approve],
    event: started(1),
    to: 'executing',
    actions: [],
    context: { attempts: 1, firstAttemptAt: T2 },
  },
  {
    name: 'executing → executed: the current attempt succeeded; the result is recorded',
    input,
    from: [approve, started(1)],
    event: succeeded(1),
    to: 'executed',
    actions: [emit('executed')],
    context: {
      result: { dealId: '42', updatedAt: '2025-03-01T10:00:08.000Z' },
      error: null,
      completedAt: T3,
    },
  },
  {
    name: 'executing → failed: a final failure of the current attempt',
    input,
    from: [approve, started(1)],
    event: failed(1, false),
    to: 'failed',
    actions: [emit('failed')],
    context: { error: { code: 'REJECTED', message: 'HubSpot said no' }, result: null, completedAt: T3 },
  },
  {
    name: 'executing: a retryable failure stays executing with the error shown',
    input,
    from: [approve, started(1)],
    event: failed(1, true),
    to: 'executing',
    actions: [],
    context: { error: { code: 'UNAVAILABLE', message: 'HubSpot said no' }, completedAt: null },
  },
  {
    name: 'executing: after a retryable failure the next attempt starts; the first attempt time is kept',
    input,
    from: [approve, started(1), failed(1, true)],
    event: started(2, T4),
    to: 'executing',
    actions: [],
    context: { attempts: 2, firstAttemptAt: T2 },
  },
  {
    name: 'executing: a worker that died mid-attempt is followed by the next attempt',
    input,
    from: [approve, started(1)],
    event: started(2, T4),
    to: 'executing',
    actions: [],
    context: { attempts: 2, firstAttemptAt: T2 },
  },
  {
    name: 'executing → executed: a retry succeeds and clears the error',
    input,
    from: [approve, started(1), failed(1, true), started(2, T4)],
    event: succeeded(2, T4),
    to: 'executed',
    actions: [emit('executed')],
    context: { attempts: 2, error: null, result: { dealId: '42', updatedAt: '2025-03-01T10:00:08.000Z' } },
  },
];

const refusedRows: RefusedRow<M>[] = [
  { name: 'pending: no attempt starts before approval', input, from: [], event: started(1) },
  { name: 'pending: no success without an attempt', input, from: [], event: succeeded(1) },
  { name: 'pending: no failure without an attempt', input, from: [], event: failed(1, false) },
  { name: 'executing: approved twice', input, from: [approve], event: approve },
  { name: 'executing: rejected after approval', input, from: [approve], event: reject },
  { name: 'executing: cancelled after approval', input, from: [approve], event: cancel },
  { name: 'executing: a report before any attempt started', input, from: [approve], event: succeeded(1) },
  { name: 'executing: attempt 2 before attempt 1', input, from: [approve], event: started(2) },
  {
    name: 'executing: the same attempt started twice',
    input,
    from: [approve, started(1)],
    event: started(1),
  },
  {
    name: 'executing: a stale report of an earlier attempt',
    input,
    from: [approve, started(1), started(2)],
    event: succeeded(1),
  },
  {
    name: 'executing: a stale failure of an earlier attempt',
    input,
    from: [approve, started(1), started(2)],
    event: failed(1, false),
  },
  ...(['executed', 'failed', 'rejected', 'cancelled'] as const).flatMap((state) => {
    const path: Record<typeof state, ProposalEvent[]> = {
      executed: [approve, started(1), succeeded(1)],
      failed: [approve, started(1), failed(1, false)],
      rejected: [reject],
      cancelled: [cancel],
    };
    return [approve, reject, cancel, started(2), succeeded(1), failed(1, true)].map((event) => ({
      name: `${state} is final: ${event.type}${'retry' in event ? ` (retry ${event.retry})` : ''}`,
      input,
      from: path[state],
      event,
    }));
  }),
];

describe('proposal machine', () => {
  specTable(proposalMachine, 'proposal', {
    initial: initialRows,
    transitions: transitionRows,
    refused: refusedRows,
  });

  it('projects every status and survives a persistence round trip', () => {
    const paths: Record<(typeof PROPOSAL_STATUSES)[number], ProposalEvent[]> = {
      pending: [],
      executing: [approve, started(1)],
      executed: [approve, started(1), succeeded(1)],
      failed: [approve, started(1), failed(1, false)],
      rejected: [reject],
      cancelled: [cancel],
    };
    for (const status of PROPOSAL_STATUSES) {
      const snapshot = roundTrip(proposalMachine, reach(proposalMachine, input, paths[status]));
      expect(projectProposal(snapshot).status).toBe(status);
    }
    const executed = projectProposal(reach(proposalMachine, input, paths.executed));
    expect(executed).toMatchObject({ attempts: 1, completedAt: T3, error: null });
  });

  it('refuses malformed events at the schema', () => {
    expect(proposalEventSchema.safeParse({ type: 'APPROVE', at: T1 }).success).toBe(false);
    expect(
      proposalEventSchema.safeParse({ type: 'EXECUTION_FAILED', attempt: 1, error: { code: 'X' }, at: T1 })
        .success,
    ).toBe(false);
    expect(proposalEventSchema.safeParse({ ...started(0) }).success).toBe(false);
  });
});
