import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createReplyInbox,
  NatsRequestError,
  NatsRequestTimeout,
  publishToStream,
  type ReplyInbox,
} from '../../../src/platform/bus/nats-inbox.js';
import { probeNats, randomTestPrefix, requireNats } from '../../helpers/nats.js';

const nats = await probeNats();
const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text);

describe.skipIf(nats.skip)('NATS reply inbox', () => {
  let nc: NatsConnection;
  let inbox: ReplyInbox;
  const prefix = randomTestPrefix('inbox');
  const stream = `${prefix}_stream`;

  beforeAll(async () => {
    requireNats(nats);
    nc = await connect({ servers: nats.url });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: stream, subjects: [`${prefix}.stored.>`] });
    inbox = createReplyInbox(nc, { timeoutMs: 300 });
  });

  afterAll(async () => {
    inbox?.close(new Error('test over'));
    if (nc) {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.delete(stream).catch(() => false);
      await nc.close();
    }
  });

  /** A core subscriber on `subject` answering each request with `reply(data, n)` (none when it returns null). */
  function responder(subject: string, reply: (data: string, n: number) => string | null) {
    let n = 0;
    const sub = nc.subscribe(subject, {
      callback: (_err, m) => {
        const answer = reply(m.string(), n++);
        if (answer !== null) m.respond(bytes(answer));
      },
    });
    return sub;
  }

  it('publishes to a stream and answers its ack; a repeated message id is a duplicate of the first', async () => {
    const subject = `${prefix}.stored.a`;
    const first = await publishToStream(inbox, subject, bytes('{"n":1}'), 'id-1');
    const again = await publishToStream(inbox, subject, bytes('{"n":1}'), 'id-1');
    const other = await publishToStream(inbox, subject, bytes('{"n":2}'));
    expect(first).toEqual({ stream, seq: expect.any(Number), duplicate: false });
    expect(again).toEqual({ stream, seq: first.seq, duplicate: true });
    expect(other).toEqual({ stream, seq: first.seq + 1, duplicate: false });
    const jsm = await jetstreamManager(nc);
    const stored = await jsm.streams.getMessage(stream, { seq: first.seq });
    expect(stored?.string()).toBe('{"n":1}');
    expect(stored?.header.get('Nats-Msg-Id')).toBe('id-1');
  });

  it('gives each of many concurrent requests its own answer, whatever order they come back in', async () => {
    const subject = `${prefix}.echo`;
    const held: Array<() => void> = [];
    const sub = nc.subscribe(subject, {
      callback: (_err, m) => {
        held.push(() => m.respond(bytes(`answer to ${m.string()}`)));
        // Answer all 50 at once, last first.
        if (held.length === 50) for (const send of held.reverse()) send();
      },
    });
    try {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => inbox.request(subject, bytes(`q${i}`)).then((m) => m.string())),
      );
      expect(answers).toEqual(Array.from({ length: 50 }, (_, i) => `answer to q${i}`));
    } finally {
      sub.unsubscribe();
    }
  });

  it('rejects with status 503 when nothing takes the subject (no stream)', async () => {
    const error = await publishToStream(inbox, `${prefix}.nowhere.x`, bytes('{}')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NatsRequestError);
    expect(error).toMatchObject({ code: 503, message: expect.stringContaining(`${prefix}.nowhere.x`) });
  });

  it("rejects with the stream's error, and on an ack that is not one", async () => {
    const subject = `${prefix}.fake`;
    const answers = [
      '{"error":{"code":400,"err_code":10060,"description":"expected stream does not match"}}',
      'not json',
      '{"seq":4}',
      '{"stream":"s","seq":"4"}',
    ];
    const sub = responder(subject, (_data, n) => answers[n] ?? null);
    try {
      const outcomes = [];
      for (let i = 0; i < answers.length; i++) {
        outcomes.push(await publishToStream(inbox, subject, bytes('{}')).catch((e: unknown) => e));
      }
      for (const outcome of outcomes) expect(outcome).toBeInstanceOf(NatsRequestError);
      expect(outcomes[0]).toMatchObject({
        code: 400,
        errCode: 10060,
        message: `${subject}: expected stream does not match`,
      });
      expect(outcomes[1]).toMatchObject({ code: 500, message: expect.stringContaining('not JSON') });
      expect(outcomes[2]).toMatchObject({ code: 500, message: expect.stringContaining('invalid ack') });
      expect(outcomes[3]).toMatchObject({ code: 500, message: expect.stringContaining('invalid ack') });
    } finally {
      sub.unsubscribe();
    }
  });

  it('rejects after its timeout when a subscriber never answers, and ignores an answer that comes later', async () => {
    const subject = `${prefix}.silent`;
    const late: Array<() => void> = [];
    const sub = nc.subscribe(subject, {
      callback: (_err, m) => {
        late.push(() => m.respond(bytes('{"stream":"s","seq":1}')));
      },
    });
    try {
      const started = performance.now();
      const error = await publishToStream(inbox, subject, bytes('{}')).catch((e: unknown) => e);
      const waited = performance.now() - started;
      expect(error).toBeInstanceOf(NatsRequestTimeout);
      expect(waited).toBeGreaterThanOrEqual(300);
      // The sweep runs every fifth of the timeout: a request fails within one more fifth.
      expect(waited).toBeLessThan(1_000);
      // The answer arriving now finds nothing waiting; the inbox goes on serving new requests.
      for (const send of late) send();
      const echo = responder(`${prefix}.after`, (data) => `ok ${data}`);
      try {
        expect((await inbox.request(`${prefix}.after`, bytes('x'))).string()).toBe('ok x');
      } finally {
        echo.unsubscribe();
      }
    } finally {
      sub.unsubscribe();
    }
  });

  it('close() rejects what is pending and every later request with its reason', async () => {
    const own = createReplyInbox(nc, { timeoutMs: 60_000 });
    const subject = `${prefix}.never`;
    const sub = nc.subscribe(subject, { callback: () => undefined });
    try {
      const pending = own.request(subject, bytes('x')).catch((e: unknown) => e);
      await nc.flush();
      const reason = new Error('bus closing');
      own.close(reason);
      expect(await pending).toBe(reason);
      await expect(own.request(subject, bytes('y'))).rejects.toBe(reason);
    } finally {
      sub.unsubscribe();
    }
  });
});
