/** Which bus events become which webhook events, with what data. */
import { describe, expect, it } from 'vitest';
import { mayMapToWebhook, runWebhookType, toWebhookEvent } from '../../../src/features/webhooks/event-map.js';

const run = (event: string, kind: 'skill' | 'workflow' = 'skill', extra: Record<string, unknown> = {}) => ({
  eventId: '0d3c8a9e-0000-4000-8000-000000000001',
  orgId: 3,
  runId: 42,
  kind,
  slug: 'summarize',
  seq: 4,
  event,
  status: 'completed',
  step: null,
  output: { text: 'done' },
  workspaceSha: 'abc123def456',
  at: '2026-01-02T03:04:05.000Z',
  ...extra,
});

describe('run events', () => {
  it('map by name; step_completed only for workflows; step_started and cancelled not at all', () => {
    expect(runWebhookType('started', 'skill')).toBe('run.started');
    expect(runWebhookType('paused_for_review', 'skill')).toBe('run.paused_for_review');
    expect(runWebhookType('approved', 'workflow')).toBe('run.approved');
    expect(runWebhookType('rejected', 'skill')).toBe('run.rejected');
    expect(runWebhookType('completed', 'workflow')).toBe('run.completed');
    expect(runWebhookType('failed', 'skill')).toBe('run.failed');
    expect(runWebhookType('step_completed', 'workflow')).toBe('run.step_completed');
    expect(runWebhookType('step_completed', 'skill')).toBeNull();
    expect(runWebhookType('step_started', 'workflow')).toBeNull();
    expect(runWebhookType('cancelled', 'skill')).toBeNull();
  });

  it('carry the spec data, with step only when the event has one', () => {
    const completed = toWebhookEvent('evt.3.run.42.completed', run('completed'));
    expect(completed).toEqual({
      type: 'run.completed',
      eventId: '0d3c8a9e-0000-4000-8000-000000000001',
      orgId: 3,
      descriptor: { type: 'run.completed', kind: 'skill', slug: 'summarize' },
      createdAt: '2026-01-02T03:04:05.000Z',
      data: {
        runId: 42,
        kind: 'skill',
        slug: 'summarize',
        status: 'completed',
        output: { text: 'done' },
        workspaceSha: 'abc123def456',
      },
    });
    const step = toWebhookEvent(
      'evt.3.run.42.step_completed',
      run('step_completed', 'workflow', { step: 'draft' }),
    );
    expect(step?.data).toMatchObject({ step: 'draft' });
    const noOutput = toWebhookEvent('evt.3.run.42.started', run('started', 'skill', { output: null }));
    expect(noOutput?.data).toMatchObject({ output: null });
  });

  it('are told apart from the subject alone exactly when no payload could give them a webhook type', () => {
    const names = ['started', 'step_started', 'step_completed', 'paused_for_review', 'approved', 'rejected'];
    for (const name of [...names, 'completed', 'failed', 'cancelled', 'unknown_event']) {
      const subject = `evt.3.run.42.${name}`;
      const mapsForSome = (['skill', 'workflow'] as const).some(
        (kind) => toWebhookEvent(subject, run(name, kind)) !== null,
      );
      expect(mayMapToWebhook(subject), name).toBe(mapsForSome);
    }
    expect(mayMapToWebhook('evt.3.object.9.created')).toBe(true);
    expect(mayMapToWebhook('evt.3.object.9.updated')).toBe(false);
    for (const name of ['created', 'executed', 'failed']) {
      expect(mayMapToWebhook(`evt.3.proposal.9.${name}`), name).toBe(true);
    }
    for (const name of ['approved', 'rejected', 'cancelled']) {
      expect(mayMapToWebhook(`evt.3.proposal.9.${name}`), name).toBe(false);
    }
    expect(mayMapToWebhook('sig.jobs.wake')).toBe(false);
  });

  it('ignores unknown subjects, and rejects a malformed payload', () => {
    expect(toWebhookEvent('evt.3.review.9.woken', { anything: true })).toBeNull();
    expect(toWebhookEvent('sig.jobs.wake', {})).toBeNull();
    expect(() => toWebhookEvent('evt.3.review.9.opened', { anything: true })).toThrow();
    expect(() => toWebhookEvent('evt.3.run.42.completed', { runId: 'x' })).toThrow();
  });
});

describe('review events', () => {
  const payload = (event: string, extra: Record<string, unknown> = {}) => ({
    eventId: '0d3c8a9e-0000-4000-8000-000000000004',
    orgId: 3,
    reviewItemId: 9,
    kind: 'skill',
    runId: 42,
    event,
    title: 'Reply to Ann (run 42)',
    summary: 'Dear Ann, thank you',
    status: 'assigned',
    revision: '9.2',
    assignedTo: 'ann',
    snoozedUntil: null,
    note: 'yours',
    decision: null,
    edited: false,
    reason: null,
    by: 'token:abc',
    at: '2026-01-02T03:04:05.000Z',
    ...extra,
  });

  it('opened is review.requested; assigned, snoozed, decided, changes_requested keep their names; the rest none', () => {
    const types = {
      opened: 'review.requested',
      assigned: 'review.assigned',
      snoozed: 'review.snoozed',
      decided: 'review.decided',
      changes_requested: 'review.changes_requested',
    };
    for (const [name, type] of Object.entries(types)) {
      expect(mayMapToWebhook(`evt.3.review.9.${name}`), name).toBe(true);
      expect(toWebhookEvent(`evt.3.review.9.${name}`, payload(name))?.type, name).toBe(type);
    }
    for (const name of ['woken', 'updated', 'cancelled', 'unknown']) {
      expect(mayMapToWebhook(`evt.3.review.9.${name}`), name).toBe(false);
      expect(toWebhookEvent(`evt.3.review.9.${name}`, payload(name)), name).toBeNull();
    }
  });

  it('carry {kind, id, title, status, assignedTo, revision, by}: the status the queue shows, and ignore filters', () => {
    expect(toWebhookEvent('evt.3.review.9.assigned', payload('assigned'))).toEqual({
      type: 'review.assigned',
      eventId: '0d3c8a9e-0000-4000-8000-000000000004',
      orgId: 3,
      descriptor: { type: 'review.assigned' },
      createdAt: '2026-01-02T03:04:05.000Z',
      data: {
        kind: 'skill',
        id: 42,
        title: 'Reply to Ann (run 42)',
        summary: 'Dear Ann, thank you',
        status: 'pending',
        assignedTo: 'ann',
        revision: '9.2',
        by: 'token:abc',
      },
    });
    const workflow = toWebhookEvent(
      'evt.3.review.9.snoozed',
      payload('snoozed', { kind: 'workflow', status: 'snoozed' }),
    );
    expect(workflow?.data).toMatchObject({ kind: 'workflow', status: 'paused' });
    const mission = toWebhookEvent(
      'evt.3.review.9.opened',
      payload('opened', { kind: 'mission', status: 'unassigned' }),
    );
    expect(mission?.data).toMatchObject({ kind: 'mission', status: 'awaiting_review' });
  });

  it('a decision adds action, edited and reason; the item is decided and has no revision', () => {
    const decided = toWebhookEvent(
      'evt.3.review.9.decided',
      payload('decided', {
        status: 'decided',
        revision: null,
        decision: 'approve',
        edited: true,
        reason: 'ok',
      }),
    );
    expect(decided?.data).toEqual({
      kind: 'skill',
      id: 42,
      title: 'Reply to Ann (run 42)',
      summary: 'Dear Ann, thank you',
      status: 'decided',
      assignedTo: 'ann',
      revision: null,
      action: 'approve',
      edited: true,
      by: 'token:abc',
      reason: 'ok',
    });
    const changes = toWebhookEvent(
      'evt.3.review.9.changes_requested',
      payload('changes_requested', {
        status: 'decided',
        revision: null,
        decision: 'request_changes',
        reason: 'Mention the refund',
      }),
    );
    expect(changes?.data).toMatchObject({
      action: 'request_changes',
      edited: false,
      reason: 'Mention the refund',
    });
    // Only a decision's changes carry it.
    expect(
      toWebhookEvent('evt.3.review.9.assigned', payload('assigned', { decision: 'approve' }))?.data,
    ).not.toHaveProperty('action');
  });
});

describe('object.created', () => {
  it('carries {objectId, slug, title, createdAt} and ignores filters', () => {
    const event = toWebhookEvent('evt.3.object.7.created', {
      eventId: '0d3c8a9e-0000-4000-8000-000000000002',
      orgId: 3,
      objectId: 7,
      slug: 'ticket',
      title: 'Broken',
      createdAt: '2026-01-02T03:04:05.000Z',
    });
    expect(event).toMatchObject({
      type: 'object.created',
      descriptor: { type: 'object.created' },
      data: { objectId: 7, slug: 'ticket', title: 'Broken', createdAt: '2026-01-02T03:04:05.000Z' },
    });
  });
});

describe('proposal events', () => {
  const payload = (event: string, status: string) => ({
    eventId: '0d3c8a9e-0000-4000-8000-000000000003',
    orgId: 3,
    proposalId: 11,
    event,
    action: 'crm.update_deal',
    source: 'hubspot',
    status,
    result: status === 'executed' ? { dealId: '42' } : null,
    error: status === 'failed' ? { code: 'UNAVAILABLE', message: 'down' } : null,
    by: 'worker',
    at: '2026-01-02T03:04:05.000Z',
  });

  it('created, executed and failed carry the proposal and ignore filters', () => {
    for (const [name, status] of [
      ['created', 'pending'],
      ['executed', 'executed'],
      ['failed', 'failed'],
    ] as const) {
      const event = toWebhookEvent(`evt.3.proposal.11.${name}`, payload(name, status));
      expect(event).toMatchObject({
        type: `proposal.${name}`,
        orgId: 3,
        descriptor: { type: `proposal.${name}` },
        createdAt: '2026-01-02T03:04:05.000Z',
        data: { proposalId: 11, action: 'crm.update_deal', source: 'hubspot', status },
      });
    }
    expect(toWebhookEvent('evt.3.proposal.11.executed', payload('executed', 'executed'))?.data).toEqual({
      proposalId: 11,
      action: 'crm.update_deal',
      source: 'hubspot',
      status: 'executed',
      result: { dealId: '42' },
      error: null,
    });
  });

  it('approved, rejected and cancelled map to nothing; a malformed payload throws', () => {
    expect(toWebhookEvent('evt.3.proposal.11.approved', payload('approved', 'executing'))).toBeNull();
    expect(() => toWebhookEvent('evt.3.proposal.11.created', { proposalId: 'x' })).toThrow();
  });
});
