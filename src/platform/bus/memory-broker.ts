import { detached } from '../util/detached.js';
import {
  type BusLogger,
  type BusMessage,
  ConsumerPatternConflictError,
  type PublishResult,
  redeliveryDelayMs,
} from './bus.js';
import { createBusMessage } from './message.js';
import type { Namespace } from './namespace.js';
import { subjectMatches } from './subjects.js';

/**
 * The in-process stand-in for a NATS server: streams, durable consumers and live subscriptions,
 * shared by every memory bus created on it (like connections to one server). It works within one
 * process only; a deployment with more than one process sets `NATS_URL`.
 */
export interface MemoryBroker {
  /** Creates the namespace's stream, or updates its limits (like `streams.add`/`update`). */
  ensureStream(ns: Namespace, config: MemoryStreamConfig): void;
  /** Stores `wireSubject` in the namespace's stream (deduped by `msgId`) and fans it out live. */
  publish(ns: Namespace, wireSubject: string, data: Uint8Array, msgId: string | undefined): PublishResult;
  /**
   * Resolves once every durable consumer whose filter takes message `seq` (of `wireSubject`) has
   * handled it (its handler resolved), or has no worker attached to hand it to, or the message is
   * gone. The in-process bus waits for this before a publish counts as done: its stream lives in
   * memory, so a message is only safe once a consumer has turned it into something durable.
   */
  handled(ns: Namespace, wireSubject: string, seq: number): Promise<void>;
  /** Fans a message out to live subscriptions only (a signal, or an announced event with its `msgId`). */
  signal(wireSubject: string, data: Uint8Array, msgId?: string): void;
  /** Adds a live subscription on a wire pattern; returns its removal. */
  subscribe(wirePattern: string, listener: WireListener): () => void;
  /** Attaches a worker to the durable consumer `durable` (created at the oldest stored message when new). */
  attach(ns: Namespace, durable: string, wireFilter: string, worker: MemoryWorker): MemoryAttachment;
  /** Cancels pending redelivery timers; the broker is unusable afterwards. */
  dispose(): void;
}

/** Limits of a memory stream. */
export interface MemoryStreamConfig {
  maxAgeMs: number;
  duplicateWindowMs: number;
  /** Oldest messages are dropped past this count. */
  maxMessages: number;
}

/** Receives a fanned-out message on its wire subject. */
export type WireListener = (wireSubject: string, data: Uint8Array, msgId: string | undefined) => void;

/** One process-side reader of a durable consumer (one `consume()` call). */
export interface MemoryWorker {
  handler: (msg: BusMessage) => Promise<void>;
  concurrency: number;
  backoffMs: readonly number[];
  logger: BusLogger;
}

/** A worker's link to its consumer. */
export interface MemoryAttachment {
  /** Detaches the worker and resolves once its handlers in flight have settled. */
  detach(): Promise<void>;
}

/** Options of `createMemoryBroker`. */
export interface MemoryBrokerOptions {
  /** Clock in epoch ms (tests inject one to move past the duplicate window or max age). */
  now?: () => number;
}

interface StoredMessage {
  seq: number;
  subject: string;
  data: Uint8Array;
  msgId: string | undefined;
  storedAt: number;
}

class MemoryStream {
  readonly consumers = new Map<string, MemoryConsumer>();
  /** Retained messages are `messages[head..]`; dropped ones before `head` are cut off in bulk. */
  private messages: StoredMessage[] = [];
  private head = 0;
  /** Message id → sequence, for ids published within the duplicate window. */
  private readonly dedupe = new Map<string, number>();
  /**
   * The same ids in publish order, each with its time: expiry walks this from `expiryHead`. (Taking
   * them from the front of the map instead would walk every deleted entry the map still holds on
   * every call, until it happens to rehash: quadratic once the window starts expiring ids.) Two
   * arrays rather than one of `{id, at}` pairs: the window holds every id of the last two minutes
   * by default (1.4 million at 12k messages a second), so each id costs one object fewer.
   */
  private expiryIds: string[] = [];
  private expiryAts: number[] = [];
  private expiryHead = 0;
  private lastSeq = 0;

  constructor(
    readonly ns: Namespace,
    public config: MemoryStreamConfig,
    private readonly now: () => number,
  ) {}

  /** Sequence of the oldest retained message (lastSeq + 1 when empty). */
  get firstSeq(): number {
    return this.messages[this.head]?.seq ?? this.lastSeq + 1;
  }

  get last(): number {
    return this.lastSeq;
  }

  append(wireSubject: string, data: Uint8Array, id: string | undefined): PublishResult {
    const now = this.now();
    this.trim(now);
    if (id !== undefined) {
      const seen = this.dedupe.get(id);
      if (seen !== undefined) return { seq: seen, duplicate: true };
    }
    // Kept for the duplicate window (ids) and the stream's retention (subjects): copies, so that a
    // subject or id cut from a larger text (the relay's batch rows) does not keep that text alive.
    const subject = detached(wireSubject);
    const msgId = id === undefined ? undefined : detached(id);
    const seq = ++this.lastSeq;
    this.messages.push({ seq, subject, data, msgId, storedAt: now });
    if (msgId !== undefined) {
      this.dedupe.set(msgId, seq);
      this.expiryIds.push(msgId);
      this.expiryAts.push(now);
    }
    this.trim(now);
    return { seq, duplicate: false };
  }

  /** The retained message `seq`; sequences are contiguous, so this is an index lookup. */
  get(seq: number): StoredMessage | undefined {
    this.trim(this.now());
    const first = this.messages[this.head];
    return first && seq >= first.seq ? this.messages[this.head + seq - first.seq] : undefined;
  }

  private trim(now: number): void {
    const { messages } = this;
    let head = Math.max(this.head, messages.length - this.config.maxMessages);
    while (head < messages.length && now - (messages[head]?.storedAt ?? now) >= this.config.maxAgeMs) {
      head++;
    }
    // Dropping from the front one message at a time would move the whole array on every append:
    // the dropped prefix is cut off once it is as long as what is retained.
    if (head > 0 && head * 2 >= messages.length) {
      this.messages = messages.slice(head);
      head = 0;
    }
    this.head = head;
    // Publish order is time order: stop at the first id still in the window.
    const { expiryIds, expiryAts } = this;
    let next = this.expiryHead;
    while (next < expiryIds.length && now - (expiryAts[next] as number) >= this.config.duplicateWindowMs) {
      this.dedupe.delete(expiryIds[next] as string);
      next++;
    }
    if (next > 0 && next * 2 >= expiryIds.length) {
      this.expiryIds = expiryIds.slice(next);
      this.expiryAts = expiryAts.slice(next);
      next = 0;
    }
    this.expiryHead = next;
  }
}

interface AttachedWorker extends MemoryWorker {
  active: number;
  inFlight: Set<Promise<void>>;
}

class MemoryConsumer {
  private cursor: number;
  private readonly ready: number[] = [];
  /** Who waits for a message to be handled (`MemoryBroker.handled`), by sequence. */
  private readonly waiters = new Map<number, Array<() => void>>();
  private readonly deliveries = new Map<number, number>();
  private readonly workers: AttachedWorker[] = [];
  private next = 0;

  constructor(
    private readonly stream: MemoryStream,
    readonly filter: string,
    private readonly timers: Set<NodeJS.Timeout>,
  ) {
    this.cursor = stream.firstSeq;
  }

  attach(worker: MemoryWorker): MemoryAttachment {
    const attached: AttachedWorker = { ...worker, active: 0, inFlight: new Set() };
    this.workers.push(attached);
    this.pump();
    return {
      detach: async () => {
        const index = this.workers.indexOf(attached);
        if (index >= 0) this.workers.splice(index, 1);
        // No worker is left to handle what is waited for: waiting longer would block publishers
        // (what is in flight is awaited below, before the process can go).
        if (this.workers.length === 0) for (const seq of [...this.waiters.keys()]) this.settle(seq);
        await Promise.all(attached.inFlight);
      },
    };
  }

  /** Resolves once message `seq` is handled here (see `MemoryBroker.handled`). */
  handled(seq: number): Promise<void> {
    if (this.workers.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const list = this.waiters.get(seq);
      if (list) list.push(resolve);
      else this.waiters.set(seq, [resolve]);
    });
  }

  private settle(seq: number): void {
    const list = this.waiters.get(seq);
    if (!list) return;
    this.waiters.delete(seq);
    for (const resolve of list) resolve();
  }

  /** Hands ready messages to workers with free capacity, round-robin. */
  pump(): void {
    for (;;) {
      const worker = this.pickWorker();
      if (!worker) return;
      const seq = this.takeNext();
      if (seq === undefined) return;
      this.deliver(worker, seq);
    }
  }

  private pickWorker(): AttachedWorker | undefined {
    for (let i = 0; i < this.workers.length; i++) {
      const index = (this.next + i) % this.workers.length;
      const worker = this.workers[index];
      if (worker && worker.active < worker.concurrency) {
        this.next = index + 1;
        return worker;
      }
    }
    return undefined;
  }

  private takeNext(): number | undefined {
    for (let seq = this.ready.shift(); seq !== undefined; seq = this.ready.shift()) {
      if (this.stream.get(seq)) return seq;
      this.deliveries.delete(seq);
      this.settle(seq);
    }
    this.cursor = Math.max(this.cursor, this.stream.firstSeq);
    while (this.cursor <= this.stream.last) {
      const message = this.stream.get(this.cursor++);
      if (message && subjectMatches(this.filter, message.subject)) return message.seq;
    }
    return undefined;
  }

  private deliver(worker: AttachedWorker, seq: number): void {
    const stored = this.stream.get(seq);
    if (!stored) return;
    const deliveryCount = (this.deliveries.get(seq) ?? 0) + 1;
    this.deliveries.set(seq, deliveryCount);
    worker.active++;
    const message = createBusMessage({
      subject: this.stream.ns.relative(stored.subject),
      data: stored.data,
      msgId: stored.msgId,
      deliveryCount,
    });
    const run = this.run(worker, seq, message, deliveryCount).finally(() => {
      worker.active--;
      worker.inFlight.delete(run);
      this.pump();
    });
    worker.inFlight.add(run);
  }

  private async run(
    worker: AttachedWorker,
    seq: number,
    message: BusMessage,
    deliveryCount: number,
  ): Promise<void> {
    // Yield first so handlers never run inside the publisher's call stack (as with a real server).
    await Promise.resolve();
    try {
      await worker.handler(message);
      this.deliveries.delete(seq);
      this.settle(seq);
    } catch (err) {
      const delayMs = redeliveryDelayMs(deliveryCount, worker.backoffMs);
      worker.logger.warn({ err, subject: message.subject, deliveryCount, delayMs }, 'bus handler failed');
      this.redeliverAfter(seq, delayMs);
    }
  }

  private redeliverAfter(seq: number, delayMs: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.ready.push(seq);
      this.pump();
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }
}

/** Creates an empty in-process broker. */
export function createMemoryBroker(opts: MemoryBrokerOptions = {}): MemoryBroker {
  const now = opts.now ?? Date.now;
  const streams = new Map<string, MemoryStream>();
  const listeners = new Set<{ pattern: string; listener: WireListener }>();
  const timers = new Set<NodeJS.Timeout>();

  const streamOf = (ns: Namespace): MemoryStream => {
    const stream = streams.get(ns.streamName);
    if (!stream) throw new Error(`stream ${ns.streamName} does not exist`);
    return stream;
  };

  const fanOut = (wireSubject: string, data: Uint8Array, msgId: string | undefined): void => {
    for (const entry of listeners) {
      if (!subjectMatches(entry.pattern, wireSubject)) continue;
      // Checked again on delivery: an unsubscribe before the microtask runs must win.
      queueMicrotask(() => {
        if (listeners.has(entry)) entry.listener(wireSubject, data, msgId);
      });
    }
  };

  return {
    ensureStream(ns, config) {
      const existing = streams.get(ns.streamName);
      if (existing) existing.config = { ...config };
      else streams.set(ns.streamName, new MemoryStream(ns, { ...config }, now));
    },
    publish(ns, wireSubject, data, msgId) {
      const stream = streamOf(ns);
      const result = stream.append(wireSubject, data, msgId);
      // Live subscribers see every publish, duplicates included, exactly as core NATS does.
      fanOut(wireSubject, data, msgId);
      if (!result.duplicate) for (const consumer of stream.consumers.values()) consumer.pump();
      return result;
    },
    handled(ns, wireSubject, seq) {
      // Not async: the subject is read now and not kept by a suspended frame (it may be cut from a
      // large batch text the relay read, see `detached`).
      const stream = streamOf(ns);
      const waits: Array<Promise<void>> = [];
      for (const consumer of stream.consumers.values()) {
        if (subjectMatches(consumer.filter, wireSubject)) waits.push(consumer.handled(seq));
      }
      return waits.length === 0 ? Promise.resolve() : Promise.all(waits).then(() => undefined);
    },
    signal(wireSubject, data, msgId) {
      fanOut(wireSubject, data, msgId);
    },
    subscribe(wirePattern, listener) {
      const entry = { pattern: wirePattern, listener };
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
    attach(ns, durable, wireFilter, worker) {
      const stream = streamOf(ns);
      let consumer = stream.consumers.get(durable);
      if (!consumer) {
        consumer = new MemoryConsumer(stream, wireFilter, timers);
        stream.consumers.set(durable, consumer);
      } else if (consumer.filter !== wireFilter) {
        throw new ConsumerPatternConflictError(durable, consumer.filter, wireFilter);
      }
      return consumer.attach(worker);
    },
    dispose() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      listeners.clear();
    },
  };
}
