import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import {
  buildDeliveryBody,
  deliveryBodySchema,
  matchesFilter,
  newDeliveryId,
  WEBHOOK_EVENT_TYPES,
  webhookEventsSchema,
  webhookEventTypeSchema,
  webhookFilterSchema,
} from '../../../src/features/webhooks/payload.js';

const runData = {
  runId: 42,
  kind: 'skill' as const,
  slug: 'summarize',
  status: 'completed' as const,
  output: { text: 'done' },
  workspaceSha: 'a1b2c3d',
};

describe('event types', () => {
  it('are the spec eight and the three proposal events of docs/api.md "Events and filters"', () => {
    expect(WEBHOOK_EVENT_TYPES).toEqual([
      'run.started',
      'run.step_completed',
      'run.paused_for_review',
      'run.approved',
      'run.rejected',
      'run.completed',
      'run.failed',
      'object.created',
      'proposal.created',
      'proposal.executed',
      'proposal.failed',
      'mission.started',
      'mission.awaiting_review',
      'mission.completed',
      'mission.failed',
      'mission.cancelled',
      'review.requested',
      'review.assigned',
      'review.snoozed',
      'review.decided',
      'review.changes_requested',
      'review.due_soon',
      'review.overdue',
      'review.escalated',
    ]);
    expect(webhookEventTypeSchema.safeParse('run.cancelled').success).toBe(false);
    expect(webhookEventTypeSchema.safeParse('review.updated').success).toBe(false);
    expect(webhookEventTypeSchema.safeParse('proposal.approved').success).toBe(false);
  });

  it('a webhook subscribes to at least one, without repeats', () => {
    expect(webhookEventsSchema.safeParse(['run.completed', 'object.created']).success).toBe(true);
    expect(webhookEventsSchema.safeParse([]).success).toBe(false);
    expect(webhookEventsSchema.safeParse(['run.failed', 'run.failed']).success).toBe(false);
  });

  it('a filter takes only skillSlug and workflowSlug', () => {
    expect(webhookFilterSchema.safeParse({ skillSlug: 'a', workflowSlug: null }).success).toBe(true);
    expect(webhookFilterSchema.safeParse({}).success).toBe(true);
    expect(webhookFilterSchema.safeParse({ agentSlug: 'x' }).success).toBe(false);
  });
});

describe('newDeliveryId', () => {
  it('is whd_ plus 24 base32 characters, and unique', () => {
    const ids = new Set(Array.from({ length: 1000 }, newDeliveryId));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^whd_[a-z2-7]{24}$/);
  });
});

describe('buildDeliveryBody', () => {
  it('builds a run event body and its JSON text', () => {
    const { body, json } = buildDeliveryBody({
      event: 'run.completed',
      createdAt: new Date('2026-01-02T03:04:05.000Z'),
      deliveryId: 'whd_abcdefghijklmnopqrstuvwx',
      data: runData,
    });
    expect(body).toEqual({
      event: 'run.completed',
      deliveryId: 'whd_abcdefghijklmnopqrstuvwx',
      createdAt: '2026-01-02T03:04:05.000Z',
      data: runData,
    });
    expect(JSON.parse(json)).toEqual(body);
    expect(deliveryBodySchema.parse(JSON.parse(json))).toEqual(body);
  });

  it('builds object.created with its own data shape, and a fresh delivery id', () => {
    const data = {
      objectId: 7,
      slug: 'ticket',
      title: 'Printer on fire',
      createdAt: '2026-01-02T03:04:05.000Z',
    };
    const { body } = buildDeliveryBody({
      event: 'object.created',
      createdAt: '2026-01-02T03:04:06.000Z',
      data,
    });
    expect(body.data).toEqual(data);
    expect(body.deliveryId).toMatch(/^whd_[a-z2-7]{24}$/);
  });

  it('allows a null output and a step name', () => {
    const data = {
      ...runData,
      kind: 'workflow' as const,
      status: 'running' as const,
      output: null,
      step: 'draft',
    };
    expect(
      buildDeliveryBody({ event: 'run.step_completed', createdAt: new Date(0), data }).body.data,
    ).toEqual(data);
  });

  it('refuses data that does not fit the event', () => {
    const objectData = { objectId: 7, slug: 'ticket', title: 't', createdAt: '2026-01-02T03:04:05.000Z' };
    expect(() =>
      buildDeliveryBody({
        event: 'run.completed',
        createdAt: new Date(0),
        data: objectData as unknown as typeof runData,
      }),
    ).toThrow(ZodError);
    expect(() =>
      buildDeliveryBody({
        event: 'run.failed',
        createdAt: new Date(0),
        data: { ...runData, extra: 1 } as typeof runData,
      }),
    ).toThrow(ZodError);
    expect(() =>
      buildDeliveryBody({ event: 'run.failed', createdAt: new Date(0), deliveryId: 'del_1', data: runData }),
    ).toThrow(ZodError);
  });
});

describe('matchesFilter', () => {
  const skillRun = (slug: string) => ({ type: 'run.completed', kind: 'skill' as const, slug });
  const workflowRun = (slug: string) => ({ type: 'run.completed', kind: 'workflow' as const, slug });
  const objectCreated = { type: 'object.created', slug: 'ticket' };
  const hook = (filter: { skillSlug?: string | null; workflowSlug?: string | null } | null) => ({
    events: ['run.completed', 'object.created'],
    filter,
  });

  it('needs the event type to be subscribed', () => {
    expect(matchesFilter(hook(null), { type: 'run.failed', kind: 'skill', slug: 'a' })).toBe(false);
    expect(matchesFilter(hook(null), skillRun('a'))).toBe(true);
  });

  it('matches every run when no key is set (null, absent or no filter)', () => {
    for (const filter of [null, {}, { skillSlug: null, workflowSlug: null }]) {
      expect(matchesFilter(hook(filter), skillRun('a'))).toBe(true);
      expect(matchesFilter(hook(filter), workflowRun('b'))).toBe(true);
    }
  });

  it('skillSlug: only skill runs of that slug, never workflow runs', () => {
    const h = hook({ skillSlug: 'summarize', workflowSlug: null });
    expect(matchesFilter(h, skillRun('summarize'))).toBe(true);
    expect(matchesFilter(h, skillRun('translate'))).toBe(false);
    expect(matchesFilter(h, workflowRun('summarize'))).toBe(false);
  });

  it('workflowSlug: only workflow runs of that slug, never skill runs', () => {
    const h = hook({ workflowSlug: 'onboarding' });
    expect(matchesFilter(h, workflowRun('onboarding'))).toBe(true);
    expect(matchesFilter(h, workflowRun('offboarding'))).toBe(false);
    expect(matchesFilter(h, skillRun('onboarding'))).toBe(false);
  });

  it('both set: a run matching either one', () => {
    const h = hook({ skillSlug: 'summarize', workflowSlug: 'onboarding' });
    expect(matchesFilter(h, skillRun('summarize'))).toBe(true);
    expect(matchesFilter(h, workflowRun('onboarding'))).toBe(true);
    expect(matchesFilter(h, skillRun('onboarding'))).toBe(false);
    expect(matchesFilter(h, workflowRun('summarize'))).toBe(false);
  });

  it('a run event without kind or slug does not pass a set filter', () => {
    expect(matchesFilter(hook({ skillSlug: 'summarize' }), { type: 'run.completed' })).toBe(false);
  });

  it('object.created ignores the run filters', () => {
    expect(matchesFilter(hook({ skillSlug: 'summarize', workflowSlug: 'onboarding' }), objectCreated)).toBe(
      true,
    );
    expect(matchesFilter({ events: ['run.completed'], filter: null }, objectCreated)).toBe(false);
  });
});
