/**
 * The statement batcher's pipelining (src/platform/actors/batcher.ts), with fakes for the pool and
 * the leased connection, so each statement's answer comes when the test says: the first statement
 * goes out at once, a second one behind it only once `fill` transitions queue, both on one leased
 * connection given back when none is in flight; a batch that fails is retried transition by
 * transition on the pool. What pipelining means in PostgreSQL (one session, in order, each its own
 * transaction) is test/platform/db/pool.test.ts's; the host's creations through it, host.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { createStatementBatcher } from '../../../src/platform/actors/batcher.js';
import {
  mergeRows,
  type StatementVariants,
  type TransitionRows,
} from '../../../src/platform/actors/statements.js';
import type { Lease, Sql } from '../../../src/platform/db/sql.js';

/** One creation's rows: actor `id` (every other array empty). */
function rows(id: number): TransitionRows {
  return { ...mergeRows([]), actors: [{ id }] };
}

const statements: StatementVariants = {
  for: () => ({ name: 'test_create', text: 'insert …', params: ['actors'] }),
};

/** A statement sent: the ids it carries, and how to answer it. */
interface Sent {
  on: string;
  ids: number[];
  answer(): void;
  fail(error: Error): void;
}

/** A connection named `on` whose statements wait for the test to answer them (in `sent`). */
function connection(on: string, sent: Sent[]): Sql {
  const prepared = (_name: string, _text: string, values?: readonly unknown[]) =>
    new Promise<never[]>((resolve, reject) => {
      const ids = (JSON.parse(String(values?.[0])) as Array<{ id: number }>).map((r) => r.id);
      sent.push({
        on,
        ids,
        answer: () => resolve(ids.map((id) => ({ id })) as never[]),
        fail: reject,
      });
    });
  const unused = () => {
    throw new Error('not used by the batcher');
  };
  return { prepared, query: unused, one: unused, maybeOne: unused } as Sql;
}

/** A batcher pipelining on leases of connections `lease-1`, `lease-2`, …, over pool connection `pool`. */
function pipelined(fill: number) {
  const sent: Sent[] = [];
  const leases: Array<{ name: string; released: boolean; failure: unknown }> = [];
  const batcher = createStatementBatcher({
    sql: connection('pool', sent),
    statements,
    maxInFlight: 2,
    pipelining: {
      fill,
      lease: async (): Promise<Lease> => {
        const record = { name: `lease-${leases.length + 1}`, released: false, failure: undefined as unknown };
        leases.push(record);
        return {
          sql: connection(record.name, sent),
          release: (failure) => {
            record.released = true;
            record.failure = failure;
          },
        };
      },
    },
  });
  return { batcher, sent, leases };
}

/** Lets queued continuations run (the lease's promise, the statement's send). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('a pipelining statement batcher', () => {
  it('sends the first statement at once, and a second behind it on the same connection only once `fill` transitions queue', async () => {
    const { batcher, sent, leases } = pipelined(3);
    const first = batcher.submit(rows(1), 1);
    await settle();
    expect(sent.map((s) => [s.on, s.ids])).toEqual([['lease-1', [1]]]);
    // Two queued: fewer than `fill`, so they wait for the statement in flight.
    const waiting = [batcher.submit(rows(2), 2), batcher.submit(rows(3), 3)];
    await settle();
    expect(sent).toHaveLength(1);
    // The third makes `fill`: they go out together behind the first, on its connection.
    waiting.push(batcher.submit(rows(4), 4));
    await settle();
    expect(sent.map((s) => [s.on, s.ids])).toEqual([
      ['lease-1', [1]],
      ['lease-1', [2, 3, 4]],
    ]);
    // At most two in flight: more queue, whatever their number, until one is answered.
    const later = [5, 6, 7, 8].map((id) => batcher.submit(rows(id), id));
    await settle();
    expect(sent).toHaveLength(2);
    sent[0]?.answer();
    await expect(first).resolves.toBe(true);
    await settle();
    expect(sent.map((s) => [s.on, s.ids])[2]).toEqual(['lease-1', [5, 6, 7, 8]]);
    expect(leases).toHaveLength(1);
    expect(leases[0]?.released).toBe(false);
    sent[1]?.answer();
    sent[2]?.answer();
    await expect(Promise.all([...waiting, ...later])).resolves.toEqual(Array(7).fill(true));
    await settle();
    // None in flight: the connection is given back, and the next statement leases one anew.
    expect(leases[0]).toMatchObject({ released: true, failure: undefined });
    const next = batcher.submit(rows(9), 9);
    await settle();
    expect(sent.map((s) => s.on)[3]).toBe('lease-2');
    sent[3]?.answer();
    await expect(next).resolves.toBe(true);
  });

  it('sends a batch smaller than `fill` once the statement in flight is answered, borrowing anew', async () => {
    const { batcher, sent, leases } = pipelined(24);
    const first = batcher.submit(rows(1), 1);
    await settle();
    const second = batcher.submit(rows(2), 2);
    await settle();
    expect(sent).toHaveLength(1);
    sent[0]?.answer();
    await first;
    await settle();
    // None was in flight in between: the first connection went back before the second statement.
    expect(leases[0]?.released).toBe(true);
    expect(sent.map((s) => [s.on, s.ids])[1]).toEqual(['lease-2', [2]]);
    sent[1]?.answer();
    await expect(second).resolves.toBe(true);
  });

  it('retries a failed batch transition by transition on the pool, and gives the connection back with the failure', async () => {
    const { batcher, sent, leases } = pipelined(2);
    const first = batcher.submit(rows(1), 1);
    await settle();
    const batch = [2, 3].map((id) => batcher.submit(rows(id), id));
    await settle();
    expect(sent.map((s) => [s.on, s.ids])).toEqual([
      ['lease-1', [1]],
      ['lease-1', [2, 3]],
    ]);
    const failure = new Error('insert or update on table "runs" violates foreign key constraint');
    sent[1]?.fail(failure);
    await settle();
    // The statement in flight ahead of it is not affected; the failed batch's two go to the pool.
    expect(sent.slice(2).map((s) => [s.on, s.ids])).toEqual([
      ['pool', [2]],
      ['pool', [3]],
    ]);
    sent[2]?.answer();
    sent[3]?.fail(failure);
    await expect(batch[0]).resolves.toBe(true);
    await expect(batch[1]).rejects.toBe(failure);
    expect(leases[0]?.released).toBe(false);
    sent[0]?.answer();
    await expect(first).resolves.toBe(true);
    await settle();
    expect(leases[0]).toMatchObject({ released: true, failure });
  });

  it('fails a transition it could not lease a connection for, and retries a batch on the pool', async () => {
    const sent: Sent[] = [];
    const refused = new Error('the pool is closed');
    const batcher = createStatementBatcher({
      sql: connection('pool', sent),
      statements,
      maxInFlight: 2,
      pipelining: { fill: 10, lease: () => Promise.reject(refused) },
    });
    // The first goes alone and fails with the lease's error; the two behind it go out as one batch
    // once it is done, fail the same way, and are retried one at a time on the pool.
    const results = [1, 2, 3].map((id) => batcher.submit(rows(id), id));
    await expect(results[0]).rejects.toBe(refused);
    while (sent.length < 2) await settle();
    expect(sent.map((s) => [s.on, s.ids])).toEqual([
      ['pool', [2]],
      ['pool', [3]],
    ]);
    for (const s of sent) s.answer();
    await expect(Promise.all(results.slice(1))).resolves.toEqual([true, true]);
  });
});
