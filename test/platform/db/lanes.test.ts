/**
 * The pool's lanes (src/platform/db/lanes.ts) over a fake pool: who gets a freed connection, and the
 * job workers' share of the pool.
 */
import { executionAsyncResource } from 'node:async_hooks';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { holding, inLane, laned, outsideLanes } from '../../../src/platform/db/lanes.js';
import type { ConnectionSource } from '../../../src/platform/db/sql.js';

/** A pool that lends numbered fake clients without limit (the lanes do the limiting). */
function fakePool(): ConnectionSource & { out: Set<pg.Client> } {
  let n = 0;
  const out = new Set<pg.Client>();
  return {
    out,
    async acquire() {
      const client = { n: ++n } as unknown as pg.Client;
      out.add(client);
      return client;
    },
    release(client) {
      out.delete(client);
    },
  };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** An acquire of `source` in `lane`, and (`state.client`) the client once it is lent. */
function acquiring(source: ConnectionSource, lane: 'normal' | 'urgent') {
  const state = { client: null as pg.Client | null };
  const promise = inLane(lane, () => source.acquire()).then((client) => {
    state.client = client;
    return client;
  });
  return Object.assign(promise, { state });
}

describe('lanes', () => {
  it('hand a freed connection to the urgent lane first, then to requests, then to the normal lane', async () => {
    const pool = fakePool();
    const source = laned(pool, 2);
    const a = await source.acquire();
    const b = await source.acquire();
    const order: string[] = [];
    // Noted in the lane's own work, as soon as the connection is lent.
    const wait = (label: string, lane?: 'urgent' | 'normal') => {
      const acquire = () =>
        source.acquire().then((client) => {
          order.push(label);
          return client;
        });
      return lane ? inLane(lane, acquire) : acquire();
    };
    const normal = wait('normal', 'normal');
    const request = wait('request');
    const urgent = wait('urgent', 'urgent');
    await settle();
    expect(order).toEqual([]);
    source.release(a);
    source.release(b);
    await settle();
    expect(order).toEqual(['urgent', 'request']);
    source.release(await urgent);
    await settle();
    expect(order).toEqual(['urgent', 'request', 'normal']);
    source.release(await request);
    source.release(await normal);
    expect(pool.out.size).toBe(0);
  });

  it('let the job workers hold half the connections (rounded up), requests all of them', async () => {
    const pool = fakePool();
    const source = laned(pool, 5);
    const jobs = await Promise.all([1, 2, 3].map(() => inLane('normal', () => source.acquire())));
    let fourth = false;
    const waiting = inLane('normal', () => source.acquire()).then((client) => {
      fourth = true;
      return client;
    });
    await settle();
    expect(fourth).toBe(false);
    // Requests still get the two the workers may not take.
    const requests = await Promise.all([source.acquire(), source.acquire()]);
    expect(pool.out.size).toBe(5);
    source.release(jobs[0] as pg.Client);
    expect(await waiting).toBeDefined();
    for (const client of [...jobs.slice(1), ...requests, await waiting]) source.release(client);
    expect(pool.out.size).toBe(0);
  });

  it('focus the workers on urgent work while it is under way: a fifth of the pool, urgent first, until the window after it', async () => {
    const pool = fakePool();
    const source = laned(pool, 10, { focusWindowMs: 100 });
    const taken = (lane: 'normal' | 'urgent') => acquiring(source, lane);
    // No urgent work: the workers hold half the pool (5 of 10).
    const normals = await Promise.all([1, 2, 3, 4, 5].map(() => inLane('normal', () => source.acquire())));
    const sixth = taken('normal');
    const urgent = taken('urgent');
    await settle();
    expect([sixth.state.client, urgent.state.client]).toEqual([null, null]);
    // Urgent work waits: the workers now hold at most 2 of 10, and the urgent lane goes first.
    for (const client of normals.slice(0, 3)) source.release(client);
    await settle();
    expect([sixth.state.client, urgent.state.client]).toEqual([null, null]);
    source.release(normals[3] as pg.Client);
    await settle();
    expect(urgent.state.client).not.toBeNull();
    expect(sixth.state.client).toBeNull();
    // Requests are not held back.
    const request = await source.acquire();
    // The urgent statement done, the normal lane gets the focused share's other connection, no more.
    source.release(await urgent);
    await settle();
    expect(sixth.state.client).not.toBeNull();
    const seventh = taken('normal');
    await settle();
    expect(seventh.state.client).toBeNull();
    // The window after the last urgent statement passed: half the pool again, the waiter first.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const more = await Promise.all([1, 2].map(() => inLane('normal', () => source.acquire())));
    expect(seventh.state.client).not.toBeNull();
    expect(pool.out.size).toBe(6);
    const eighth = taken('normal');
    await settle();
    expect(eighth.state.client).toBeNull();
    source.release(normals[4] as pg.Client);
    expect(await eighth).toBeDefined();
    for (const client of [request, await sixth, await seventh, await eighth, ...more]) source.release(client);
    expect(pool.out.size).toBe(0);
  });

  it('hold the normal lane to one job connection in all while held, not the urgent lane nor requests, and give the share back after', async () => {
    const pool = fakePool();
    const source = laned(pool, 10, { focusWindowMs: 20 });
    const taken = (lane: 'normal' | 'urgent') => acquiring(source, lane);
    source.holdJobs(100);
    const first = await inLane('normal', () => source.acquire());
    const second = taken('normal');
    await settle();
    expect(second.state.client).toBeNull();
    // Requests and the urgent lane (within its focused share: two of ten) are not held.
    const requests = await Promise.all([1, 2, 3].map(() => source.acquire()));
    const urgent = await inLane('urgent', () => source.acquire());
    // Job work holds two: the normal lane waits until it holds none, then takes one.
    source.release(first);
    await settle();
    expect(second.state.client).toBeNull();
    source.release(urgent);
    await settle();
    expect(second.state.client).not.toBeNull();
    const third = taken('normal');
    await settle();
    expect(third.state.client).toBeNull();
    // Held again before it ended: the hold lasts from the latest call.
    await new Promise((resolve) => setTimeout(resolve, 60));
    source.holdJobs(100);
    await new Promise((resolve) => setTimeout(resolve, 60));
    source.release(requests[0] as pg.Client);
    await settle();
    expect(third.state.client).toBeNull();
    // Over: the waiter first, then half the pool (five of ten) again.
    await new Promise((resolve) => setTimeout(resolve, 80));
    source.release(requests[1] as pg.Client);
    await settle();
    expect(third.state.client).not.toBeNull();
    const more = await Promise.all([1, 2, 3].map(() => inLane('normal', () => source.acquire())));
    const sixth = taken('normal');
    await settle();
    expect(sixth.state.client).toBeNull();
    for (const client of [await second, await third, ...more, requests[2] as pg.Client])
      source.release(client);
    source.release(await sixth);
    expect(pool.out.size).toBe(0);
  });

  it('never hold back work that already holds a connection, nor work outside the lanes', async () => {
    const pool = fakePool();
    const source = laned(pool, 2);
    const held = await inLane('normal', () => source.acquire());
    // The workers' share (1) is taken; a second connection asked for while holding one is not waited for.
    const nested = await inLane('normal', () => holding(() => source.acquire()));
    source.release(nested);
    const outside = await inLane('urgent', () => outsideLanes(() => source.acquire()));
    source.release(outside);
    source.release(held);
    expect(pool.out.size).toBe(0);
  });

  it('keep work in its lane while other lane work ends, and run no promise hooks once the last has ended', async () => {
    // With Node's promise hooks on, an async function resumes in a promise's async resource.
    const hooksOn = async () => {
      await null;
      return executionAsyncResource() instanceof Promise;
    };
    expect(await hooksOn()).toBe(false);
    const pool = fakePool();
    const source = laned(pool, 2);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const first = inLane('normal', () => gate);
    const second = inLane('urgent', async () => {
      await first;
      await settle();
      // Still the urgent lane's: its share (a fifth of 2: 1) holds the next one back.
      const held = await source.acquire();
      let next: pg.Client | null = null;
      const asked = source.acquire().then((client) => {
        next = client;
      });
      await settle();
      expect(next).toBeNull();
      source.release(held);
      await asked;
      source.release(next as unknown as pg.Client);
    });
    open();
    await second;
    await settle();
    expect(pool.out.size).toBe(0);
    expect(await hooksOn()).toBe(false);
    // The lanes work again after that.
    const again = await inLane('normal', () => source.acquire());
    const blocked = inLane('normal', () => source.acquire());
    let waited = true;
    void blocked.then(() => {
      waited = false;
    });
    await settle();
    expect(waited).toBe(true);
    source.release(again);
    source.release(await blocked);
  });
});
