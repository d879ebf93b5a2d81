/** `tickSignal`: one bus signal per turn of the event loop, however many asked in it. */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { tickSignal } from '../../../src/platform/bus/tick-signal.js';

describe('tickSignal', () => {
  it('sends one signal for the calls of a turn, at its end, and one again for a later turn', async () => {
    const sent: string[] = [];
    const signal = tickSignal({ signal: (subject) => void sent.push(subject) }, 'sig.test.wake');
    signal();
    signal();
    signal();
    expect(sent).toEqual([]);
    await nextTurn();
    expect(sent).toEqual(['sig.test.wake']);
    signal();
    await nextTurn();
    expect(sent).toEqual(['sig.test.wake', 'sig.test.wake']);
  });
});
