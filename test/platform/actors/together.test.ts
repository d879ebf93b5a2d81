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

/** Work that records `name` in its transaction and answers it. */
const work = (name: string) => async (tx: ActorTx) => {
  (tx as unknown as { log: string[] }).log.push(name);
  return name;
};

describe('transactions of one parent, together', () => {
  it('run in one transaction when they start while the first waits for its connection', async () => {
    const { host, transactions, connect } = gatedHost();
    const together = transactTogether(host);
    const a = together('mission:1', work('a'));
    const b = together('mission:1', work('b'));
    const other = together('mission:2', work('x'));
    await connect();
    await connect();
    expect(await Promise.all([a, b, other])).toEqual(['a', 'b', 'x']);
    expect(transactions).toEqual([['a', 'b'], ['x']]);
  });

  it('close once their function starts: a later one starts a group of its own', async () => {
    const { host, transactions, connect } = gatedHost();
    const together = transactTogether(host);
    const started = deferred<void>();
    const release = deferred<void>();
    const first = together('mission:1', async (tx) => {
      started.resolve();
      await release.promise;
      return work('a')(tx);
    });
    await connect();
    await started.promise;
    const later = together('mission:1', work('b'));
    release.resolve();
    await connect();
    expect(await Promise.all([first, later])).toEqual(['a', 'b']);
    expect(transactions).toEqual([['a'], ['b']]);
  });

  it("run each member alone when the group fails, so one member's failure is its own", async () => {
    const { host, transactions, connect } = gatedHost();
    const together = transactTogether(host);
    const good = together('mission:1', work('good'));
    const bad = together('mission:1', async () => {
      throw new Error('bad member');
    });
    const outcomes = Promise.allSettled([good, bad]);
    for (let i = 0; i < 3; i++) await connect();
    const [ok, failed] = await outcomes;
    expect(ok).toEqual({ status: 'fulfilled', value: 'good' });
    expect(failed).toMatchObject({ status: 'rejected', reason: new Error('bad member') });
    // The group (rolled back), then each member in a transaction of its own.
    expect(transactions).toEqual([['good'], ['good'], []]);
  });

  it('fail a group of one with its error, and leave no group behind', async () => {
    const { host, transactions, connect } = gatedHost();
    const together = transactTogether(host);
    const failing = together('mission:1', async () => {
      throw new Error('alone');
    });
    await connect();
    await expect(failing).rejects.toThrow('alone');
    const next = together('mission:1', work('next'));
    await connect();
    expect(await next).toBe('next');
    expect(transactions).toEqual([[], ['next']]);
  });
});
