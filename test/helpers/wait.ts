/**
 * Awaiting events in tests without sleeping: the collector's helpers (fakes/collector.ts, which the
 * fakes use too) and `waitFor`, a condition checked until it holds.
 */

export {
  type Collector,
  createCollector,
  type Deferred,
  deferred,
  WAIT_TIMEOUT_MS,
  withTimeout,
} from '../../fakes/collector.js';

import { WAIT_TIMEOUT_MS } from '../../fakes/collector.js';

/**
 * Resolves once `predicate()` holds, checking every `everyMs`; rejects after `ms` naming `label`.
 * For state outside the test's reach of events (rows, counters): waits on the condition, not a sleep.
 */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  label: string,
  ms = WAIT_TIMEOUT_MS,
  everyMs = 20,
): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await predicate()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${label}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
