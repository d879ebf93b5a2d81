/**
 * A review screen's subject other than a run (a proposal, a mission run): read from its GET path,
 * followed live through its stream (each of `events` reads it again, one read at a time, so the
 * replay of a finished subject's stream asks for one more read at most; the stream is closed, not
 * reconnected, once the server ends it), and decided through `/reviews/decide` as review kind `kind`.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from '../api.js';
import { namePeople } from '../people/people-data.js';

export type Loaded<T> = { state: 'loading' } | { state: 'missing' } | { state: 'loaded'; subject: T };

export function useSubjectReview<T>(options: {
  kind: string;
  id: number;
  /** The API path of the subject (`/proposals/1`), also the prefix of its stream (`…/stream`). */
  path: string;
  /** Its stream's event names. */
  events: readonly string[];
  /** The people (actors) the page names, read of a loaded subject. */
  people: (subject: T) => ReadonlyArray<string | null | undefined>;
  /**
   * While it answers a number for the loaded subject, the subject is read again that many ms later:
   * for changes its stream does not tell of (a proposal's retries).
   */
  pollEvery?: (subject: T) => number | null;
}) {
  const { kind, id, path, events } = options;
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);

  const load = async () => {
    try {
      const subject = await api<T>('GET', path);
      setLoaded({ state: 'loaded', subject });
      void namePeople(options.people(subject));
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) setLoaded({ state: 'missing' });
      else setError((e as Error).message);
    }
  };

  useEffect(() => {
    setLoaded({ state: 'loading' });
    let reading: Promise<void> | null = null;
    let again = false;
    const reload = () => {
      if (reading) {
        again = true;
        return;
      }
      reading = load().finally(() => {
        reading = null;
        if (again) {
          again = false;
          reload();
        }
      });
    };
    reload();
    const source = new EventSource(`/api/v1${path}/stream`);
    for (const name of events) source.addEventListener(name, reload);
    source.onerror = () => {
      if (source.readyState === EventSource.CONNECTING) source.close();
    };
    return () => source.close();
  }, [path]);

  useEffect(() => {
    if (loaded.state !== 'loaded') return;
    const every = options.pollEvery?.(loaded.subject) ?? null;
    if (every === null) return;
    const timer = setTimeout(() => void load(), every);
    return () => clearTimeout(timer);
  }, [loaded]);

  const decide = async (action: 'approve' | 'reject', text: string, done: string) => {
    setBusy(true);
    setError(null);
    try {
      await api('POST', '/reviews/decide?limit=1', { kind, id, action, ...(text ? { reason: text } : {}) });
      setNotice(done);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
      await load();
    }
  };

  return { loaded, error, notice, busy, decide };
}
