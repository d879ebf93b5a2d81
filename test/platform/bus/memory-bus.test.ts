import { afterAll, describe, expect, it } from 'vitest';
import type { Bus } from '../../../src/platform/bus/bus.js';
import { createMemoryBroker } from '../../../src/platform/bus/memory-broker.js';
import { createMemoryBus } from '../../../src/platform/bus/memory-bus.js';
import { runEventSubject } from '../../../src/platform/bus/subjects.js';
import { retainedBytes } from '../../helpers/heap.js';
import { createCollector } from '../../helpers/wait.js';
import { busContract } from './bus-contract.js';

const broker = createMemoryBroker();
afterAll(() => broker.dispose());

busContract('memory bus', async ({ prefix, redeliveryBackoffMs }) =>
  createMemoryBus({ prefix, broker, redeliveryBackoffMs }),
);

describe('memory bus: in-process limits', () => {
  const subjectOf = (n: number): string => runEventSubject('org_1', n, 'completed');

  /** A broker on a clock the test moves by hand. */
  const manualClock = () => {
    let now = 1_000_000;
    return {
      now: () => now,
      advance: (ms: number) => {
        now += ms;
      },
    };
  };

  it('forgets a msgId once the duplicate window has passed', async () => {
    const clock = manualClock();
    const bus = createMemoryBus({ broker: createMemoryBroker({ now: clock.now }), duplicateWindowMs: 1_000 });
    try {
      const first = await bus.publish(subjectOf(1), {}, { msgId: 'x' });
      clock.advance(999);
      expect(await bus.publish(subjectOf(1), {}, { msgId: 'x' })).toEqual({
        seq: first.seq,
        duplicate: true,
      });
      clock.advance(1);
      expect(await bus.publish(subjectOf(1), {}, { msgId: 'x' })).toEqual({
        seq: first.seq + 1,
        duplicate: false,
      });
    } finally {
      await bus.close();
    }
  });

  it('keeps each msgId for exactly the window while ids expire continuously', async () => {
    const clock = manualClock();
    const bus = createMemoryBus({ broker: createMemoryBroker({ now: clock.now }), duplicateWindowMs: 100 });
    try {
      const seqs = new Map<string, number>();
      for (let i = 0; i < 1_000; i++) {
        seqs.set(`m${i}`, (await bus.publish(subjectOf(1), {}, { msgId: `m${i}` })).seq);
        if (i % 10 === 0 && i >= 100) {
          // Published 99 ms ago: still a duplicate. 100 ms ago: forgotten, so stored anew.
          const recent = `m${i - 99}`;
          expect(await bus.publish(subjectOf(1), {}, { msgId: recent })).toEqual({
            seq: seqs.get(recent),
            duplicate: true,
          });
          const expired = await bus.publish(subjectOf(1), {}, { msgId: `m${i - 100}` });
          expect(expired.duplicate).toBe(false);
        }
        clock.advance(1);
      }
    } finally {
      await bus.close();
    }
  });

  it('keeps ids and subjects cut from a larger text (as the relay does) without the text', async () => {
    const bus = createMemoryBus({ broker: createMemoryBroker() });
    try {
      const ids: string[] = [];
      const publishes: Array<Promise<unknown>> = [];
      const retained = retainedBytes(() => {
        for (let i = 0; i < 100; i++) {
          // One batch row's text: 200 kB, with the subject and the id of one message in it.
          const subject = subjectOf(i);
          const id = `${String(i).padStart(8, '0')}-2345-6789-abcd-ef0123456789`;
          const text = `${'x'.repeat(200_000)}\n${subject}\t${id}\t{}`;
          const tab = text.indexOf('\t');
          ids.push(id);
          publishes.push(
            bus.publish(
              text.slice(text.indexOf('\n') + 1, tab),
              {},
              { msgId: text.slice(tab + 1, tab + 37) },
            ),
          );
        }
        return publishes;
      });
      await Promise.all(publishes);
      // 100 texts of 200 kB would be 20 MB; the stream still holds every message and id.
      expect(retained).toBeLessThan(2_000_000);
      expect(await bus.publish(subjectOf(7), {}, { msgId: ids[7] as string })).toMatchObject({
        duplicate: true,
      });
    } finally {
      await bus.close();
    }
  });

  it('keeps at most streamMaxMessages for consumers not attached yet, dropping the oldest', async () => {
    const bus = createMemoryBus({ streamMaxMessages: 3 });
    try {
      for (const n of [1, 2, 3, 4, 5]) await bus.publish(subjectOf(n), { n });
      const got = createCollector<number>();
      await bus.consume('late', 'evt.>', async (m) => got.push(m.json<{ n: number }>().n));
      await got.untilCount(3, 'the retained messages');
      await bus.publish(subjectOf(6), { n: 6 });
      await got.untilCount(4, 'the next message');
      expect(got.items).toEqual([3, 4, 5, 6]);
    } finally {
      await bus.close();
    }
  });

  it('drops messages older than streamMaxAgeMs', async () => {
    const clock = manualClock();
    const bus = createMemoryBus({ broker: createMemoryBroker({ now: clock.now }), streamMaxAgeMs: 60_000 });
    try {
      await bus.publish(subjectOf(1), { n: 1 });
      clock.advance(30_000);
      await bus.publish(subjectOf(2), { n: 2 });
      clock.advance(30_000);
      const got = createCollector<number>();
      await bus.consume('late', 'evt.>', async (m) => got.push(m.json<{ n: number }>().n));
      await bus.publish(subjectOf(3), { n: 3 });
      await got.untilCount(2, 'the young messages');
      expect(got.items).toEqual([2, 3]);
    } finally {
      await bus.close();
    }
  });

  it('shares load round-robin between consumers of one name', async () => {
    const bus = createMemoryBus();
    try {
      const got = createCollector<string>();
      await bus.consume('rr', 'evt.>', async () => got.push('a'));
      await bus.consume('rr', 'evt.>', async () => got.push('b'));
      for (const n of [1, 2, 3, 4]) await bus.publish(subjectOf(n), { n });
      await got.untilCount(4, 'four deliveries');
      expect([...got.items].sort()).toEqual(['a', 'a', 'b', 'b']);
    } finally {
      await bus.close();
    }
  });

  it('without a shared broker, buses are separate (a single process needs only one)', async () => {
    const buses: Bus[] = [createMemoryBus(), createMemoryBus()];
    const [a, b] = buses as [Bus, Bus];
    try {
      const onB = createCollector<string>();
      await b.subscribe('>', (m) => onB.push(m.subject));
      await a.publish(subjectOf(1), {});
      a.signal('sig.jobs.enqueued');
      await b.publish(subjectOf(2), {});
      await onB.untilCount(1, 'the own message');
      expect(onB.items).toEqual([subjectOf(2)]);
    } finally {
      await Promise.all(buses.map((bus) => bus.close()));
    }
  });
});

describe('memory bus: a publish is done once its consumers handled it', () => {
  it('waits for the consumer’s handler (the stream is memory: the relay must not delete the row before)', async () => {
    const bus = createMemoryBus();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const seen = createCollector<string>();
    const consumer = await bus.consume('durable-settle', 'evt.>', async (msg) => {
      seen.push(msg.subject);
      await held;
    });
    let done = false;
    const published = bus.publish(runEventSubject('1', 1, 'started'), { n: 1 }).then(() => {
      done = true;
    });
    await seen.untilCount(1, 'the handler to start');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(done).toBe(false);
    release();
    await published;
    expect(done).toBe(true);
    await consumer.stop();
    await bus.close();
  });

  it('does not wait when no consumer takes the subject, nor once the last worker detached', async () => {
    const bus = createMemoryBus();
    await bus.publish(runEventSubject('1', 2, 'started'), { n: 1 });
    const consumer = await bus.consume('durable-never', 'evt.>', () => new Promise<void>(() => undefined));
    const published = bus.publish(runEventSubject('1', 3, 'started'), { n: 2 });
    const stopping = consumer.stop();
    await published;
    void stopping;
    await bus.close();
  });
});
