import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BACKOFF_MS,
  type WebhookDeliveryEvent,
  type WebhookDeliveryInput,
  webhookDeliveryEventSchema,
  webhookDeliveryInputSchema,
} from '../../machines/webhook-delivery/events.js';
import {
  backoffAfter,
  projectWebhookDelivery,
  webhookDeliveryMachine,
} from '../../machines/webhook-delivery/machine.js';
import {
  type ActionView,
  create,
  type InitialRow,
  type RefusedRow,
  reach,
  roundTrip,
  type Snapshot,
  send,
  specTable,
  type TransitionRow,
} from './helpers.js';

type M = typeof webhookDeliveryMachine;

const T0 = '2025-03-01T10:00:00.000Z';
const T1 = '2025-03-01T10:00:00.200Z';
const T2 = '2025-03-01T10:00:00.900Z';
const T3 = '2025-03-01T10:00:01.900Z';

const input: WebhookDeliveryInput = { deliveryId: 'whd_01JX9', webhookId: 5, event: 'run.completed', at: T0 };
const single: WebhookDeliveryInput = { ...input, maxAttempts: 1 };

const started = (attempt: number, at = T1): WebhookDeliveryEvent => ({
  type: 'ATTEMPT_STARTED',
  attempt,
  at,
});
const succeeded = (attempt: number, at = T2): WebhookDeliveryEvent => ({
  type: 'ATTEMPT_SUCCEEDED',
  attempt,
  status: 204,
  at,
});
const failed = (attempt: number, at = T2): WebhookDeliveryEvent => ({
  type: 'ATTEMPT_FAILED',
  attempt,
  status: 503,
  error: 'Service Unavailable',
  at,
});
const retryDue = (attempt: number, at = T3): WebhookDeliveryEvent => ({ type: 'RETRY_DUE', attempt, at });

const deliverJob = (attempt: number) => ({ type: 'enqueueJob', params: { job: 'deliver', attempt } });
const notify = (signal: string) => ({
  type: 'notify',
  params: { signal, deliveryId: 'whd_01JX9', webhookId: 5 },
});

/** Attempts 1…n started and failed, each retry fired on time: the delivery is in retry_scheduled (or failed). */
function failedAttempts(n: number): WebhookDeliveryEvent[] {
  const events: WebhookDeliveryEvent[] = [];
  for (let attempt = 1; attempt <= n; attempt += 1) {
    if (attempt > 1) events.push(retryDue(attempt));
    events.push(started(attempt), failed(attempt));
  }
  return events;
}

const initialRows: InitialRow<M>[] = [
  {
    name: 'a delivery is created pending and its first attempt is enqueued at once',
    input,
    to: 'pending',
    actions: [deliverJob(1)],
    context: {
      attempts: 0,
      maxAttempts: 6,
      backoffMs: [...DEFAULT_BACKOFF_MS],
      lastAttemptAt: null,
      nextAttemptAt: null,
      responseStatus: null,
      lastError: null,
    },
  },
  {
    name: 'configured limits replace the defaults',
    input: { ...input, maxAttempts: 3, backoffMs: [10, 20] },
    to: 'pending',
    actions: [deliverJob(1)],
    context: { maxAttempts: 3, backoffMs: [10, 20] },
  },
];

const transitionRows: TransitionRow<M>[] = [
  {
    name: 'pending: a worker starts attempt 1',
    input,
    from: [],
    event: started(1),
    to: 'delivering',
    actions: [],
    context: { attempts: 1, lastAttemptAt: T1 },
  },
  {
    name: 'delivering: a 2xx marks it delivered and tells the endpoint',
    input,
    from: [started(1)],
    event: succeeded(1),
    to: 'delivered',
    actions: [notify('delivery_succeeded')],
    context: { attempts: 1, responseStatus: 204, lastError: null, nextAttemptAt: null },
  },
  {
    name: 'delivering: a failed attempt schedules the next one after the first backoff',
    input,
    from: [started(1)],
    event: failed(1),
    to: 'retry_scheduled',
    actions: [
      {
        type: 'scheduleTimer',
        params: {
          timerId: 'retry',
          event: { type: 'RETRY_DUE', attempt: 2 },
          dueAt: '2025-03-01T10:00:01.900Z',
        },
      },
    ],
    context: {
      attempts: 1,
      responseStatus: 503,
      lastError: 'Service Unavailable',
      nextAttemptAt: '2025-03-01T10:00:01.900Z',
    },
  },
  {
    name: 'delivering: a timeout (no status) is a failed attempt too',
    input,
    from: [started(1)],
    event: { type: 'ATTEMPT_FAILED', attempt: 1, status: null, error: 'timeout after 30s', at: T2 },
    to: 'retry_scheduled',
    actions: [
      {
        type: 'scheduleTimer',
        params: {
          timerId: 'retry',
          event: { type: 'RETRY_DUE', attempt: 2 },
          dueAt: '2025-03-01T10:00:01.900Z',
        },
      },
    ],
    context: { responseStatus: null, lastError: 'timeout after 30s' },
  },
  {
    name: 'retry_scheduled: the due timer enqueues the next attempt',
    input,
    from: [started(1), failed(1)],
    event: retryDue(2),
    to: 'pending',
    actions: [deliverJob(2)],
    context: { attempts: 1, nextAttemptAt: '2025-03-01T10:00:01.900Z' },
  },
  {
    name: 'pending: a worker starts the retry',
    input,
    from: [started(1), failed(1), retryDue(2)],
    event: started(2, T3),
    to: 'delivering',
    actions: [],
    context: { attempts: 2, lastAttemptAt: T3, nextAttemptAt: null },
  },
  {
    name: 'delivering: a re-claimed job after a worker died counts as a new attempt',
    input,
    from: [started(1)],
    event: started(2, T3),
    to: 'delivering',
    actions: [],
    context: { attempts: 2, lastAttemptAt: T3 },
  },
  {
    name: 'delivering: the re-claimed attempt can succeed',
    input,
    from: [started(1), started(2, T3)],
    event: succeeded(2, T3),
    to: 'delivered',
    actions: [notify('delivery_succeeded')],
  },
  {
    name: 'delivering: the sixth failed attempt marks it failed and tells the endpoint',
    input,
    from: [...failedAttempts(5), retryDue(6), started(6)],
    event: failed(6),
    to: 'failed',
    actions: [notify('delivery_failed')],
    context: { attempts: 6, nextAttemptAt: null, responseStatus: 503, lastError: 'Service Unavailable' },
  },
  {
    name: 'delivering: with one attempt allowed, the first failure is final',
    input: single,
    from: [started(1)],
    event: failed(1),
    to: 'failed',
    actions: [notify('delivery_failed')],
  },
];

const paths = {
  pending: { input, from: [] },
  delivering: { input, from: [started(1)] },
  'delivering (re-claimed as attempt 2)': { input, from: [started(1), started(2)] },
  'delivering (last attempt)': { input, from: [...failedAttempts(5), retryDue(6), started(6)] },
  'retry_scheduled (after attempt 1)': { input, from: [started(1), failed(1)] },
  'pending (attempt 2 due)': { input, from: [started(1), failed(1), retryDue(2)] },
  delivered: { input, from: [started(1), succeeded(1)] },
  failed: { input: single, from: [started(1), failed(1)] },
} satisfies Record<string, { input: WebhookDeliveryInput; from: WebhookDeliveryEvent[] }>;

function refused(state: keyof typeof paths, events: WebhookDeliveryEvent[], why: string): RefusedRow<M>[] {
  return events.map((event) => ({
    name: `${event.type} ${'attempt' in event ? event.attempt : ''} in ${state}: ${why}`,
    ...paths[state],
    event,
  }));
}

const anyEvent = (attempt: number) => [
  started(attempt),
  succeeded(attempt),
  failed(attempt),
  retryDue(attempt),
];

const refusedRows: RefusedRow<M>[] = [
  ...refused('pending', [started(2)], 'attempts are numbered in order'),
  ...refused('pending', [succeeded(1), failed(1)], 'no attempt is in progress'),
  ...refused('pending', [retryDue(1)], 'no retry is scheduled'),
  ...refused('delivering', [started(1)], 'a duplicate start'),
  ...refused('delivering', [started(3)], 'attempts are numbered in order'),
  ...refused('delivering', [succeeded(2), failed(2)], 'not the attempt in progress'),
  ...refused('delivering', [retryDue(2)], 'no retry is scheduled'),
  ...refused(
    'delivering (re-claimed as attempt 2)',
    [succeeded(1), failed(1)],
    'the dead worker’s stale report',
  ),
  ...refused('delivering (last attempt)', [started(7)], 'no attempt is left to start'),
  ...refused('retry_scheduled (after attempt 1)', [retryDue(1), retryDue(3)], 'not the scheduled attempt'),
  ...refused('retry_scheduled (after attempt 1)', [started(2)], 'the retry waits for its timer'),
  ...refused('retry_scheduled (after attempt 1)', [failed(1), succeeded(1)], 'a duplicate report'),
  ...refused('pending (attempt 2 due)', [retryDue(2)], 'a duplicate timer firing'),
  ...refused('pending (attempt 2 due)', [started(1), failed(1)], 'a stale attempt'),
  ...refused('delivered', [...anyEvent(1), ...anyEvent(2)], 'the delivery is over'),
  ...refused('failed', [...anyEvent(1), ...anyEvent(2)], 'the delivery is over'),
];

/** Drives a delivery through failing attempts, each retry firing exactly when due; returns the waits. */
function failUntilDone(deliveryInput: WebhookDeliveryInput): { waits: number[]; snapshot: Snapshot<M> } {
  let [snapshot] = create(webhookDeliveryMachine, deliveryInput);
  let at = deliveryInput.at;
  const waits: number[] = [];
  for (let attempt = 1; snapshot.value !== 'failed'; attempt += 1) {
    if (attempt > 100) throw new Error('the delivery never fails');
    if (attempt > 1) {
      [snapshot] = send(webhookDeliveryMachine, snapshot, retryDue(attempt, at));
    }
    [snapshot] = send(webhookDeliveryMachine, snapshot, started(attempt, at));
    let actions: ActionView[];
    [snapshot, actions] = send(webhookDeliveryMachine, snapshot, failed(attempt, at));
    const timer = actions.find((action) => action.type === 'scheduleTimer');
    if (timer !== undefined) {
      const { dueAt } = timer.params as { dueAt: string };
      waits.push(Date.parse(dueAt) - Date.parse(at));
      at = dueAt;
    }
  }
  return { waits, snapshot };
}

describe('webhook-delivery machine', () => {
  specTable(webhookDeliveryMachine, 'webhook-delivery', {
    initial: initialRows,
    transitions: transitionRows,
    refused: refusedRows,
  });

  describe('backoff arithmetic (docs/api.md "Webhooks")', () => {
    it('with the defaults: six attempts, waits 1s, 30s, 5m, 1h, 6h, then failed', () => {
      const { waits, snapshot } = failUntilDone(input);
      expect(waits).toEqual([1_000, 30_000, 300_000, 3_600_000, 21_600_000]);
      expect(snapshot.context.attempts).toBe(6);
      // The sixth attempt starts 7h 5m 31s after the first; the 24h entry is never used.
      expect(waits.reduce((sum, wait) => sum + wait, 0)).toBe(
        1_000 + 30_000 + 300_000 + 3_600_000 + 21_600_000,
      );
      expect(waits.reduce((sum, wait) => sum + wait, 0)).toBe(((7 * 60 + 5) * 60 + 31) * 1_000);
    });

    it('with more attempts allowed, the 24h entry is used and then repeats', () => {
      const { waits, snapshot } = failUntilDone({ ...input, maxAttempts: 8 });
      expect(waits).toEqual([1_000, 30_000, 300_000, 3_600_000, 21_600_000, 86_400_000, 86_400_000]);
      expect(snapshot.context.attempts).toBe(8);
    });

    it('a shorter list repeats its last entry', () => {
      const { waits } = failUntilDone({ ...input, maxAttempts: 4, backoffMs: [5, 50] });
      expect(waits).toEqual([5, 50, 50]);
    });

    it('backoffAfter(n) is the n-th entry, the last one repeating', () => {
      expect(backoffAfter(1, DEFAULT_BACKOFF_MS)).toBe(1_000);
      expect(backoffAfter(5, DEFAULT_BACKOFF_MS)).toBe(21_600_000);
      expect(backoffAfter(6, DEFAULT_BACKOFF_MS)).toBe(86_400_000);
      expect(backoffAfter(9, DEFAULT_BACKOFF_MS)).toBe(86_400_000);
    });
  });

  it('continues identically after a persistence round trip', () => {
    const waiting = reach(webhookDeliveryMachine, input, [started(1), failed(1)]);
    const restored = roundTrip(webhookDeliveryMachine, waiting);
    expect(restored.value).toBe('retry_scheduled');
    expect(restored.can(retryDue(1))).toBe(false);

    const [direct, directActions] = send(webhookDeliveryMachine, waiting, retryDue(2));
    const [resumed, resumedActions] = send(webhookDeliveryMachine, restored, retryDue(2));
    expect(resumed.value).toBe('pending');
    expect(resumed.context).toEqual(direct.context);
    expect(resumedActions).toEqual([deliverJob(2)]);
    expect(resumedActions).toEqual(directActions);
  });

  it('projects the row columns, with the API status alongside the machine status', () => {
    const waiting = reach(webhookDeliveryMachine, input, [started(1), failed(1)]);
    expect(projectWebhookDelivery(waiting)).toEqual({
      status: 'retry_scheduled',
      apiStatus: 'pending',
      attempts: 1,
      lastAttemptAt: T1,
      nextAttemptAt: '2025-03-01T10:00:01.900Z',
      responseStatus: 503,
      lastError: 'Service Unavailable',
    });
    expect(
      projectWebhookDelivery(reach(webhookDeliveryMachine, input, [started(1), succeeded(1)])),
    ).toMatchObject({
      status: 'delivered',
      apiStatus: 'delivered',
    });
    expect(
      projectWebhookDelivery(reach(webhookDeliveryMachine, single, [started(1), failed(1)])),
    ).toMatchObject({
      status: 'failed',
      apiStatus: 'failed',
    });
  });
});

describe('webhook-delivery schemas', () => {
  it('accept the input and every event used above', () => {
    expect(webhookDeliveryInputSchema.parse(input)).toEqual(input);
    for (const event of [started(1), succeeded(1), failed(1), retryDue(2)]) {
      expect(webhookDeliveryEventSchema.parse(event)).toEqual(event);
    }
  });

  it.each([
    ['a delivery id without the whd_ prefix', { ...input, deliveryId: 'abc' }],
    ['zero max attempts', { ...input, maxAttempts: 0 }],
    ['an empty backoff list', { ...input, backoffMs: [] }],
    ['a negative backoff', { ...input, backoffMs: [-1] }],
    ['an empty event type', { ...input, event: '' }],
  ])('reject an input with %s', (_why, bad) => {
    expect(webhookDeliveryInputSchema.safeParse(bad).success).toBe(false);
  });

  it.each([
    ['a 3xx reported as success (redirects are failures)', { ...succeeded(1), status: 301 }],
    ['a 500 reported as success', { ...succeeded(1), status: 500 }],
    ['attempt 0', started(0)],
    ['a status out of range', { ...failed(1), status: 42 }],
    ['a retry without attempt', { type: 'RETRY_DUE', at: T3 }],
  ])('reject an event with %s', (_why, event) => {
    expect(webhookDeliveryEventSchema.safeParse(event).success).toBe(false);
  });
});
