/**
 * Callbacks run together at the end of this turn of the event loop, from one `setImmediate`, in the
 * order they were queued. What they send on a socket goes out in one write: a client that flushes at
 * the next microtask (NATS's) sees them as one synchronous run, where a callback each let the
 * microtasks between them flush each alone. The NATS bus's confirmed acks and the tick signals of a
 * bus go through one each.
 */
export function turnEndQueue(): (fn: () => void) => void {
  let due: Array<() => void> = [];
  const flush = () => {
    const now = due;
    due = [];
    for (const fn of now) fn();
  };
  return (fn) => {
    due.push(fn);
    if (due.length === 1) setImmediate(flush);
  };
}
