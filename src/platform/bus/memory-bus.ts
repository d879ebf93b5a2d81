import {
  BUS_DEFAULTS,
  type Bus,
  BusClosedError,
  type BusLogger,
  type ConsumerHandle,
  type PublishResult,
  type Subscription,
  silentLogger,
} from './bus.js';
import { createMemoryBroker, type MemoryAttachment, type MemoryBroker } from './memory-broker.js';
import { createBusMessage, encodePayload } from './message.js';
import { createNamespace } from './namespace.js';

/** Options of `createMemoryBus`. */
export interface MemoryBusOptions {
  /** Namespace prefix (default `r3`). */
  prefix?: string;
  /**
   * The broker to attach to. Buses on one broker behave like processes on one NATS server (tests
   * use this); without it the bus gets a private broker, disposed on `close()`.
   */
  broker?: MemoryBroker;
  logger?: BusLogger;
  streamMaxAgeMs?: number;
  duplicateWindowMs?: number;
  /** Messages kept for consumers that are not attached yet; the oldest go first (default 10 000). */
  streamMaxMessages?: number;
  /** Wait after failed delivery n before redelivery (default `BUS_DEFAULTS.redeliveryBackoffMs`). */
  redeliveryBackoffMs?: readonly number[];
}

/**
 * The longest a publish waits for the consumers to handle its message (a handler failing and being
 * redelivered, say): then it counts as done, and the message waits in memory for its next try.
 */
export const PUBLISH_SETTLE_MS = 5_000;

/** Resolves when `promise` settles or after `ms`, whichever comes first. */
function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    promise.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      () => {
        clearTimeout(timer);
        resolve();
      },
    );
  });
}

/** Default bound on messages a memory stream keeps. */
export const MEMORY_STREAM_MAX_MESSAGES = 10_000;

/**
 * The in-process bus for a single node without `NATS_URL`: the `Bus` contract within one process.
 * Nothing survives a restart of the process.
 */
export function createMemoryBus(opts: MemoryBusOptions = {}): Bus {
  const ns = createNamespace(opts.prefix);
  const logger = opts.logger ?? silentLogger;
  const ownsBroker = opts.broker === undefined;
  const broker = opts.broker ?? createMemoryBroker();
  const backoffMs = opts.redeliveryBackoffMs ?? BUS_DEFAULTS.redeliveryBackoffMs;
  broker.ensureStream(ns, {
    maxAgeMs: opts.streamMaxAgeMs ?? BUS_DEFAULTS.streamMaxAgeMs,
    duplicateWindowMs: opts.duplicateWindowMs ?? BUS_DEFAULTS.duplicateWindowMs,
    maxMessages: opts.streamMaxMessages ?? MEMORY_STREAM_MAX_MESSAGES,
  });

  let closed = false;
  const unsubscribes = new Set<() => void>();
  const attachments = new Set<MemoryAttachment>();

  const assertOpen = (): void => {
    if (closed) throw new BusClosedError();
  };

  return {
    prefix: ns.prefix,

    // A publish counts as done once the consumers have handled the message (or PUBLISH_SETTLE_MS
    // passed): this stream lives in memory, so until a consumer has made something durable of it (the
    // webhook dispatcher's deliveries), a crash would lose it — and the outbox relay deletes its
    // rows as soon as their publishes are done. Not async, so no suspended frame keeps the subject.
    publish(subject, payload, publishOpts) {
      let wireSubject: string;
      let result: PublishResult;
      try {
        assertOpen();
        wireSubject = ns.eventSubject(subject);
        result = broker.publish(ns, wireSubject, encodePayload(payload), publishOpts?.msgId);
      } catch (error) {
        return Promise.reject(error);
      }
      if (result.duplicate) return Promise.resolve(result);
      return settledWithin(broker.handled(ns, wireSubject, result.seq), PUBLISH_SETTLE_MS).then(() => result);
    },

    // Live only: fanned out on the `evt.…` subject itself (in memory, live fan-out and the stream are
    // apart already), so nothing is stored and no consumer waits on it.
    announce(subject, payload, announceOpts) {
      try {
        assertOpen();
        broker.signal(ns.eventSubject(subject), encodePayload(payload), announceOpts?.msgId);
      } catch (error) {
        return Promise.reject(error);
      }
      return Promise.resolve();
    },

    async subscribe(pattern, handler): Promise<Subscription> {
      assertOpen();
      const remove = broker.subscribe(ns.subscribePattern(pattern), (wireSubject, data, msgId) => {
        const msg = createBusMessage({ subject: ns.relative(wireSubject), data, msgId });
        try {
          const result = handler(msg);
          if (result instanceof Promise) {
            result.catch((err: unknown) =>
              logger.error({ err, subject: msg.subject }, 'bus subscriber failed'),
            );
          }
        } catch (err) {
          logger.error({ err, subject: msg.subject }, 'bus subscriber failed');
        }
      });
      unsubscribes.add(remove);
      return {
        unsubscribe() {
          unsubscribes.delete(remove);
          remove();
        },
      };
    },

    async consume(name, pattern, handler, consumeOpts): Promise<ConsumerHandle> {
      assertOpen();
      const attachment = broker.attach(ns, ns.durableName(name), ns.consumerFilter(pattern), {
        handler,
        concurrency: Math.max(1, Math.floor(consumeOpts?.concurrency ?? 1)),
        backoffMs,
        logger,
      });
      attachments.add(attachment);
      return {
        async stop() {
          attachments.delete(attachment);
          await attachment.detach();
        },
      };
    },

    signal(subject, payload) {
      try {
        assertOpen();
        broker.signal(ns.signalSubject(subject), encodePayload(payload));
      } catch (err) {
        logger.warn({ err, subject }, 'bus signal dropped');
      }
    },

    async health() {
      return closed ? { ok: false, detail: 'bus closed' } : { ok: true, detail: 'in-process bus' };
    },

    async close() {
      if (closed) return;
      closed = true;
      for (const remove of unsubscribes) remove();
      unsubscribes.clear();
      await Promise.all([...attachments].map((a) => a.detach()));
      attachments.clear();
      if (ownsBroker) broker.dispose();
    },
  };
}
