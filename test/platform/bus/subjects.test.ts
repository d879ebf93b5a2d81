import { describe, expect, it } from 'vitest';
import { BUS_DEFAULTS, redeliveryDelayMs } from '../../../src/platform/bus/bus.js';
import { createBusMessage, encodePayload } from '../../../src/platform/bus/message.js';
import { createNamespace } from '../../../src/platform/bus/namespace.js';
import {
  InvalidSubjectError,
  objectEventSubject,
  orgEventsPattern,
  parseEventSubject,
  reviewEventSubject,
  runEventSubject,
  runEventsPattern,
  signalSubject,
  subjectMatches,
  subjectToken,
} from '../../../src/platform/bus/subjects.js';

describe('subject builders', () => {
  it('build `evt.<org>.<kind>.<id>.<name>` subjects and patterns', () => {
    expect(runEventSubject('org_1', 42, 'completed')).toBe('evt.org_1.run.42.completed');
    expect(objectEventSubject('org_1', 'obj-9', 'created')).toBe('evt.org_1.object.obj-9.created');
    expect(reviewEventSubject('org_1', 7, 'approved')).toBe('evt.org_1.review.7.approved');
    expect(runEventsPattern('org_1', 42)).toBe('evt.org_1.run.42.*');
    expect(orgEventsPattern('org_1')).toBe('evt.org_1.>');
    expect(signalSubject('jobs', 'enqueued')).toBe('sig.jobs.enqueued');
  });

  it.each([
    ['a dot', 'org.1'],
    ['a space', 'org 1'],
    ['a `*`', '*'],
    ['a `>`', '>'],
    ['nothing', ''],
    ['a non-ASCII letter', 'orgé'],
    ['129 characters', 'x'.repeat(129)],
  ])('refuse a token with %s rather than rewrite it', (_, token) => {
    expect(() => runEventSubject(token, 1, 'completed')).toThrow(InvalidSubjectError);
    expect(() => runEventSubject('org_1', token, 'completed')).toThrow(InvalidSubjectError);
    expect(() => objectEventSubject('org_1', 1, token)).toThrow(InvalidSubjectError);
    expect(() => signalSubject(token)).toThrow(InvalidSubjectError);
  });

  it('name the offending value in the error', () => {
    expect(() => subjectToken('a.b', 'org id')).toThrow('org id "a.b" is not a valid subject token');
    expect(() => signalSubject()).toThrow(InvalidSubjectError);
  });

  it('parse an event subject into its parts and webhook event type', () => {
    expect(parseEventSubject('evt.org_1.run.42.step_completed')).toEqual({
      orgId: 'org_1',
      kind: 'run',
      id: '42',
      name: 'step_completed',
      type: 'run.step_completed',
    });
    expect(parseEventSubject('evt.org_1.object.9.created')?.type).toBe('object.created');
    for (const other of [
      'sig.jobs.enqueued',
      'evt.org_1.run.42',
      'evt.org_1.job.1.done',
      'evt.org_1.run.*.x',
    ]) {
      expect(parseEventSubject(other), other).toBeUndefined();
    }
  });
});

describe('subjectMatches', () => {
  it.each([
    ['evt.org_1.run.42.completed', 'evt.org_1.run.42.completed', true],
    ['evt.org_1.run.42.completed', 'evt.org_1.run.42.failed', false],
    ['evt.org_1.run.*.completed', 'evt.org_1.run.42.completed', true],
    ['evt.org_1.run.*.completed', 'evt.org_1.run.42.x.completed', false],
    ['evt.*', 'evt', false],
    ['evt.*', 'evt.a', true],
    ['evt.*', 'evt.a.b', false],
    ['evt.>', 'evt', false],
    ['evt.>', 'evt.a', true],
    ['evt.>', 'evt.a.b.c', true],
    ['>', 'evt.a', true],
    ['*.a.>', 'x.a.b', true],
    ['*.a.>', 'x.a', false],
    ['evt.org_1.>', 'evt.org_10.run.1.completed', false],
    ['evt.a', 'evt.a.b', false],
    ['evt.a.b', 'evt.a', false],
    ['evt.a', 'evt.ab', false],
    ['evt.ab', 'evt.a', false],
    ['evt.ab.c', 'evt.a.bc', false],
    ['evt.*.b', 'evt.a', false],
    ['*', 'evt', true],
    ['*', 'evt.a', false],
  ])('%s matches %s: %s', (pattern, subject, expected) => {
    expect(subjectMatches(pattern, subject)).toBe(expected);
  });
});

describe('namespace', () => {
  it('names the stream, its subjects and durable consumers from the prefix', () => {
    const ns = createNamespace();
    expect(ns.prefix).toBe(BUS_DEFAULTS.prefix);
    expect(ns.streamName).toBe('R3_EVENTS');
    expect(ns.streamSubject).toBe('r3.evt.>');
    expect(ns.durableName('webhook-dispatcher')).toBe('r3_webhook-dispatcher');
    expect(createNamespace('t_bus-1').streamName).toBe('T_BUS-1_EVENTS');
  });

  it('maps relative subjects to the wire and back, checking the root of each kind', () => {
    const ns = createNamespace('stage');
    expect(ns.eventSubject('evt.org_1.run.1.completed')).toBe('stage.evt.org_1.run.1.completed');
    expect(ns.signalSubject('sig.jobs.enqueued')).toBe('stage.sig.jobs.enqueued');
    expect(ns.subscribePattern('>')).toBe('stage.>');
    expect(ns.consumerFilter('evt.*.run.>')).toBe('stage.evt.*.run.>');
    expect(ns.relative('stage.evt.org_1.run.1.completed')).toBe('evt.org_1.run.1.completed');
    expect(() => ns.eventSubject('sig.jobs.enqueued')).toThrow(InvalidSubjectError);
    expect(() => ns.signalSubject('evt.org_1.run.1.completed')).toThrow(InvalidSubjectError);
    expect(() => ns.consumerFilter('>')).toThrow(InvalidSubjectError);
    expect(() => ns.subscribePattern('evt.>.x')).toThrow(InvalidSubjectError);
    expect(() => ns.durableName('a.b')).toThrow(InvalidSubjectError);
  });

  it.each(['R3', 'r3.staging', 'r3 x', '', '_r3', 'x'.repeat(65), 'r3*'])(
    'refuses the prefix %j (one lower-case token keeps stream names and namespaces apart)',
    (prefix) => {
      expect(() => createNamespace(prefix)).toThrow(InvalidSubjectError);
    },
  );
});

describe('messages and redelivery backoff', () => {
  it('encode JSON, parse once, and read an empty payload as undefined', () => {
    const data = encodePayload({ a: [1, 'x'] });
    const msg = createBusMessage({ subject: 'evt.x', data });
    const parsed = msg.json<{ a: unknown[] }>();
    expect(parsed).toEqual({ a: [1, 'x'] });
    expect(msg.json()).toBe(parsed);
    expect(createBusMessage({ subject: 'sig.x', data: encodePayload(undefined) }).json()).toBeUndefined();
    expect('msgId' in createBusMessage({ subject: 'sig.x', data })).toBe(false);
  });

  it('waits entry n-1 after failed delivery n, repeating the last entry', () => {
    const backoff = [10, 20, 30];
    expect([1, 2, 3, 4, 10].map((n) => redeliveryDelayMs(n, backoff))).toEqual([10, 20, 30, 30, 30]);
    expect(redeliveryDelayMs(1, [])).toBe(0);
  });
});
