import type { Socket } from 'node:net';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, nanos } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Bus } from '../../../src/platform/bus/bus.js';
import { connectBus } from '../../../src/platform/bus/connect.js';
import { createNamespace } from '../../../src/platform/bus/namespace.js';
import { connectNatsBus } from '../../../src/platform/bus/nats-bus.js';
import { NatsRequestError, NatsRequestTimeout } from '../../../src/platform/bus/nats-inbox.js';
import { runEventSubject } from '../../../src/platform/bus/subjects.js';
import { deleteTestStreams, probeNats, randomTestPrefix, requireNats } from '../../helpers/nats.js';
import { createCollector, deferred, withTimeout } from '../../helpers/wait.js';
import { busContract } from './bus-contract.js';

const nats = await probeNats();

/** Deletes the streams of `prefixes` (their consumers go with them). */
const deleteStreams = (prefixes: readonly string[]) => deleteTestStreams(nats, prefixes);

describe.skipIf(nats.skip)('NATS bus', () => {
  beforeAll(() => requireNats(nats));

  busContract(
    'NATS bus',
    ({ prefix, redeliveryBackoffMs }) => connectNatsBus({ url: nats.url, prefix, redeliveryBackoffMs }),
    { cleanup: deleteStreams },
  );

  describe('stream and consumer configuration', () => {
    const prefixes: string[] = [];
    const buses: Bus[] = [];
    const newPrefix = (): string => {
      const prefix = randomTestPrefix(`nats cfg ${prefixes.length}`);
      prefixes.push(prefix);
      return prefix;
    };
    const open = async (opts: Omit<Parameters<typeof connectNatsBus>[0], 'url'>): Promise<Bus> => {
      const bus = await connectNatsBus({ url: nats.url, ...opts });
      buses.push(bus);
      return bus;
    };
    const admin = async () => {
      const nc = await connect({ servers: nats.url });
      return { nc, jsm: await jetstreamManager(nc) };
    };

    /**
     * The frames `bus` writes to its connection's socket (nats.js's transport, spied with the real
     * write underneath) while `during` runs.
     */
    const framesWritten = async (bus: Bus, during: () => Promise<void>): Promise<string[]> => {
      const { socket } = (bus as unknown as { nc: { protocol: { transport: { socket: Socket } } } }).nc
        .protocol.transport;
      const spy = vi.spyOn(socket, 'write');
      try {
        await during();
        return spy.mock.calls.map((call) => Buffer.from(call[0] as Uint8Array).toString('latin1'));
      } finally {
        spy.mockRestore();
      }
    };

    afterAll(async () => {
      await Promise.all(buses.map((bus) => bus.close()));
      await deleteStreams(prefixes);
    });

    it('creates the stream from the prefix: file storage, limits retention, max age, duplicate window', async () => {
      const prefix = newPrefix();
      await open({ prefix, streamMaxAgeMs: 3_600_000, duplicateWindowMs: 30_000 });
      const { nc, jsm } = await admin();
      try {
        const info = await jsm.streams.info(`${prefix.toUpperCase()}_EVENTS`);
        expect(info.config).toMatchObject({
          subjects: [`${prefix}.evt.>`],
          storage: 'file',
          retention: 'limits',
          discard: 'old',
          max_age: nanos(3_600_000),
          duplicate_window: nanos(30_000),
        });
      } finally {
        await nc.close();
      }
    });

    it('creates the stream idempotently when processes race, and updates changed limits', async () => {
      const prefix = newPrefix();
      await Promise.all([1, 2, 3].map(() => open({ prefix })));
      await open({ prefix, streamMaxAgeMs: 86_400_000 });
      const { nc, jsm } = await admin();
      try {
        const info = await jsm.streams.info(createNamespace(prefix).streamName);
        expect(info.config.max_age).toBe(nanos(86_400_000));
        expect(info.config.duplicate_window).toBe(nanos(120_000));
      } finally {
        await nc.close();
      }
    });

    it('brings a durable made with another ack wait (an earlier release: 30 s) to this one’s (5 s)', async () => {
      const prefix = newPrefix();
      const before = await open({ prefix, ackWaitMs: 30_000 });
      await (await before.consume('dispatch', 'evt.>', async () => {})).stop();
      const after = await open({ prefix });
      await (await after.consume('dispatch', 'evt.>', async () => {})).stop();
      const { nc, jsm } = await admin();
      try {
        const info = await jsm.consumers.info(createNamespace(prefix).streamName, `${prefix}_dispatch`);
        expect(info.config.ack_wait).toBe(nanos(5_000));
      } finally {
        await nc.close();
      }
    });

    it('makes a durable pull consumer with explicit acks, unlimited deliveries and the ack wait', async () => {
      const prefix = newPrefix();
      const bus = await open({ prefix, ackWaitMs: 10_000 });
      const consumer = await bus.consume('dispatch', 'evt.>', async () => {});
      await consumer.stop();
      const { nc, jsm } = await admin();
      try {
        const info = await jsm.consumers.info(createNamespace(prefix).streamName, `${prefix}_dispatch`);
        expect(info.config).toMatchObject({
          durable_name: `${prefix}_dispatch`,
          ack_policy: 'explicit',
          deliver_policy: 'all',
          max_deliver: -1,
          ack_wait: nanos(10_000),
          filter_subject: `${prefix}.evt.>`,
        });
      } finally {
        await nc.close();
      }
    });

    it('has the server record every ack by the time stop() resolves', async () => {
      const prefix = newPrefix();
      const bus = await open({ prefix });
      const got = createCollector<number>();
      const consumer = await bus.consume('acks', 'evt.>', async (m) => got.push(m.json<{ n: number }>().n));
      for (const n of [1, 2, 3]) await bus.publish(runEventSubject('org_1', n, 'completed'), { n });
      await got.untilCount(3, 'three handled messages');
      await consumer.stop();
      const { nc, jsm } = await admin();
      try {
        const info = await jsm.consumers.info(createNamespace(prefix).streamName, `${prefix}_acks`);
        expect({
          ackPending: info.num_ack_pending,
          pending: info.num_pending,
          ackFloor: info.ack_floor.stream_seq,
          redelivered: info.num_redelivered,
        }).toEqual({ ackPending: 0, pending: 0, ackFloor: 3, redelivered: 0 });
      } finally {
        await nc.close();
      }
    });

    it('sends the acks of handlers that finish in one turn of the event loop in one write', async () => {
      const prefix = newPrefix();
      const bus = await open({ prefix });
      const count = 20;
      const started = createCollector<number>();
      const release = deferred();
      // Each handler ends in its own callback of one turn (as replies of separate statements do).
      const consumer = await bus.consume(
        'ack-writes',
        'evt.>',
        async (m) => {
          started.push(m.json<{ n: number }>().n);
          await release.promise;
          await new Promise<void>((resolve) => setImmediate(resolve));
        },
        { concurrency: count },
      );
      for (let n = 1; n <= count; n++) await bus.publish(runEventSubject('org_1', n, 'completed'), { n });
      await started.untilCount(count, 'every handler running');
      const frames = await framesWritten(bus, async () => {
        release.resolve();
        await consumer.stop();
      });
      const writes = frames.map((frame) => frame.split('+ACK').length - 1).filter((acks) => acks > 0);
      expect(writes.reduce((a, b) => a + b, 0)).toBe(count);
      expect(writes.length).toBe(1);
      const { nc, jsm } = await admin();
      try {
        const info = await jsm.consumers.info(createNamespace(prefix).streamName, `${prefix}_ack-writes`);
        expect(info.num_ack_pending).toBe(0);
      } finally {
        await nc.close();
      }
    });

    it('asks the server for more messages in batches, not one request per message', async () => {
      const prefix = newPrefix();
      const bus = await open({ prefix });
      const count = 60;
      for (let n = 1; n <= count; n++) await bus.publish(runEventSubject('org_1', n, 'completed'), { n });
      const got = createCollector<number>();
      const frames = await framesWritten(bus, async () => {
        // Concurrency 4: 8 owed, asked for again at 2 — a request per 6 messages.
        const consumer = await bus.consume(
          'pulls',
          'evt.>',
          async (m) => got.push(m.json<{ n: number }>().n),
          {
            concurrency: 4,
          },
        );
        await got.untilCount(count, 'every message handled');
        await consumer.stop();
      });
      expect(got.items).toHaveLength(count);
      const pulls = frames.join('').split('CONSUMER.MSG.NEXT').length - 1;
      expect(pulls).toBeGreaterThan(0);
      expect(pulls).toBeLessThanOrEqual(Math.ceil(count / 6) + 2);
    });

    it('rejects a publish with status 503 once its stream is gone, and publishes again once it is back', async () => {
      const prefix = newPrefix();
      const bus = await open({ prefix, requestTimeoutMs: 2_000 });
      const subject = runEventSubject('org_1', 1, 'completed');
      expect(await bus.publish(subject, { n: 1 })).toEqual({ seq: 1, duplicate: false });
      const { nc, jsm } = await admin();
      try {
        const config = (await jsm.streams.info(createNamespace(prefix).streamName)).config;
        await jsm.streams.delete(config.name);
        const error = await bus.publish(subject, { n: 2 }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(NatsRequestError);
        expect(error).toMatchObject({ code: 503 });
        await jsm.streams.add(config);
        expect(await bus.publish(subject, { n: 3 })).toEqual({ seq: 1, duplicate: false });
      } finally {
        await nc.close();
      }
    });

    it('rejects an announcement the server does not confirm within the request timeout', async () => {
      const bus = await open({ prefix: newPrefix(), requestTimeoutMs: 300 });
      const listener = createCollector<string>();
      await bus.subscribe('evt.>', (m) => listener.push(m.subject));
      const { socket } = (bus as unknown as { nc: { protocol: { transport: { socket: Socket } } } }).nc
        .protocol.transport;
      // Writes carrying the flush's PING are held back (so no PONG comes), and sent afterwards so
      // the connection's PINGs and PONGs pair up again.
      const held: Uint8Array[] = [];
      const write = socket.write.bind(socket) as (chunk: Uint8Array) => boolean;
      const spy = vi.spyOn(socket, 'write').mockImplementation(((chunk: Uint8Array) => {
        if (Buffer.from(chunk).toString('latin1').includes('PING')) {
          held.push(chunk);
          return true;
        }
        return write(chunk);
      }) as typeof socket.write);
      const subject = runEventSubject('org_1', 1, 'completed');
      try {
        const error = await bus.announce(subject, { n: 1 }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(NatsRequestTimeout);
        expect(String(error)).toContain('no answer within 300 ms');
        expect(held.length).toBeGreaterThan(0);
      } finally {
        spy.mockRestore();
        for (const chunk of held) write(chunk);
      }
      // Confirmed again once the server answers: the next announcement resolves and is seen.
      await bus.announce(runEventSubject('org_1', 2, 'completed'), { n: 2 });
      await listener.until((items) => items.includes('evt.org_1.run.2.completed'), 'the second announcement');
    });

    it('keeps a message with its handler past ack_wait while the handler works (no duplicate)', async () => {
      const prefix = newPrefix();
      const ackWaitMs = 1_000;
      const bus = await open({ prefix, ackWaitMs });
      const deliveries = createCollector<{ n: number; count: number }>();
      const longDone = deferred();
      const consumer = await bus.consume('long', 'evt.>', async (m) => {
        const n = m.json<{ n: number }>().n;
        deliveries.push({ n, count: m.deliveryCount ?? 0 });
        if (n !== 1 || m.deliveryCount !== 1) return;
        // The elapsed time is what is under test: the handler outlives ack_wait twice over.
        await new Promise((resolve) => setTimeout(resolve, ackWaitMs * 2.5));
        longDone.resolve();
      });
      await bus.publish(runEventSubject('org_1', 1, 'completed'), { n: 1 });
      await withTimeout(longDone.promise, 'the long handler', 10_000);
      // Without the heartbeat the server redelivers message 1 after ack_wait, to the pull already
      // waiting here, so it would be handled before message 2, published only now.
      await bus.publish(runEventSubject('org_1', 2, 'completed'), { n: 2 });
      await deliveries.until((items) => items.some((d) => d.n === 2), 'the next message', 10_000);
      await consumer.stop();
      expect(deliveries.items).toEqual([
        { n: 1, count: 1 },
        { n: 2, count: 1 },
      ]);
    });

    it('reports unhealthy when the stream stops answering', async () => {
      const prefix = newPrefix();
      const bus = await open({ prefix });
      expect(await bus.health()).toMatchObject({ ok: true });
      await deleteStreams([prefix]);
      const health = await bus.health();
      expect(health.ok).toBe(false);
      expect(health.detail).toMatch(/not found/i);
    });

    it('connectBus picks NATS when given a URL', async () => {
      const prefix = newPrefix();
      const bus = await connectBus({ natsUrl: nats.url, prefix });
      buses.push(bus);
      expect(await bus.health()).toMatchObject({ ok: true, detail: expect.stringMatching(/^nats /) });
    });
  });
});
