/** `tickSignal`: one bus signal per turn of the event loop, however many asked in it, and per interval. */
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
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

  it('sends an ask within the interval once the interval ends, one for all of them, and a later one at once', async () => {
    const sent: number[] = [];
    const started = performance.now();
    const signal = tickSignal(
      { signal: () => void sent.push(performance.now() - started) },
      'sig.test.wake',
      40,
    );
    signal();
    await nextTurn();
    expect(sent).toHaveLength(1);
    signal();
    signal();
    await nextTurn();
    expect(sent).toHaveLength(1);
    await sleep(60);
    expect(sent).toHaveLength(2);
    // Timers may fire up to a millisecond early.
    expect((sent[1] as number) - (sent[0] as number)).toBeGreaterThanOrEqual(39);
    await sleep(50);
    signal();
    await nextTurn();
    expect(sent).toHaveLength(3);
  });
});
