/** Reading an @xstate/store from a Preact component: re-renders when the selected value changes. */
import { useEffect, useRef, useState } from 'preact/hooks';

interface Readable<T> {
  getSnapshot(): { context: T };
  subscribe(observer: (snapshot: { context: T }) => void): { unsubscribe(): void };
}

/**
 * The part of `store`'s context that `select` picks, kept current. `select` is read at every render,
 * so it may close over props (`(c) => c.people[actor]`).
 */
export function useSelector<T, S>(store: Readable<T>, select: (context: T) => S): S {
  const value = select(store.getSnapshot().context);
  const latest = useRef({ select, value });
  latest.current = { select, value };
  const [, rerender] = useState(0);
  useEffect(() => {
    const sub = store.subscribe((snapshot) => {
      const { select: pick, value: shown } = latest.current;
      if (!Object.is(pick(snapshot.context), shown)) rerender((n) => n + 1);
    });
    return () => sub.unsubscribe();
  }, [store]);
  return value;
}
