import {
  type Consumer,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  jetstreamManager,
  PubHeaders,
} from '@nats-io/jetstream';
import { connect, headers, type Msg, type NatsConnection } from '@nats-io/transport-node';
import {
  BUS_DEFAULTS,
  type Bus,
  BusClosedError,
  type BusHealth,
  type BusLogger,
  type ConsumeOptions,
  type ConsumerHandle,
  type ConsumerHandler,
  type ConsumerLag,
  type PublishOptions,
  type PublishResult,
  redeliveryDelayMs,
  type Subscription,
  type SubscriptionHandler,
  silentLogger,
} from './bus.js';
import { createBusMessage, encodePayload } from './message.js';
import { createNamespace, type Namespace } from './namespace.js';
import { createReplyInbox, NatsRequestTimeout, publishToStream, type ReplyInbox } from './nats-inbox.js';
import { ensureDurableConsumer, ensureStream, eventStreamConfig } from './nats-stream.js';

/** Options of `connectNatsBus`. */
export interface NatsBusOptions {
  /** NATS server URL(s), e.g. `nats://127.0.0.1:4222`. */
  url: string | string[];
  /** Namespace prefix (default `r3`). */
  prefix?: string;
  logger?: BusLogger;
  /** Age after which the stream drops a message (default 7 days). */
  streamMaxAgeMs?: number;
  /** Window in which a `msgId` dedupes (default 2 min). */
  duplicateWindowMs?: number;
  /** Stream replicas in a JetStream cluster (default 1). */
  streamReplicas?: number;
  /**
   * How long the server waits for the ack of a delivery before redelivering it (default 30 s).
   * While a handler runs, the bus tells the server it is still working every third of this, so only
   * a dead or stuck process lets it expire. Applies when a consumer is created or confirmed.
   */
  ackWaitMs?: number;
  /** Wait after failed delivery n before redelivery (default `BUS_DEFAULTS.redeliveryBackoffMs`). */
  redeliveryBackoffMs?: readonly number[];
  /** Connection name the server shows (default `r3:<prefix>`). */
  connectionName?: string;
  /**
   * How long a publish waits for the stream's ack, and a handled message for the server to confirm
   * its ack, before it fails (default 5 s, as nats.js's).
   */
  requestTimeoutMs?: number;
}

const HEALTH_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 5_000;
/** The payload of a consumer ack. */
const ACK = new TextEncoder().encode('+ACK');

/**
 * Connects to NATS (reconnecting forever once connected), creates or updates the prefix's stream
 * and returns the JetStream-backed `Bus`. Rejects when the first connection or the stream fails.
 */
export async function connectNatsBus(opts: NatsBusOptions): Promise<Bus> {
  const ns = createNamespace(opts.prefix);
  const logger = opts.logger ?? silentLogger;
  const nc = await connect({
    servers: opts.url,
    name: opts.connectionName ?? `r3:${ns.prefix}`,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1_000,
    // nats.js otherwise builds two errors with stack traces for every request it makes, in case it
    // fails. Publishes and confirmed acks no longer go through its requests (see nats-inbox.ts); the
    // rest (stream and consumer calls, health) still do. A request that fails still rejects with its
    // error, without the caller's frames.
    noAsyncTraces: true,
  });
  let jsm: JetStreamManager;
  try {
    jsm = await jetstreamManager(nc);
    await ensureStream(
      jsm,
      eventStreamConfig(ns, {
        maxAgeMs: opts.streamMaxAgeMs ?? BUS_DEFAULTS.streamMaxAgeMs,
        duplicateWindowMs: opts.duplicateWindowMs ?? BUS_DEFAULTS.duplicateWindowMs,
        replicas: opts.streamReplicas ?? 1,
      }),
    );
  } catch (err) {
    await nc.close();
    throw err;
  }
  const requestTimeoutMs = opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const inbox = createReplyInbox(nc, { timeoutMs: requestTimeoutMs });
  return new NatsBus(nc, jsm, inbox, ns, logger, {
    ackWaitMs: opts.ackWaitMs ?? BUS_DEFAULTS.ackWaitMs,
    backoffMs: opts.redeliveryBackoffMs ?? BUS_DEFAULTS.redeliveryBackoffMs,
    requestTimeoutMs,
  });
}

interface ConsumerSettings {
  ackWaitMs: number;
  backoffMs: readonly number[];
}

interface BusSettings extends ConsumerSettings {
  /** How long a publish, or an announcement's flush, waits for the server. */
  requestTimeoutMs: number;
}

/** `answer`, or a rejection with `late()` once `ms` passed first (the bus's calls the server may never answer). */
function within<T>(answer: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  return Promise.race([answer, timeout]).finally(() => clearTimeout(timer));
}

class NatsBus implements Bus {
  readonly prefix: string;
  private readonly js: JetStreamClient;
  private readonly consumers = new Set<NatsConsumerLoop>();
  private readonly statusWatch: Promise<void>;
  private closing: Promise<void> | undefined;
  /** The flush that confirms this turn's announcements (`announce`). */
  private announced: Promise<void> | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    /** Where publishes and confirmed acks wait for their answers. */
    private readonly inbox: ReplyInbox,
    private readonly ns: Namespace,
    private readonly logger: BusLogger,
    private readonly settings: BusSettings,
  ) {
    this.prefix = ns.prefix;
    this.js = jsm.jetstream();
    this.statusWatch = this.watchStatus();
  }

  async publish(subject: string, payload: unknown, opts?: PublishOptions): Promise<PublishResult> {
    this.assertOpen();
    const wire = this.ns.eventSubject(subject);
    const ack = await publishToStream(this.inbox, wire, encodePayload(payload), opts?.msgId);
    return { seq: ack.seq, duplicate: ack.duplicate };
  }

  // A core publish outside the stream's subjects, with the message id as JetStream's header (what a
  // live subscriber of a stored message reads it from), confirmed by one flush for the turn's sends.
  async announce(subject: string, payload: unknown, opts?: PublishOptions): Promise<void> {
    this.assertOpen();
    const wire = this.ns.announceSubject(subject);
    let hdrs: ReturnType<typeof headers> | undefined;
    if (opts?.msgId) {
      hdrs = headers();
      hdrs.set(PubHeaders.MsgIdHdr, opts.msgId);
    }
    this.nc.publish(wire, encodePayload(payload), hdrs ? { headers: hdrs } : undefined);
    // Bounded as a publish is: a flush sent while the connection is down waits for the reconnect,
    // and the relay's pass (a transaction, a pooled connection) would wait with it.
    this.announced ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.announced = undefined;
      const ms = this.settings.requestTimeoutMs;
      return within(this.nc.flush(), ms, () => new NatsRequestTimeout(`flush: no answer within ${ms} ms`));
    });
    await this.announced;
  }

  async subscribe(pattern: string, handler: SubscriptionHandler): Promise<Subscription> {
    this.assertOpen();
    const callback = (err: Error | null, m: Msg) => {
      if (err) {
        this.logger.error({ err, pattern }, 'bus subscription failed');
        return;
      }
      this.dispatch(m, handler);
    };
    // A pattern under `evt.` listens for announced events too (`<prefix>.live.…`).
    const announced = this.ns.announcedPattern(pattern);
    const subs = [this.nc.subscribe(this.ns.subscribePattern(pattern), { callback })];
    if (announced !== null) subs.push(this.nc.subscribe(announced, { callback }));
    // Once the server answers the flush it has processed the SUBs: later publishes reach us.
    await this.nc.flush();
    return {
      unsubscribe: () => {
        for (const sub of subs) if (!sub.isClosed()) sub.unsubscribe();
      },
    };
  }

  async consume(
    name: string,
    pattern: string,
    handler: ConsumerHandler,
    opts?: ConsumeOptions,
  ): Promise<ConsumerHandle> {
    this.assertOpen();
    const durable = this.ns.durableName(name);
    const stream = this.ns.streamName;
    await ensureDurableConsumer(this.jsm, {
      stream,
      durable,
      filter: this.ns.consumerFilter(pattern),
      ackWaitMs: this.settings.ackWaitMs,
    });
    const consumer = await this.js.consumers.get(stream, durable);
    const loop = new NatsConsumerLoop(consumer, durable, this.ns, handler, this.logger, {
      ...this.settings,
      inbox: this.inbox,
      concurrency: Math.max(1, Math.floor(opts?.concurrency ?? 1)),
    });
    await loop.start();
    if (this.closing) {
      // close() ran while the consumer was being set up: it did not see this loop.
      await loop.stop();
      throw new BusClosedError();
    }
    this.consumers.add(loop);
    return {
      stop: async () => {
        this.consumers.delete(loop);
        await loop.stop();
      },
    };
  }

  signal(subject: string, payload?: unknown): void {
    try {
      this.assertOpen();
      this.nc.publish(this.ns.signalSubject(subject), encodePayload(payload));
    } catch (err) {
      this.logger.warn({ err, subject }, 'bus signal dropped');
    }
  }

  async health(): Promise<BusHealth> {
    if (this.closing || this.nc.isClosed()) return { ok: false, detail: 'bus closed' };
    const broken = [...this.consumers].find((c) => c.failure !== undefined);
    if (broken) return { ok: false, detail: `consumer ${broken.durable} stopped: ${broken.failure}` };
    try {
      await within(
        this.jsm.streams.info(this.ns.streamName),
        HEALTH_TIMEOUT_MS,
        () => new Error(`stream ${this.ns.streamName} did not answer within ${HEALTH_TIMEOUT_MS} ms`),
      );
      return { ok: true, detail: `nats ${this.nc.getServer()}` };
    } catch (err) {
      return { ok: false, detail: err instanceof Error ? err.message : String(err) };
    }
  }

  async consumerLag(): Promise<ConsumerLag[]> {
    return Promise.all(
      [...this.consumers].map(async ({ durable }) => {
        const info = await this.jsm.consumers.info(this.ns.streamName, durable);
        return { consumer: durable, pending: info.num_pending, ackPending: info.num_ack_pending };
      }),
    );
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.consumers].map((c) => c.stop()));
      this.consumers.clear();
      if (!this.nc.isClosed()) await this.nc.drain();
      this.inbox.close(new BusClosedError());
      await this.statusWatch;
    })();
    return this.closing;
  }

  private assertOpen(): void {
    if (this.closing || this.nc.isClosed()) throw new BusClosedError();
  }

  private dispatch(m: Msg, handler: SubscriptionHandler): void {
    const msg = createBusMessage({
      subject: this.ns.relative(m.subject),
      data: m.data,
      msgId: m.headers?.get(PubHeaders.MsgIdHdr) || undefined,
    });
    try {
      const result = handler(msg);
      if (result instanceof Promise) {
        result.catch((err: unknown) =>
          this.logger.error({ err, subject: msg.subject }, 'bus subscriber failed'),
        );
      }
    } catch (err) {
      this.logger.error({ err, subject: msg.subject }, 'bus subscriber failed');
    }
  }

  private async watchStatus(): Promise<void> {
    for await (const status of this.nc.status()) {
      switch (status.type) {
        case 'disconnect':
        case 'error':
        case 'staleConnection':
        case 'slowConsumer':
          this.logger.warn({ status }, 'nats connection');
          break;
        case 'reconnect':
          this.logger.info({ status }, 'nats connection');
          break;
        default:
          this.logger.debug({ status }, 'nats connection');
      }
    }
  }
}

interface LoopSettings extends ConsumerSettings {
  concurrency: number;
  inbox: ReplyInbox;
}

/** One `consume()` call: pulls at most `concurrency` messages ahead and runs the handler on them. */
class NatsConsumerLoop {
  /** Set when the message iterator ended without `stop()` (reported by `health()`). */
  failure: string | undefined;
  private messages: ConsumerMessages | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** Resolves the pull loop's wait for a free slot (see `run`), when it waits. */
  private slotFreed: (() => void) | undefined;
  /** Messages whose handler runs: one timer tells the server they are still being worked on. */
  private readonly working = new Set<JsMsg>();
  private heartbeat: NodeJS.Timeout | undefined;
  /** Acks waiting for the end of this turn of the event loop (`ackConfirmed`). */
  private acks: Array<() => void> = [];

  constructor(
    private readonly consumer: Consumer,
    readonly durable: string,
    private readonly ns: Namespace,
    private readonly handler: ConsumerHandler,
    private readonly logger: BusLogger,
    private readonly settings: LoopSettings,
  ) {}

  async start(): Promise<void> {
    // Pulled in batches: nats.js asks the server for more each time a message arrives while fewer
    // than `threshold_messages` are still owed, one request (a socket write) each — at its default
    // threshold (three quarters of `max_messages`, here the concurrency) a request every few
    // messages. Twice the concurrency owed, asked for again once no more than half of it is: one
    // request per one and a half times the concurrency.
    const { concurrency } = this.settings;
    const messages = await this.consumer.consume({
      max_messages: concurrency * 2,
      threshold_messages: Math.max(1, Math.floor(concurrency / 2)),
    });
    this.messages = messages;
    // Every third of ack_wait, each message in a handler is reported in progress (one timer for
    // all of them rather than one per message).
    this.heartbeat = setInterval(
      () => {
        for (const m of this.working) m.working();
      },
      Math.max(100, Math.floor(this.settings.ackWaitMs / 3)),
    );
    this.heartbeat.unref();
    this.running = this.run(messages);
    void this.watch(messages);
  }

  async stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      void this.messages?.close();
    }
    await this.running;
    await Promise.all(this.inFlight);
    clearInterval(this.heartbeat);
  }

  private async run(messages: ConsumerMessages): Promise<void> {
    try {
      for await (const m of messages) {
        // Held from the moment it is pulled: a message waiting here for a free slot is reported in
        // progress too, so it does not go to another process while this one lives.
        this.working.add(m);
        // Waits for a handler to finish: a callback its task calls, not `Promise.race` over the
        // tasks in flight, which added a reaction to every one of them per message pulled (each
        // stayed attached until its task ended: a slow handler collected one per message).
        while (!this.stopping && this.inFlight.size >= this.settings.concurrency) {
          await new Promise<void>((resolve) => {
            this.slotFreed = resolve;
          });
        }
        if (this.stopping) {
          // Already pulled but not started: hand it back at once instead of waiting for ack_wait.
          this.working.delete(m);
          m.nak();
          continue;
        }
        const task = this.handle(m)
          .catch((err: unknown) => this.logger.error({ err, consumer: this.durable }, 'bus delivery failed'))
          .finally(() => {
            this.inFlight.delete(task);
            const freed = this.slotFreed;
            this.slotFreed = undefined;
            freed?.();
          });
        this.inFlight.add(task);
      }
      if (!this.stopping) this.fail('message iterator ended');
    } catch (err) {
      this.fail(err instanceof Error ? err.message : String(err));
    }
  }

  private async handle(m: JsMsg): Promise<void> {
    const deliveryCount = m.info.deliveryCount;
    const msg = createBusMessage({
      subject: this.ns.relative(m.subject),
      data: m.data,
      msgId: m.headers?.get(PubHeaders.MsgIdHdr) || undefined,
      deliveryCount,
    });
    this.working.add(m);
    let ok = false;
    try {
      await this.handler(msg);
      ok = true;
    } catch (err) {
      const delayMs = redeliveryDelayMs(deliveryCount, this.settings.backoffMs);
      this.logger.warn({ err, subject: msg.subject, deliveryCount, delayMs }, 'bus handler failed');
      m.nak(delayMs);
    } finally {
      this.working.delete(m);
    }
    if (!ok) return;
    try {
      // Wait for the server to record the ack: once `stop()` resolves, a restart cannot see the message again.
      await this.ackConfirmed(m);
    } catch (err) {
      this.logger.warn(
        { err, subject: msg.subject },
        'bus ack not confirmed; the message may be redelivered',
      );
    }
  }

  /**
   * Acks `m` and waits for the server to confirm it recorded the ack (what `m.ackAck()` does, with
   * the answer awaited on the bus's inbox).
   */
  private ackConfirmed(m: JsMsg): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.acks.push(() => this.sendAck(m).then(resolve, reject));
      if (this.acks.length === 1) setImmediate(this.sendAcks);
    });
  }

  /** Sends the acks asked for since the last turn of the event loop, in one write to the server. */
  private readonly sendAcks = (): void => {
    const due = this.acks;
    this.acks = [];
    for (const send of due) send();
  };

  private async sendAck(m: JsMsg): Promise<void> {
    // The ack goes to the message's reply subject, which nats.js's message has but does not type.
    const reply = (m as { reply?: unknown }).reply;
    if (typeof reply === 'string' && reply !== '') await this.settings.inbox.request(reply, ACK);
    else await m.ackAck();
  }

  private async watch(messages: ConsumerMessages): Promise<void> {
    for await (const status of messages.status()) {
      switch (status.type) {
        case 'heartbeats_missed':
        case 'consumer_not_found':
        case 'consumer_deleted':
        case 'stream_not_found':
        case 'no_responders':
          this.logger.warn({ status, consumer: this.durable }, 'bus consumer');
          break;
        default:
          this.logger.debug({ status, consumer: this.durable }, 'bus consumer');
      }
    }
  }

  private fail(reason: string): void {
    this.failure = reason;
    this.logger.error({ consumer: this.durable, reason }, 'bus consumer stopped unexpectedly');
  }
}
