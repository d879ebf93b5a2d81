import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
/** V8's full collection (the flag above makes a fresh context expose it). */
const gc = runInNewContext('gc') as () => void;

/**
 * Bytes of heap that what `make` returns keeps alive after a full collection: `make` runs between
 * two collections, and its result is held until the second one has been measured.
 */
export function retainedBytes(make: () => unknown): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = make();
  gc();
  const after = process.memoryUsage().heapUsed;
  // Read after the measurement, so that `kept` is alive through it.
  if (kept === Symbol.for('never')) throw new Error('unreachable');
  return after - before;
}
