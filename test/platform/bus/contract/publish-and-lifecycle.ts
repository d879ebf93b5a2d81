import { describe, expect, it } from 'vitest';
import { BusClosedError, type BusMessage } from '../../../../src/platform/bus/bus.js';
import { JsonPayload } from '../../../../src/platform/bus/message.js';
import { InvalidSubjectError, signalSubject } from '../../../../src/platform/bus/subjects.js';
import { createCollector, deferred, withTimeout } from '../../../helpers/wait.js';
import { type ContractHarness, type N, subjectOf } from './harness.js';

/** Contract: `publish` dedupe and validation, signals, prefix isolation, health and close. */
export function publishAndLifecycleCases(h: ContractHarness): void {
  const { newPrefix, open, openUnmanaged } = h;

  describe('publish', () => {
    it('stores a message once per msgId; the duplicate reports the original sequence', async () => {
      const bus = await open(newPrefix());
      const first = await bus.publish(subjectOf(1), { n: 1 }, { msgId: 'evt-1' });
      const again = await bus.publish(subjectOf(1), { n: 1 }, { msgId: 'evt-1' });
      const second = await bus.publish(subjectOf(2), { n: 2 }, { msgId: 'evt-2' });
      const noId1 = await bus.publish(subjectOf(3), { n: 3 });
      const noId2 = await bus.publish(subjectOf(3), { n: 3 });

      expect(again).toEqual({ seq: first.seq, duplicate: true });
      expect(second).toEqual({ seq: first.seq + 1, duplicate: false });
      expect([noId1.duplicate, noId2.duplicate, noId2.seq - noId1.seq]).toEqual([false, false, 1]);

      const consumed = createCollector<BusMessage>();
      await bus.consume('dedupe', 'evt.>', async (m) => consumed.push(m));
      await consumed.untilCount(4, 'every stored message');
      expect(consumed.items.map((m) => [m.msgId, m.json<N>().n])).toEqual([
        ['evt-1', 1],
        ['evt-2', 2],
        [undefined, 3],
        [undefined, 3],
      ]);
    });

    it('publishes JSON text given as a JsonPayload byte for byte, and as the same value', async () => {
      const bus = await open(newPrefix());
      const text = '{"n":7,"nested":{"s":"é \\"q\\""},"list":[1,2.5]}';
      await bus.publish(subjectOf(7), new JsonPayload(text), { msgId: 'raw-7' });
      await bus.publish(subjectOf(8), JSON.parse(text), { msgId: 'obj-8' });
      const consumed = createCollector<BusMessage>();
      await bus.consume('raw', 'evt.>', async (m) => consumed.push(m));
      await consumed.untilCount(2, 'both messages');
      const [raw, object] = consumed.items as [BusMessage, BusMessage];
      expect(new TextDecoder().decode(raw.data)).toBe(text);
      expect(raw.json()).toEqual(object.json());
    });

    it('refuses subjects outside `evt.` and malformed subjects', async () => {
      const bus = await open(newPrefix());
      for (const subject of [
        'sig.jobs.enqueued',
        'jobs.enqueued',
        'evt.org 1.run.1.x',
        'evt.*.run',
        'evt..x',
        'evt',
      ]) {
        await expect(bus.publish(subject, {}), subject).rejects.toBeInstanceOf(InvalidSubjectError);
      }
      await expect(bus.subscribe('evt.>.x', () => {})).rejects.toBeInstanceOf(InvalidSubjectError);
      await expect(bus.subscribe('evt. x', () => {})).rejects.toBeInstanceOf(InvalidSubjectError);
    });
  });

  describe('signals', () => {
    it('reach the subscribers of every bus instance and are never stored', async () => {
      const prefix = newPrefix();
      const a = await open(prefix);
      const b = await open(prefix);
      const onA = createCollector<BusMessage>();
      const onB = createCollector<BusMessage>();
      const stored = createCollector<string>();
      await a.subscribe('sig.>', (m) => onA.push(m));
      await b.subscribe('sig.jobs.*', (m) => onB.push(m));
      await b.consume('everything', 'evt.>', async (m) => stored.push(m.subject));

      a.signal(signalSubject('jobs', 'enqueued'), { queue: 'default' });
      a.signal('sig.jobs.idle');
      a.signal('not-a-signal.subject');

      await onB.untilCount(2, 'both signals on the other instance');
      await onA.untilCount(2, 'both signals on the sending instance');
      expect(onB.items.map((m) => [m.subject, m.json(), m.msgId])).toEqual([
        ['sig.jobs.enqueued', { queue: 'default' }, undefined],
        ['sig.jobs.idle', undefined, undefined],
      ]);
      expect(onA.items.map((m) => m.subject)).toEqual(['sig.jobs.enqueued', 'sig.jobs.idle']);

      await a.publish(subjectOf(1), { n: 1 });
      await stored.untilCount(1, 'the stored event');
      expect(stored.items).toEqual([subjectOf(1)]);
    });
  });

  describe('namespaces', () => {
    it('isolates prefixes: neither subscriptions nor consumers cross them', async () => {
      const one = await open(newPrefix());
      const two = await open(newPrefix());
      const seenByOne = createCollector<string>();
      const seenByTwo = createCollector<string>();
      const consumedByTwo = createCollector<string>();
      await one.subscribe('>', (m) => seenByOne.push(m.subject));
      await two.subscribe('>', (m) => seenByTwo.push(m.subject));
      await two.consume('isolated', 'evt.>', async (m) => consumedByTwo.push(m.subject));

      await one.publish(subjectOf(1), { n: 1 });
      one.signal('sig.jobs.enqueued');
      await seenByOne.untilCount(2, 'the first namespace seeing its own messages');
      await two.publish(subjectOf(2), { n: 2 });
      await seenByTwo.until(
        (items) => items.includes(subjectOf(2)),
        'the second namespace seeing its message',
      );
      await consumedByTwo.until((items) => items.includes(subjectOf(2)), 'the second namespace consuming it');

      expect(seenByOne.items).toEqual([subjectOf(1), 'sig.jobs.enqueued']);
      expect(seenByTwo.items).toEqual([subjectOf(2)]);
      expect(consumedByTwo.items).toEqual([subjectOf(2)]);
      expect(one.prefix).not.toBe(two.prefix);
    });
  });

  describe('health and close', () => {
    it('is healthy while open; after an idempotent close it is not and refuses work', async () => {
      const bus = await openUnmanaged(newPrefix());
      expect(await bus.health()).toMatchObject({ ok: true });

      await Promise.all([bus.close(), bus.close()]);
      await bus.close();

      expect(await bus.health()).toMatchObject({ ok: false });
      await expect(bus.publish(subjectOf(1), {})).rejects.toBeInstanceOf(BusClosedError);
      await expect(bus.subscribe('evt.>', () => {})).rejects.toBeInstanceOf(BusClosedError);
      await expect(bus.consume('late', 'evt.>', async () => {})).rejects.toBeInstanceOf(BusClosedError);
      expect(() => bus.signal('sig.jobs.enqueued')).not.toThrow();
    });

    it('close waits for handlers in flight and acks them', async () => {
      const prefix = newPrefix();
      const bus = await openUnmanaged(prefix);
      const entered = deferred();
      const release = deferred();
      let finished = false;
      await bus.consume('slow', 'evt.>', async () => {
        entered.resolve();
        await release.promise;
        finished = true;
      });
      // Not awaited first: the in-process bus's publish is done only once the handler is.
      const published = bus.publish(subjectOf(1), { n: 1 });
      await withTimeout(entered.promise, 'the handler to start');
      const closing = bus.close();
      release.resolve();
      await closing;
      await published;
      expect(finished).toBe(true);

      const after = await open(prefix);
      const got = createCollector<number>();
      await after.consume('slow', 'evt.>', async (m) => got.push(m.json<N>().n));
      await after.publish(subjectOf(2), { n: 2 });
      await got.untilCount(1, 'the next message after the restart');
      expect(got.items).toEqual([2]);
    });
  });
}
