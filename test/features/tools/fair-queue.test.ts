/**
 * FairQueue (src/features/tools/fair-queue.ts): jobs start round-robin across owners, at most
 * `perOwner` of one owner at once, an owner's queue is bounded, and `startable` counts what shares
 * allow.
 */
import { describe, expect, it } from 'vitest';
import { FairQueue } from '../../../src/features/tools/fair-queue.js';

describe('FairQueue', () => {
  it('takes jobs round-robin across owners, whatever order they were queued in', () => {
    const queue = new FairQueue<string>({ perOwner: 10, queuePerOwner: 10 });
    for (const job of ['a1', 'a2', 'a3', 'a4']) queue.push('a', job);
    queue.push('b', 'b1');
    queue.push('b', 'b2');
    queue.push('c', 'c1');
    const order = Array.from({ length: 7 }, () => queue.take());
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
    expect(queue.take()).toBeUndefined();
  });

  it('starts at most perOwner jobs of one owner until one finishes', () => {
    const queue = new FairQueue<string>({ perOwner: 1, queuePerOwner: 10 });
    for (const job of ['a1', 'a2', 'a3']) queue.push('a', job);
    expect(queue.take()).toBe('a1');
    expect(queue.startable).toBe(0);
    expect(queue.take()).toBeUndefined();
    // Another owner is not held up by a's share.
    queue.push('b', 'b1');
    expect(queue.startable).toBe(1);
    expect(queue.take()).toBe('b1');
    queue.finished('a');
    expect(queue.startable).toBe(1);
    expect(queue.take()).toBe('a2');
    expect(queue.size).toBe(1);
  });

  it('refuses a job beyond the owner’s queue, not another owner’s', () => {
    const queue = new FairQueue<number>({ perOwner: 1, queuePerOwner: 2 });
    expect(queue.push('a', 1)).toBe(true);
    expect(queue.push('a', 2)).toBe(true);
    expect(queue.push('a', 3)).toBe(false);
    expect(queue.push('b', 4)).toBe(true);
    // Taking one makes room again.
    expect(queue.take()).toBe(1);
    expect(queue.push('a', 5)).toBe(true);
  });

  it('skips owners the caller refuses, keeping their turn', () => {
    const queue = new FairQueue<string>({ perOwner: 5, queuePerOwner: 5 });
    queue.push('a', 'a1');
    queue.push('a', 'a2');
    queue.push('b', 'b1');
    // Only an owner running nothing with nothing else waiting.
    const light = ({ running, waiting }: { running: number; waiting: number }) =>
      running === 0 && waiting === 1;
    expect(queue.take(light)).toBe('b1');
    expect(queue.take(light)).toBeUndefined();
    expect(queue.take()).toBe('a1');
  });

  it('drains every waiting job', () => {
    const queue = new FairQueue<number>({ perOwner: 1, queuePerOwner: 5 });
    queue.push('a', 1);
    queue.push('b', 2);
    queue.push('a', 3);
    expect(queue.drain().sort()).toEqual([1, 2, 3]);
    expect(queue.size).toBe(0);
    expect(queue.take()).toBeUndefined();
  });
});
