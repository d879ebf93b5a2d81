/**
 * Group commit of transactions that tell one parent something (together.ts), over a host whose
 * transactions wait for a connection until the test lets them have one: who joins a group, when it
 * closes, and what a failure does.
 */
import { describe, expect, it } from 'vitest';
import type { ActorHost, ActorTx } from '../../../src/platform/actors/host.js';
import { transactTogether } from '../../../src/platform/actors/together.js';
import { deferred } from '../../helpers/wait.js';

/** A host whose `transact` waits for `connect()` before each transaction's function runs. */
function gatedHost() {
  const waiting: Array<() => void> = [];
  const transactions: string[][] = [];
  const host: Pick<ActorHost, 'transact'> = {
    async transact(fn) {
      await new Promise<void>((resolve) => waiting.push(resolve));
      const log: string[] = [];
      transactions.push(log);
      return fn({ log } as unknown as ActorTx);
    },
  };
  /** Lets the oldest waiting transaction have its connection. */
  const connect = async () => {
    for (let i = 0; i < 20 && waiting.length === 0; i++) await new Promise((r) => setImmediate(r));
    waiting.shift()?.();
  };
  return { host, transactions, connect };
}

/** Records its items in the transaction and answers each upper-cased; `bad` fails it. */
async function run(tx: ActorTx, items: string[]): Promise<string[]> {
  (tx as unknown as { log: string[] }).log.push(...items);
  if (items.includes('bad')) throw new Error('bad item');
  return items.map((item) => item.toUpperCase());
}

describe('transactions of one parent, together', () => {
  it('run in one transaction when they arrive while the first waits for its connection', async () => {
    const { host, transactions, connect } = gatedHost();
    const together = transactTogether(host, run);
    const a = together('mission:1', 'a');
    const b = together('mission:1', 'b');
    const other = together('mission:2', 'x');
    await connect();
    await connect();
    expect(await Promise.all([a, b, other])).toEqual(['A', 'B', 'X']);
    expect(transactions).toEqual([['a', 'b'], ['x']]);
  });

  it('close once their function starts: a later one starts a group of its own', async () => {
    const { host, transactions, connect } = gatedHost();
    const started = deferred<void>();
    const release = deferred<void>();
    const together = transactTogether(host, async (tx, items: string[]) => {
      if (items.includes('slow')) {
        started.resolve();
        await release.promise;
      }
      return run(tx, items);
    });
    const first = together('mission:1', 'slow');
    await connect();
    await started.promise;
    const later = together('mission:1', 'b');
    release.resolve();
    await connect();
    expect(await Promise.all([first, later])).toEqual(['SLOW', 'B']);
    expect(transactions).toEqual([['slow'], ['b']]);
  });

  it("run each item alone when the group fails, so one item's failure is its own", async () => {
    const { host, transactions, connect } = gatedHost();
    const together = transactTogether(host, run);
    const outcomes = Promise.allSettled([together('mission:1', 'good'), together('mission:1', 'bad')]);
    for (let i = 0; i < 3; i++) await connect();
    const [ok, failed] = await outcomes;
    expect(ok).toEqual({ status: 'fulfilled', value: 'GOOD' });
    expect(failed).toMatchObject({ status: 'rejected', reason: new Error('bad item') });
    // The group (rolled back), then each item in a transaction of its own.
    expect(transactions).toEqual([['good', 'bad'], ['good'], ['bad']]);
  });

  it('fail a group of one with its error, and leave no group behind', async () => {
    const { host, transactions, connect } = gatedHost();
    const together = transactTogether(host, run);
    const failing = together('mission:1', 'bad');
    await connect();
    await expect(failing).rejects.toThrow('bad item');
    const next = together('mission:1', 'next');
    await connect();
    expect(await next).toBe('NEXT');
    expect(transactions).toEqual([['bad'], ['next']]);
  });
});
