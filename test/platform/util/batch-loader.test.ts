/** Request coalescing: what goes out together, in what order, and how failures reach callers. */
import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createBatchLoader, createSharedReader } from '../../../src/platform/util/batch-loader.js';

/** Lets scheduled batches go out (a batch waits one turn; a finished one frees its slot a turn later). */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await turn();
}

/** A batch function that records its calls and answers each key doubled, when released. */
function recorder(options: { hold?: boolean } = {}) {
  const calls: number[][] = [];
  const pending: Array<() => void> = [];
  const batch = (keys: readonly number[]) =>
    new Promise<number[]>((resolve) => {
      calls.push([...keys]);
      const answer = () => resolve(keys.map((k) => k * 2));
      if (options.hold) pending.push(answer);
      else answer();
    });
  return {
    calls,
    batch,
    release: () => {
      for (const fn of pending.splice(0)) fn();
    },
  };
}

describe('createBatchLoader', () => {
  it('sends the keys asked for in one turn of the event loop as one batch, in order', async () => {
    const r = recorder();
    const loader = createBatchLoader({ batch: r.batch });
    const answers = await Promise.all([3, 1, 2, 1].map((k) => loader.load(k)));
    expect(answers).toEqual([6, 2, 4, 2]);
    expect(r.calls).toEqual([[3, 1, 2, 1]]);
  });

  it('sends a lone key by itself, at once', async () => {
    const r = recorder();
    const loader = createBatchLoader({ batch: r.batch });
    expect(await loader.load(5)).toBe(10);
    expect(await loader.load(6)).toBe(12);
    expect(r.calls).toEqual([[5], [6]]);
  });

  it('never answers a key from a batch sent before it was asked', async () => {
    const r = recorder({ hold: true });
    const loader = createBatchLoader({ batch: r.batch, maxInFlight: 1 });
    const first = loader.load(1);
    await settle();
    expect(r.calls).toEqual([[1]]);
    // Asked while [1] is out: it waits for the next batch even though the key is the same.
    const again = loader.load(1);
    const other = loader.load(2);
    await settle();
    expect(r.calls).toEqual([[1]]);
    r.release();
    expect(await first).toBe(2);
    await settle();
    expect(r.calls).toEqual([[1], [1, 2]]);
    r.release();
    expect(await Promise.all([again, other])).toEqual([2, 4]);
  });

  it('keeps at most maxInFlight batches out and splits at maxBatch', async () => {
    const r = recorder({ hold: true });
    const loader = createBatchLoader({ batch: r.batch, maxBatch: 2, maxInFlight: 2 });
    const all = Promise.all([1, 2, 3, 4, 5].map((k) => loader.load(k)));
    await settle();
    expect(r.calls).toEqual([
      [1, 2],
      [3, 4],
    ]);
    r.release();
    await settle();
    expect(r.calls).toEqual([[1, 2], [3, 4], [5]]);
    r.release();
    expect(await all).toEqual([2, 4, 6, 8, 10]);
  });

  it('rejects every caller of a failed batch, and goes on with the next one', async () => {
    let fail = true;
    const loader = createBatchLoader<number, number>({
      batch: async (keys) => {
        if (fail) throw new Error('database down');
        return keys.map((k) => k + 1);
      },
    });
    const results = await Promise.allSettled([loader.load(1), loader.load(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((results[0] as PromiseRejectedResult).reason.message).toBe('database down');
    fail = false;
    expect(await loader.load(3)).toBe(4);
  });

  it('rejects a batch that answers the wrong number of values', async () => {
    const loader = createBatchLoader<number, number>({ batch: async () => [1] });
    const results = await Promise.allSettled([loader.load(1), loader.load(2)]);
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect((results[0] as PromiseRejectedResult).reason.message).toMatch(/1 values for 2 keys/);
  });
});

describe('createSharedReader', () => {
  it('reads once for the keys of one id asked in one turn, once per other id, and again in a later turn', async () => {
    const reads: string[] = [];
    const reader = createSharedReader<{ org: number; page: string }, string>({
      idOf: (key) => `${key.org}:${key.page}`,
      read: async (key) => {
        reads.push(`${key.org}:${key.page}`);
        return `rows of ${key.org}:${key.page} #${reads.length}`;
      },
    });
    const answers = await Promise.all([
      reader.load({ org: 1, page: 'a' }),
      reader.load({ org: 1, page: 'a' }),
      reader.load({ org: 2, page: 'a' }),
      reader.load({ org: 1, page: 'a' }),
    ]);
    expect(reads).toEqual(['1:a', '2:a']);
    expect(answers).toEqual(['rows of 1:a #1', 'rows of 1:a #1', 'rows of 2:a #2', 'rows of 1:a #1']);
    // Not a cache: asked again later, read again.
    expect(await reader.load({ org: 1, page: 'a' })).toBe('rows of 1:a #3');
  });

  it('fails only the keys of a read that failed', async () => {
    const reader = createSharedReader<string, string>({
      idOf: (key) => key,
      read: async (key) => {
        if (key === 'bad') throw new Error('no such page');
        return key.toUpperCase();
      },
    });
    const [good, bad, again] = await Promise.allSettled([
      reader.load('good'),
      reader.load('bad'),
      reader.load('bad'),
    ]);
    expect(good).toEqual({ status: 'fulfilled', value: 'GOOD' });
    expect(bad).toMatchObject({ status: 'rejected', reason: { message: 'no such page' } });
    expect(again).toMatchObject({ status: 'rejected', reason: { message: 'no such page' } });
  });
});
