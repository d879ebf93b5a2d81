import { describe, expect, it } from 'vitest';
import type { BusMessage } from '../../../../src/platform/bus/bus.js';
import { objectEventSubject, runEventSubject } from '../../../../src/platform/bus/subjects.js';
import { createCollector } from '../../../helpers/wait.js';
import { type ContractHarness, type N, subjectOf } from './harness.js';

/** Contract: `subscribe` fan-out, wildcards, unsubscribe, failing subscribers. */
export function liveSubscriptionCases(h: ContractHarness): void {
  const { newPrefix, open } = h;

  describe('live subscriptions', () => {
    it('fans a publish out to every subscriber, in this and other bus instances', async () => {
      const prefix = newPrefix();
      const a = await open(prefix);
      const b = await open(prefix);
      const onA1 = createCollector<BusMessage>();
      const onA2 = createCollector<BusMessage>();
      const onB = createCollector<BusMessage>();
      await a.subscribe('evt.>', (m) => onA1.push(m));
      await a.subscribe('evt.org_1.>', (m) => onA2.push(m));
      await b.subscribe('evt.org_1.run.*.completed', (m) => onB.push(m));

      const subject = runEventSubject('org_1', 42, 'completed');
      const result = await a.publish(subject, { runId: 42, status: 'completed' }, { msgId: 'outbox-1' });

      expect(result).toEqual({ seq: 1, duplicate: false });
      for (const [label, collector] of [
        ['a, first subscriber', onA1],
        ['a, second subscriber', onA2],
        ['b', onB],
      ] as const) {
        const [msg] = await collector.untilCount(1, `delivery to ${label}`);
        expect(msg?.subject).toBe(subject);
        expect(msg?.json()).toEqual({ runId: 42, status: 'completed' });
        expect(msg?.msgId).toBe('outbox-1');
        expect(msg?.deliveryCount).toBeUndefined();
        expect(new TextDecoder().decode(msg?.data)).toBe('{"runId":42,"status":"completed"}');
      }
    });

    it('matches `*` as one token and `>` as one or more, as NATS does', async () => {
      const prefix = newPrefix();
      const publisher = await open(prefix);
      const listener = await open(prefix);
      const patterns = ['evt.org_1.run.*.completed', 'evt.org_1.>', 'evt.*.run.*.*', 'evt.org_1.run.>'];
      const seen = patterns.map(() => createCollector<string>());
      for (const [i, pattern] of patterns.entries()) {
        await listener.subscribe(pattern, (m) => seen[i]?.push(m.subject));
      }

      const last = runEventSubject('org_1', 2, 'completed');
      for (const subject of [
        runEventSubject('org_1', 1, 'completed'),
        runEventSubject('org_1', 1, 'failed'),
        runEventSubject('org_2', 1, 'completed'),
        objectEventSubject('org_1', 9, 'created'),
        last,
      ]) {
        await publisher.publish(subject, {});
      }

      const results = await Promise.all(
        seen.map((c, i) => c.until((items) => items.includes(last), `the last message on ${patterns[i]}`)),
      );
      expect(results).toEqual([
        ['evt.org_1.run.1.completed', last],
        ['evt.org_1.run.1.completed', 'evt.org_1.run.1.failed', 'evt.org_1.object.9.created', last],
        ['evt.org_1.run.1.completed', 'evt.org_1.run.1.failed', 'evt.org_2.run.1.completed', last],
        ['evt.org_1.run.1.completed', 'evt.org_1.run.1.failed', last],
      ]);
    });

    it('announces an event to live subscribers under its evt subject, with its msgId, and stores nothing', async () => {
      const prefix = newPrefix();
      const a = await open(prefix);
      const b = await open(prefix);
      const everything = createCollector<BusMessage>();
      const ofRun = createCollector<BusMessage>();
      const signals = createCollector<string>();
      const consumed = createCollector<number>();
      await a.subscribe('>', (m) => everything.push(m));
      await b.subscribe('evt.org_1.run.42.*', (m) => ofRun.push(m));
      await b.subscribe('sig.>', (m) => signals.push(m.subject));
      const consumer = await b.consume('stored', 'evt.>', async (m) => consumed.push(m.json<N>().n));

      const subject = runEventSubject('org_1', 42, 'completed');
      await a.announce(subject, { n: 1 }, { msgId: 'outbox-7' });
      for (const collector of [everything, ofRun]) {
        const [msg] = await collector.untilCount(1, 'the announced event');
        expect(msg?.subject).toBe(subject);
        expect(msg?.json()).toEqual({ n: 1 });
        expect(msg?.msgId).toBe('outbox-7');
      }
      // Stored publishes still reach the consumer; the announcement never did, and took no sequence.
      expect(await a.publish(subjectOf(2), { n: 2 })).toEqual({ seq: 1, duplicate: false });
      await consumed.untilCount(1, 'the stored event consumed');
      expect(consumed.items).toEqual([2]);
      expect(signals.items).toEqual([]);
      await consumer.stop();
      await expect(a.announce('sig.x', {})).rejects.toThrow(/must start with "evt\."/);
    });

    it('stops delivering to a subscription after unsubscribe', async () => {
      const bus = await open(newPrefix());
      const gone = createCollector<number>();
      const stays = createCollector<number>();
      const sub = await bus.subscribe('evt.>', (m) => gone.push(m.json<N>().n));
      await bus.subscribe('evt.>', (m) => stays.push(m.json<N>().n));

      await bus.publish(subjectOf(1), { n: 1 });
      await gone.untilCount(1, 'the first message before unsubscribe');
      sub.unsubscribe();
      sub.unsubscribe();
      await bus.publish(subjectOf(2), { n: 2 });
      await stays.untilCount(2, 'the second message on the remaining subscription');

      expect(gone.items).toEqual([1]);
      expect(stays.items).toEqual([1, 2]);
    });

    it('keeps delivering when a subscriber throws or rejects', async () => {
      const bus = await open(newPrefix());
      const calls = createCollector<number>();
      const healthy = createCollector<number>();
      await bus.subscribe('evt.>', (m) => {
        calls.push(m.json<N>().n);
        throw new Error('subscriber bug');
      });
      await bus.subscribe('evt.>', async (m) => {
        calls.push(m.json<N>().n);
        throw new Error('async subscriber bug');
      });
      await bus.subscribe('evt.>', (m) => healthy.push(m.json<N>().n));

      await bus.publish(subjectOf(1), { n: 1 });
      await bus.publish(subjectOf(2), { n: 2 });
      await healthy.untilCount(2, 'both messages on the healthy subscriber');
      await calls.untilCount(4, 'both messages on both failing subscribers');
      expect(healthy.items).toEqual([1, 2]);
    });
  });
}
