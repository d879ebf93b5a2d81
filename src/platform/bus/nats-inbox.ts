/**
 * Requests whose answers gather on one inbox subscription: JetStream publishes (answered by the
 * stream's ack) and confirmed consumer acks (answered by the server once it recorded the ack).
 *
 * nats.js makes each of these a `RequestOne`, which arms a timer and builds an error object per
 * request, for a cancellation it then throws away once the answer came — a large share of r3's CPU
 * while the relay publishes and the dispatcher acks (docs/performance.md, "Choices in the code"). Every request here gets a token on
 * one `<inbox>.*` subscription, pending requests wait in insertion order — their deadlines are in
 * the same order, the timeout being one — and one sweep rejects those past their deadline.
 */
import { createInbox, headers, type Msg, type NatsConnection } from '@nats-io/transport-node';

/** A status answer (no responders: 503) or an error the stream answered with. */
export class NatsRequestError extends Error {
  override readonly name = 'NatsRequestError';
  constructor(
    message: string,
    /** The HTTP-like status (503: nobody takes the subject). */
    readonly code: number,
    /** JetStream's own error code, when the stream answered one. */
    readonly errCode: number | null = null,
  ) {
    super(message);
  }
}

/** A request that got no answer within the timeout. */
export class NatsRequestTimeout extends Error {
  override readonly name = 'NatsRequestTimeout';
}

export interface ReplyInbox {
  /**
   * Publishes `data` to `subject` with a reply subject on the inbox and resolves with the answer;
   * rejects with `NatsRequestError` on a status answer, `NatsRequestTimeout` after the timeout.
   */
  request(subject: string, data: Uint8Array, headerValues?: Readonly<Record<string, string>>): Promise<Msg>;
  /** Unsubscribes; pending requests reject with `reason`, later ones too. */
  close(reason: Error): void;
}

interface Pending {
  subject: string;
  deadline: number;
  resolve(m: Msg): void;
  reject(error: Error): void;
}

/** An inbox on `nc` whose requests fail after `timeoutMs` without an answer (± a fifth of it). */
export function createReplyInbox(nc: NatsConnection, options: { timeoutMs: number }): ReplyInbox {
  const { timeoutMs } = options;
  const inbox = createInbox();
  const tokenAt = inbox.length + 1;
  const pending = new Map<string, Pending>();
  let next = 0;
  let closed: Error | null = null;

  const failAll = (reason: Error) => {
    for (const waiting of pending.values()) waiting.reject(reason);
    pending.clear();
  };

  const sub = nc.subscribe(`${inbox}.*`, {
    callback: (err, m) => {
      if (err) {
        failAll(err);
        return;
      }
      const token = m.subject.slice(tokenAt);
      const waiting = pending.get(token);
      if (!waiting) return; // answered after its timeout
      pending.delete(token);
      const status = m.headers?.code ?? 0;
      if (status === 503) waiting.reject(new NatsRequestError(`no responders for ${waiting.subject}`, 503));
      else if (status >= 300) {
        const detail = m.headers?.description || String(status);
        waiting.reject(new NatsRequestError(`${waiting.subject}: ${detail}`, status));
      } else waiting.resolve(m);
    },
  });

  // Deadlines are in insertion order: the sweep stops at the first one still ahead.
  const sweep = setInterval(
    () => {
      const now = performance.now();
      for (const [token, waiting] of pending) {
        if (waiting.deadline > now) break;
        pending.delete(token);
        waiting.reject(new NatsRequestTimeout(`${waiting.subject}: no answer within ${timeoutMs} ms`));
      }
    },
    Math.max(1, Math.floor(timeoutMs / 5)),
  );
  sweep.unref();

  return {
    request(subject, data, headerValues) {
      if (closed) return Promise.reject(closed);
      const token = (next++).toString(36);
      let hdrs: ReturnType<typeof headers> | undefined;
      if (headerValues) {
        hdrs = headers();
        for (const name in headerValues) hdrs.set(name, headerValues[name] as string);
      }
      return new Promise<Msg>((resolve, reject) => {
        pending.set(token, { subject, deadline: performance.now() + timeoutMs, resolve, reject });
        try {
          nc.publish(subject, data, { reply: `${inbox}.${token}`, ...(hdrs ? { headers: hdrs } : {}) });
        } catch (err) {
          pending.delete(token);
          reject(err as Error);
        }
      });
    },
    close(reason) {
      if (closed) return;
      closed = reason;
      clearInterval(sweep);
      failAll(reason);
      if (!sub.isClosed()) sub.unsubscribe();
    },
  };
}

/** A stored message's place in its stream. */
export interface PubAck {
  stream: string;
  seq: number;
  duplicate: boolean;
}

interface AckJson {
  stream?: unknown;
  seq?: unknown;
  duplicate?: unknown;
  error?: { code?: number; err_code?: number; description?: string };
}

/**
 * Publishes `data` to the stream that takes `subject`, deduplicated by `msgId` within its window,
 * and resolves with the stream's ack: what nats.js's `js.publish` answers with its default options
 * (one attempt), with the same failures (no stream: status 503; an error the stream answered).
 */
export async function publishToStream(
  inbox: ReplyInbox,
  subject: string,
  data: Uint8Array,
  msgId?: string,
): Promise<PubAck> {
  const m = await inbox.request(subject, data, msgId === undefined ? undefined : { 'Nats-Msg-Id': msgId });
  let ack: AckJson;
  try {
    ack = m.json<AckJson>();
  } catch {
    throw new NatsRequestError(`${subject}: the stream's ack is not JSON`, 500);
  }
  if (ack.error) {
    const { code = 500, err_code: errCode = null, description = 'unknown error' } = ack.error;
    throw new NatsRequestError(`${subject}: ${description}`, code, errCode);
  }
  if (typeof ack.stream !== 'string' || ack.stream === '' || typeof ack.seq !== 'number') {
    throw new NatsRequestError(`${subject}: invalid ack from the stream`, 500);
  }
  return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate === true };
}
