/** `tickSignal`: one bus signal per turn of the event loop, however many asked in it, and per interval. */
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
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

  it('sends the signals of one bus due in a turn together, no microtask between them (one socket write)', async () => {
    // A NATS client flushes what was published at the next microtask: one flush for both.
    const log: string[] = [];
    const bus = {
      signal(subject: string) {
        log.push(subject);
        queueMicrotask(() => log.push('flush'));
      },
    };
    const jobs = tickSignal(bus, 'sig.jobs.wake', 2);
    const outbox = tickSignal(bus, 'sig.outbox.wake', 5);
    const other: string[] = [];
    const elsewhere = tickSignal({ signal: (subject) => void other.push(subject) }, 'sig.jobs.wake');
    jobs();
    outbox();
    elsewhere();
    jobs();
    await nextTurn();
    expect(log).toEqual(['sig.jobs.wake', 'sig.outbox.wake', 'flush', 'flush']);
    expect(other).toEqual(['sig.jobs.wake']);
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
    await nextTurn(); // a send its timer let go out goes at the end of the timer's turn
    expect(sent).toHaveLength(2);
    // Never within the interval (the next test makes the timer fire early).
    expect((sent[1] as number) - (sent[0] as number)).toBeGreaterThanOrEqual(39.9);
    await sleep(50);
    signal();
    await nextTurn();
    expect(sent).toHaveLength(3);
  });

  it('waits out the rest of the interval when its timer fires early (timers count from the loop’s cached clock)', async () => {
    const early = ((fn: () => void) => globalThis.setImmediate(fn)) as unknown as typeof setTimeout;
    const sent: number[] = [];
    const signal = tickSignal({ signal: () => void sent.push(performance.now()) }, 'sig.test.wake', 40);
    signal();
    await nextTurn();
    // The first timer tickSignal sets fires at once, 40 ms early; later ones are real.
    const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementationOnce(early);
    signal();
    await sleep(15);
    const calls = spy.mock.calls.length;
    spy.mockRestore();
    expect(calls).toBeGreaterThanOrEqual(1);
    expect(sent).toHaveLength(1);
    await sleep(60);
    await nextTurn(); // a send its timer let go out goes at the end of the timer's turn
    expect(sent).toHaveLength(2);
    expect((sent[1] as number) - (sent[0] as number)).toBeGreaterThanOrEqual(39.9);
  });
});
