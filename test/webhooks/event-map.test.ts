/** Which bus events become which webhook events, with what data. */
import { describe, expect, it } from 'vitest';
import { runWebhookType, toWebhookEvent } from '../../src/webhooks/event-map.js';

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

  it('ignores review events and unknown subjects, and rejects a malformed payload', () => {
    expect(toWebhookEvent('evt.3.review.9.opened', { anything: true })).toBeNull();
    expect(toWebhookEvent('sig.jobs.wake', {})).toBeNull();
    expect(() => toWebhookEvent('evt.3.run.42.completed', { runId: 'x' })).toThrow();
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
