/** `turnEndQueue`: callbacks run together, in order, at the end of the turn they were queued in. */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { turnEndQueue } from '../../../src/platform/util/turn-end.js';

describe('turnEndQueue', () => {
  it('runs a turn’s callbacks at its end in order, no microtask between them; later ones at the next end', async () => {
    const queue = turnEndQueue();
    const log: string[] = [];
    const step = (name: string) => () => {
      log.push(name);
      queueMicrotask(() => log.push(`after ${name}`));
    };
    queue(step('a'));
    queue(step('b'));
    queue(() => queue(step('c')));
    expect(log).toEqual([]);
    await nextTurn();
    expect(log).toEqual(['a', 'b', 'after a', 'after b']);
    await nextTurn();
    expect(log).toEqual(['a', 'b', 'after a', 'after b', 'c', 'after c']);
  });
});
