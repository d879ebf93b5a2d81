/** Reading an @xstate/store from a Preact component: re-renders when the selected value changes. */
import { useEffect, useState } from 'preact/hooks';

interface Readable<T> {
  getSnapshot(): { context: T };
  subscribe(observer: (snapshot: { context: T }) => void): { unsubscribe(): void };
}

/** The part of `store`'s context that `select` picks, kept current. */
export function useSelector<T, S>(store: Readable<T>, select: (context: T) => S): S {
  const [value, setValue] = useState(() => select(store.getSnapshot().context));
  useEffect(() => {
    setValue(() => select(store.getSnapshot().context));
    const sub = store.subscribe((snapshot) => {
      const next = select(snapshot.context);
      setValue((current) => (Object.is(current, next) ? current : next));
    });
    return () => sub.unsubscribe();
  }, [store]);
  return value;
}
