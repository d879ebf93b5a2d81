/**
 * The pool's lanes (src/platform/db/lanes.ts) over a fake pool: who gets a freed connection, and the
 * job workers' share of the pool.
 */
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

describe('lanes', () => {
  it('hand a freed connection to the urgent lane first, then to requests, then to the normal lane', async () => {
    const pool = fakePool();
    const source = laned(pool, 2);
    const a = await source.acquire();
    const b = await source.acquire();
    const order: string[] = [];
    const wait = (label: string, acquire: () => Promise<pg.Client>) =>
      acquire().then((client) => {
        order.push(label);
        return client;
      });
    const normal = wait('normal', () => inLane('normal', () => source.acquire()));
    const request = wait('request', () => source.acquire());
    const urgent = wait('urgent', () => inLane('urgent', () => source.acquire()));
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
    const waiting = inLane('urgent', () => source.acquire()).then((client) => {
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
});
