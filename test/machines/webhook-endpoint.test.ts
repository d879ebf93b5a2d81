import { describe, expect, it } from 'vitest';
import {
  type WebhookEndpointEvent,
  type WebhookEndpointInput,
  webhookEndpointEventSchema,
  webhookEndpointInputSchema,
} from '../../machines/webhook-endpoint/events.js';
import {
  DISABLE_AFTER_CONSECUTIVE_FAILURES,
  projectWebhookEndpoint,
  webhookEndpointMachine,
} from '../../machines/webhook-endpoint/machine.js';
import {
  type InitialRow,
  type RefusedRow,
  reach,
  roundTrip,
  send,
  specTable,
  type TransitionRow,
} from './helpers.js';

type M = typeof webhookEndpointMachine;

const T0 = '2025-03-01T10:00:00.000Z';
const T1 = '2025-03-02T10:00:00.000Z';
const T2 = '2025-03-03T10:00:00.000Z';

const active: WebhookEndpointInput = { webhookId: 5, active: true, at: T0 };
const inactive: WebhookEndpointInput = { webhookId: 5, active: false, at: T0 };

const deliveryFailed = (n: number, at = T1): WebhookEndpointEvent => ({
  type: 'DELIVERY_FAILED',
  deliveryId: `whd_${n}`,
  at,
});
const deliverySucceeded: WebhookEndpointEvent = { type: 'DELIVERY_SUCCEEDED', deliveryId: 'whd_ok', at: T1 };
const enable: WebhookEndpointEvent = { type: 'ENABLE', at: T2 };
const disable: WebhookEndpointEvent = { type: 'DISABLE', at: T2 };

const failures = (count: number): WebhookEndpointEvent[] =>
  Array.from({ length: count }, (_, i) => deliveryFailed(i + 1));

const initialRows: InitialRow<M>[] = [
  {
    name: 'an active webhook starts enabled',
    input: active,
    to: 'enabled',
    actions: [],
    context: { consecutiveFailures: 0, disabledAt: null, disabledReason: null },
  },
  {
    name: 'a webhook registered inactive starts disabled by hand',
    input: inactive,
    to: 'disabled',
    actions: [],
    context: { consecutiveFailures: 0, disabledAt: T0, disabledReason: 'manual' },
  },
];

const transitionRows: TransitionRow<M>[] = [
  {
    name: 'enabled: a failed delivery counts',
    input: active,
    from: [],
    event: deliveryFailed(1),
    to: 'enabled',
    actions: [],
    context: { consecutiveFailures: 1 },
  },
  {
    name: 'enabled: the ninth failed delivery in a row still keeps it enabled',
    input: active,
    from: failures(8),
    event: deliveryFailed(9),
    to: 'enabled',
    actions: [],
    context: { consecutiveFailures: 9 },
  },
  {
    name: 'enabled: the tenth failed delivery in a row disables it and says so',
    input: active,
    from: failures(9),
    event: deliveryFailed(10, T2),
    to: 'disabled',
    actions: [{ type: 'notify', params: { signal: 'endpoint_disabled', webhookId: 5 } }],
    context: { consecutiveFailures: 10, disabledAt: T2, disabledReason: 'consecutive_failures' },
  },
  {
    name: 'enabled: a delivered one resets the count',
    input: active,
    from: failures(3),
    event: deliverySucceeded,
    to: 'enabled',
    actions: [],
    context: { consecutiveFailures: 0 },
  },
  {
    name: 'enabled: disabling by hand',
    input: active,
    from: failures(2),
    event: disable,
    to: 'disabled',
    actions: [],
    context: { consecutiveFailures: 2, disabledAt: T2, disabledReason: 'manual' },
  },
  {
    name: 'disabled after failures: re-enabling clears the count',
    input: active,
    from: failures(10),
    event: enable,
    to: 'enabled',
    actions: [],
    context: { consecutiveFailures: 0, disabledAt: null, disabledReason: null },
  },
  {
    name: 'disabled by hand: re-enabling',
    input: active,
    from: [disable],
    event: enable,
    to: 'enabled',
    actions: [],
    context: { consecutiveFailures: 0, disabledAt: null, disabledReason: null },
  },
  {
    name: 'registered inactive: enabling',
    input: inactive,
    from: [],
    event: enable,
    to: 'enabled',
    actions: [],
  },
];

const paths = {
  'enabled (no failures)': { input: active, from: [] },
  'enabled (count reset)': { input: active, from: [...failures(2), deliverySucceeded] },
  'enabled (re-enabled)': { input: active, from: [...failures(10), enable] },
  'disabled (failures)': { input: active, from: failures(10) },
  'disabled (by hand)': { input: active, from: [disable] },
  'disabled (registered inactive)': { input: inactive, from: [] },
} satisfies Record<string, { input: WebhookEndpointInput; from: WebhookEndpointEvent[] }>;

function refused(state: keyof typeof paths, events: WebhookEndpointEvent[], why: string): RefusedRow<M>[] {
  return events.map((event) => ({ name: `${event.type} in ${state}: ${why}`, ...paths[state], event }));
}

const refusedRows: RefusedRow<M>[] = [
  ...refused('enabled (no failures)', [deliverySucceeded], 'nothing to reset, so nothing to write'),
  ...refused('enabled (count reset)', [deliverySucceeded], 'nothing to reset, so nothing to write'),
  ...refused('enabled (re-enabled)', [deliverySucceeded], 'nothing to reset, so nothing to write'),
  ...refused('enabled (no failures)', [enable], 'already enabled'),
  ...refused('disabled (failures)', [deliveryFailed(11), deliverySucceeded, disable], 'disabled'),
  ...refused('disabled (by hand)', [deliveryFailed(1), deliverySucceeded, disable], 'disabled'),
  ...refused('disabled (registered inactive)', [deliveryFailed(1), deliverySucceeded, disable], 'disabled'),
];

describe('webhook-endpoint machine', () => {
  specTable(webhookEndpointMachine, 'webhook-endpoint', {
    initial: initialRows,
    transitions: transitionRows,
    refused: refusedRows,
  });

  it('disables after 10 consecutive failures (spec)', () => {
    expect(DISABLE_AFTER_CONSECUTIVE_FAILURES).toBe(10);
  });

  it('counts only consecutive failures: a delivered one in between starts over', () => {
    const snapshot = reach(webhookEndpointMachine, active, [
      ...failures(9),
      deliverySucceeded,
      ...failures(9),
    ]);
    expect(snapshot.value).toBe('enabled');
    expect(snapshot.context.consecutiveFailures).toBe(9);
    const [disabled] = send(webhookEndpointMachine, snapshot, deliveryFailed(99));
    expect(disabled.value).toBe('disabled');
  });

  it('continues identically after a persistence round trip', () => {
    const failing = reach(webhookEndpointMachine, active, failures(9));
    const restored = roundTrip(webhookEndpointMachine, failing);
    expect(restored.context).toEqual(failing.context);
    const [direct, directActions] = send(webhookEndpointMachine, failing, deliveryFailed(10));
    const [resumed, resumedActions] = send(webhookEndpointMachine, restored, deliveryFailed(10));
    expect(resumed.value).toBe('disabled');
    expect(resumed.context).toEqual(direct.context);
    expect(resumedActions).toEqual(directActions);
  });

  it('projects the row columns, with active derived from the status', () => {
    expect(projectWebhookEndpoint(reach(webhookEndpointMachine, active, failures(2)))).toEqual({
      status: 'enabled',
      active: true,
      consecutiveFailures: 2,
      disabledAt: null,
      disabledReason: null,
    });
    expect(projectWebhookEndpoint(reach(webhookEndpointMachine, active, failures(10)))).toEqual({
      status: 'disabled',
      active: false,
      consecutiveFailures: 10,
      disabledAt: T1,
      disabledReason: 'consecutive_failures',
    });
  });
});

describe('webhook-endpoint schemas', () => {
  it('accept the input and every event used above', () => {
    expect(webhookEndpointInputSchema.parse(active)).toEqual(active);
    for (const event of [deliveryFailed(1), deliverySucceeded, enable, disable]) {
      expect(webhookEndpointEventSchema.parse(event)).toEqual(event);
    }
  });

  it.each([
    ['a missing active flag', { webhookId: 5, at: T0 }],
    ['a webhook id of 0', { ...active, webhookId: 0 }],
  ])('reject an input with %s', (_why, input) => {
    expect(webhookEndpointInputSchema.safeParse(input).success).toBe(false);
  });

  it.each([
    ['a failure without a delivery id', { type: 'DELIVERY_FAILED', at: T1 }],
    ['a malformed delivery id', { type: 'DELIVERY_SUCCEEDED', deliveryId: 'x', at: T1 }],
    ['an enable with a reason field', { ...enable, reason: 'ops' }],
  ])('reject an event with %s', (_why, event) => {
    expect(webhookEndpointEventSchema.safeParse(event).success).toBe(false);
  });
});
