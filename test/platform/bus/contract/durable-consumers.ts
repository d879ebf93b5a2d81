import { describe, expect, it } from 'vitest';
import { type BusMessage, ConsumerPatternConflictError } from '../../../../src/platform/bus/bus.js';
import {
  InvalidSubjectError,
  objectEventSubject,
  runEventSubject,
} from '../../../../src/platform/bus/subjects.js';
import { createCollector, deferred } from '../../../helpers/wait.js';
import { BACKOFF_MS, type ContractHarness, type N, subjectOf } from './harness.js';

/** Contract: `consume`: retention, filtering, load-balancing, redelivery, restart, concurrency. */
export function durableConsumerCases(h: ContractHarness): void {
  const { newPrefix, open } = h;

  describe('durable consumers', () => {
    it('keeps messages published before a consumer attaches and delivers them in order', async () => {
      const prefix = newPrefix();
      const relay = await open(prefix);
      for (const n of [1, 2, 3]) await relay.publish(subjectOf(n), { n });

      const dispatcher = await open(prefix);
      const got = createCollector<BusMessage>();
      await dispatcher.consume('dispatch', 'evt.>', async (m) => got.push(m));
      await got.untilCount(3, 'the messages stored before the consumer existed');
      expect(got.items.map((m) => [m.subject, m.json<N>().n, m.deliveryCount])).toEqual([
        [subjectOf(1), 1, 1],
        [subjectOf(2), 2, 1],
        [subjectOf(3), 3, 1],
      ]);
    });

    it('delivers only messages matching the pattern', async () => {
      const bus = await open(newPrefix());
      const got = createCollector<string>();
      await bus.consume('org-2-runs', 'evt.org_2.run.>', async (m) => got.push(m.subject));
      await bus.publish(runEventSubject('org_1', 1, 'completed'), {});
      await bus.publish(objectEventSubject('org_2', 1, 'created'), {});
      await bus.publish(runEventSubject('org_2', 7, 'failed'), {});
      await got.untilCount(1, 'the matching message');
      await bus.publish(runEventSubject('org_2', 8, 'completed'), {});
      await got.untilCount(2, 'the second matching message');
      expect(got.items).toEqual([
        runEventSubject('org_2', 7, 'failed'),
        runEventSubject('org_2', 8, 'completed'),
      ]);
    });

    it('load-balances one name across bus instances: each message is handled exactly once', async () => {
      const prefix = newPrefix();
      const publisher = await open(prefix);
      const a = await open(prefix);
      const b = await open(prefix);
      const handled = createCollector<{ by: string; n: number }>();
      const started = { a: deferred(), b: deferred() };
      // Each instance holds its first message until both have one, so both must receive work.
      const bothBusy = Promise.all([started.a.promise, started.b.promise]);
      const handler = (by: 'a' | 'b') => async (m: BusMessage) => {
        started[by].resolve();
        await bothBusy;
        handled.push({ by, n: m.json<N>().n });
      };
      const consumerA = await a.consume('workers', 'evt.>', handler('a'));
      const consumerB = await b.consume('workers', 'evt.>', handler('b'));

      const count = 20;
      try {
        for (let n = 0; n < count; n++) await publisher.publish(subjectOf(n), { n });
        await handled.until(
          (items) => new Set(items.map((i) => i.n)).size === count,
          `all ${count} messages handled by a or b`,
        );
      } finally {
        // Open the gate even on failure, so closing the buses does not wait on stuck handlers.
        started.a.resolve();
        started.b.resolve();
      }
      await Promise.all([consumerA.stop(), consumerB.stop()]);

      expect(handled.items).toHaveLength(count);
      expect(new Set(handled.items.map((i) => i.by))).toEqual(new Set(['a', 'b']));
    });

    it('redelivers after a throwing handler, with backoff and an increasing delivery count', async () => {
      const bus = await open(newPrefix());
      const deliveries = createCollector<{ n: number; count: number; at: number }>();
      const consumer = await bus.consume('retry', 'evt.>', async (m) => {
        const n = m.json<N>().n;
        deliveries.push({ n, count: m.deliveryCount ?? 0, at: performance.now() });
        if (n === 1 && (m.deliveryCount ?? 0) < 3) throw new Error('transient failure');
      });

      await bus.publish(subjectOf(1), { n: 1 });
      await deliveries.untilCount(3, 'two redeliveries of the failing message');
      await bus.publish(subjectOf(2), { n: 2 });
      await deliveries.until((items) => items.some((d) => d.n === 2), 'the next message');
      await consumer.stop();

      const first = deliveries.items.filter((d) => d.n === 1);
      expect(first.map((d) => d.count)).toEqual([1, 2, 3]);
      const [d1, d2, d3] = first as [(typeof first)[0], (typeof first)[0], (typeof first)[0]];
      // Timers may fire up to a millisecond early; the waits are 40 then 80 ms.
      expect(d2.at - d1.at).toBeGreaterThanOrEqual(BACKOFF_MS[0] - 2);
      expect(d3.at - d2.at).toBeGreaterThanOrEqual(BACKOFF_MS[1] - 2);
      expect(deliveries.items.filter((d) => d.n === 2).map((d) => d.count)).toEqual([1]);
    });

    it('resumes after a restart: a new instance gets only what was not acked', async () => {
      const prefix = newPrefix();
      const publisher = await open(prefix);
      const before = await open(prefix);
      const gotBefore = createCollector<number>();
      const consumer = await before.consume('resume', 'evt.>', async (m) => {
        const n = m.json<N>().n;
        gotBefore.push(n);
        if (n === 2) throw new Error('fails until the restart');
      });
      await publisher.publish(subjectOf(1), { n: 1 });
      await publisher.publish(subjectOf(2), { n: 2 });
      await gotBefore.until(
        (items) => items.includes(1) && items.includes(2),
        'both messages before the restart',
      );
      await consumer.stop();
      await before.close();

      await publisher.publish(subjectOf(3), { n: 3 });
      const after = await open(prefix);
      const gotAfter = createCollector<{ n: number; count: number }>();
      await after.consume('resume', 'evt.>', async (m) => {
        gotAfter.push({ n: m.json<N>().n, count: m.deliveryCount ?? 0 });
      });
      await gotAfter.until(
        (items) => items.some((i) => i.n === 2) && items.some((i) => i.n === 3),
        'the unacked and the new message after the restart',
      );
      await publisher.publish(subjectOf(4), { n: 4 });
      await gotAfter.until((items) => items.some((i) => i.n === 4), 'a message published after the restart');

      expect(gotAfter.items.map((i) => i.n).sort()).toEqual([2, 3, 4]);
      expect(gotAfter.items.find((i) => i.n === 2)?.count).toBeGreaterThan(1);
    });

    it('runs up to `concurrency` handlers at once', async () => {
      const bus = await open(newPrefix());
      const started = createCollector<number>();
      const release = deferred();
      const consumer = await bus.consume(
        'parallel',
        'evt.>',
        async (m) => {
          started.push(m.json<N>().n);
          await release.promise;
        },
        { concurrency: 2 },
      );
      try {
        for (const n of [1, 2, 3]) await bus.publish(subjectOf(n), { n });
        await started.untilCount(2, 'two handlers running together');
        expect(started.items).toHaveLength(2);
      } finally {
        release.resolve();
      }
      await started.untilCount(3, 'the third handler once a slot is free');
      await consumer.stop();
    });

    it('refuses a pattern outside `evt.`, a bad name, and a new pattern for an existing name', async () => {
      const bus = await open(newPrefix());
      const noop = async (): Promise<void> => {};
      await expect(bus.consume('signals', 'sig.>', noop)).rejects.toBeInstanceOf(InvalidSubjectError);
      await expect(bus.consume('bad.name', 'evt.>', noop)).rejects.toBeInstanceOf(InvalidSubjectError);
      const consumer = await bus.consume('fixed', 'evt.org_1.>', noop);
      await consumer.stop();
      await expect(bus.consume('fixed', 'evt.org_2.>', noop)).rejects.toBeInstanceOf(
        ConsumerPatternConflictError,
      );
      const again = await bus.consume('fixed', 'evt.org_1.>', noop);
      await again.stop();
    });
  });
}
