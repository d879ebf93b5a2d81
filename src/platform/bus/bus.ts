/**
 * r3's event bus: one interface, two implementations (NATS JetStream across processes, in-process
 * memory for a single node without `NATS_URL`), one contract test suite.
 *
 * Terminology
 * - **prefix** (namespace): the first subject token of everything a bus sends, `r3` by default.
 *   Deployments and test files sharing one NATS use different prefixes and never see each other.
 *   Callers never write it: subjects given to and received from a bus are relative to it.
 * - **subject**: dot-separated tokens, e.g. `evt.org_1.run.42.completed` (see `subjects.ts`).
 *   `evt.…` subjects are durable events (stored in the prefix's stream); `sig.…` are wake signals.
 * - **pattern**: a subject with wildcards: `*` is exactly one token, a final `>` one or more.
 * - **stream**: the stored log of `<prefix>.evt.>` (JetStream stream `<PREFIX>_EVENTS`), bounded
 *   by age; it keeps messages whether or not anyone consumes them.
 * - **message id** (`msgId`): the publisher's id of a message; a re-publish with the same id within
 *   the duplicate window is not stored again (the outbox relay uses the outbox row id).
 * - **durable consumer**: a named cursor over the stream (`consume(name, …)`). All processes using
 *   one name share it: each message goes to one of them, is acked when the handler resolves and
 *   redelivered (after a backoff) when it throws or its process dies. It outlives the processes.
 * - **live subscription**: `subscribe(pattern, …)`: every subscriber in every process gets every
 *   matching message sent after it subscribed; nothing is stored, nothing is replayed.
 * - **announcement**: an `evt.…` message sent to live subscriptions only (`announce`), not stored:
 *   on NATS it travels as `<prefix>.live.…` (outside the stream), and a live subscription to an
 *   `evt.…` pattern listens there too and sees it under its `evt.…` subject.
 *
 * Delivery is at-least-once everywhere (architecture invariant 4): a live subscriber can see a
 * re-published duplicate (dedupe by `msgId` applies to the stream only) and a consumer can see a
 * message again after a crash. Handlers dedupe by event id.
 */

/** A message as a handler receives it. */
export interface BusMessage {
  /** Subject relative to the bus prefix, e.g. `evt.org_1.run.42.completed`. */
  readonly subject: string;
  /** The raw payload (UTF-8 JSON; empty for a signal without payload). */
  readonly data: Uint8Array;
  /** The publisher's message id, when it gave one. */
  readonly msgId?: string;
  /** Durable consumers only: 1 on the first delivery, 2 on the first redelivery, … */
  readonly deliveryCount?: number;
  /** The payload parsed as JSON (parsed once, then cached); `undefined` for an empty payload. Not validated: parse it with the wire shape's zod schema. */
  json<T = unknown>(): T;
}

/** Options of `Bus.publish`. */
export interface PublishOptions {
  /** Dedupes re-publishes within the stream's duplicate window. */
  msgId?: string;
}

/** What the stream answered to a publish. */
export interface PublishResult {
  /** Stream sequence of the stored message (of the original, for a duplicate). */
  seq: number;
  /** True when the `msgId` was already stored within the duplicate window; nothing new was stored. */
  duplicate: boolean;
}

/** A live subscription. */
export interface Subscription {
  /** Stops delivery; idempotent. */
  unsubscribe(): void;
}

/** Options of `Bus.consume`. */
export interface ConsumeOptions {
  /** How many messages this process handles at once for this consumer (default 1: in stream order). */
  concurrency?: number;
}

/** A running durable consumer in this process. */
export interface ConsumerHandle {
  /** Stops taking messages and resolves once the handlers in flight have finished (and acked). */
  stop(): Promise<void>;
}

/** One durable consumer's backlog: not yet delivered, and delivered but not yet acked. */
export interface ConsumerLag {
  consumer: string;
  pending: number;
  ackPending: number;
}

/** Result of `Bus.health`. */
export interface BusHealth {
  ok: boolean;
  detail?: string;
}

/** Handler of a live subscription; a thrown error or rejected promise is logged, never propagated. */
export type SubscriptionHandler = (msg: BusMessage) => void | Promise<void>;

/** Handler of a durable consumer: resolving acks the message, throwing redelivers it after a backoff. */
export type ConsumerHandler = (msg: BusMessage) => Promise<void>;

/** The bus. Subjects and patterns are relative to `prefix`. */
export interface Bus {
  /** The namespace prefix of every subject this bus sends and receives. */
  readonly prefix: string;
  /**
   * Durable publish of a JSON-encoded payload (a `JsonPayload` is JSON text already) to an `evt.…`
   * subject; resolves once stored.
   * Rejects on a subject outside `evt.` (nothing else is stored) or when the bus is closed.
   */
  publish(subject: string, payload: unknown, opts?: PublishOptions): Promise<PublishResult>;
  /**
   * Live-only send of an `evt.…` message: every live subscription whose pattern matches the subject
   * gets it, with its `msgId`, as it would a published one; it is not stored, so no durable consumer
   * sees it. For events no durable consumer needs (the outbox relay decides: src/platform/outbox/relay.ts).
   * Resolves once the server has it (NATS: a flush round trip, shared by the sends of one turn);
   * rejects on a subject outside `evt.` or when the bus is closed.
   */
  announce(subject: string, payload: unknown, opts?: PublishOptions): Promise<void>;
  /**
   * Live fan-out: every subscriber in every process gets every matching message (events and
   * signals) sent after the returned promise resolved (the server has registered interest by
   * then, so "subscribe, then read history" loses nothing).
   */
  subscribe(pattern: string, handler: SubscriptionHandler): Promise<Subscription>;
  /**
   * Durable, load-balanced, at-least-once consumer of `evt.…` messages matching `pattern`, starting
   * from the oldest stored message when `name` is new. A name keeps its pattern: consuming an
   * existing name with another pattern rejects (use a new name).
   */
  consume(
    name: string,
    pattern: string,
    handler: ConsumerHandler,
    opts?: ConsumeOptions,
  ): Promise<ConsumerHandle>;
  /** Fire-and-forget wake signal to a `sig.…` subject, not stored; never throws (failures are logged). */
  signal(subject: string, payload?: unknown): void;
  /** Whether the bus can publish right now (NATS: connected and the stream answers within 1 s). */
  health(): Promise<BusHealth>;
  /** NATS: the backlog of this process's durable consumers (metrics). The memory bus has none. */
  consumerLag?(): Promise<ConsumerLag[]>;
  /** Stops this bus's consumers (waiting for handlers in flight), drops its subscriptions, flushes and disconnects. Idempotent. */
  close(): Promise<void>;
}

/** The logging surface the buses use; a pino logger fits. */
export interface BusLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** A logger that drops everything (the default when none is given). */
export const silentLogger: BusLogger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};

/** Defaults shared by both implementations. */
export const BUS_DEFAULTS = {
  prefix: 'r3',
  /** How long the stream keeps a message. */
  streamMaxAgeMs: 7 * 24 * 60 * 60 * 1000,
  /** How long a `msgId` is remembered for dedupe. */
  duplicateWindowMs: 2 * 60 * 1000,
  /** Wait after failed delivery n before delivery n+1: entry n-1, the last entry repeats. */
  redeliveryBackoffMs: [250, 1_000, 5_000, 30_000, 60_000] as readonly number[],
  /**
   * NATS: how long an unacked, un-heartbeated delivery stays with its process before redelivery —
   * what a message pulled by a process that then died waits before a live one gets it (a live
   * process reports every message it holds as in progress every third of this, so a slow handler
   * keeps its message). 5 s: a `kill -9` delays the dead process's messages (webhook deliveries
   * not yet made) by at most that; it was 30 s.
   */
  ackWaitMs: 5_000,
} as const;

/** Delay before redelivering a message whose delivery number `deliveryCount` (1-based) failed. */
export function redeliveryDelayMs(deliveryCount: number, backoffMs: readonly number[]): number {
  if (backoffMs.length === 0) return 0;
  const index = Math.min(Math.max(deliveryCount, 1), backoffMs.length) - 1;
  return backoffMs[index] ?? 0;
}

/** Rejected by `consume` when `name` already exists with another pattern (a name keeps its pattern). */
export class ConsumerPatternConflictError extends Error {
  override readonly name = 'ConsumerPatternConflictError';
  constructor(consumer: string, existing: string, requested: string) {
    super(
      `durable consumer ${consumer} already exists with filter ${existing}; ` +
        `it cannot change to ${requested} (use a new consumer name)`,
    );
  }
}

/** The error a closed bus rejects with. */
export class BusClosedError extends Error {
  override readonly name = 'BusClosedError';
  constructor() {
    super('the bus is closed');
  }
}
