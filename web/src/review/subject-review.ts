/**
 * A review screen's subject other than a run (a proposal, a mission run): read with its review item
 * through `GET /reviews/:kind/:id` (the subject and the revision the screen shows are read together;
 * a subject that never waited for review is read from its own path), followed live through its
 * stream (each of `events` reads it again, one read at a time, so the replay of a finished subject's
 * stream asks for one more read at most; the stream is closed, not reconnected, once the server ends
 * it), and decided through `/reviews/decide` as review kind `kind`, bound to the revision shown. When
 * the item open changed while the reviewer did nothing here, the screen says so.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api } from '../api.js';
import { namePeople } from '../people/people-data.js';
import type { PolicyInForce, ReviewAnswer, ReviewItem } from '../wire.js';
import { assignItem, decideOnScreen, STALE_NOTICE, snoozeItem, undoItem } from './screen-decisions.js';

export type Loaded<T> =
  | { state: 'loading' }
  | { state: 'missing' }
  | { state: 'loaded'; subject: T; review: ReviewItem | null; policy: PolicyInForce | null };

/** What the screen says when the item it showed open changed elsewhere (null: it did not). */
function changedElsewhere(shown: ReviewItem | null, now: ReviewItem | null): string | null {
  if (!shown?.revision || now?.revision === shown.revision) return null;
  return !now?.revision
    ? 'This item was decided or withdrawn elsewhere while you had it open. Nothing was decided here.'
    : 'This item changed elsewhere while you had it open (edited, assigned or snoozed): it shows its current version now. Read it before deciding.';
}

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
  const [stale, setStale] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Read by reads that answer later: whether this screen is acting (its own change), what it shows.
  const acting = useRef(false);
  const shown = useRef<ReviewItem | null>(null);

  const load = async () => {
    try {
      let subject: T;
      let review: ReviewItem | null = null;
      let policy: PolicyInForce | null = null;
      try {
        const answer = await api<ReviewAnswer>('GET', `/reviews/${kind}/${id}`);
        subject = answer.subject as T;
        review = answer.review;
        policy = answer.policy;
      } catch (e) {
        if (!(e instanceof ApiError && e.status === 404)) throw e;
        subject = await api<T>('GET', path);
      }
      if (!acting.current) {
        const change = changedElsewhere(shown.current, review);
        if (change) setStale(change);
      }
      shown.current = review;
      setLoaded({ state: 'loaded', subject, review, policy });
      void namePeople(options.people(subject));
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) setLoaded({ state: 'missing' });
      else setError((e as Error).message);
    }
  };

  useEffect(() => {
    setLoaded({ state: 'loading' });
    shown.current = null;
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

  /** Runs `call` as the screen's own change; the subject is read again after it (still as its own). */
  const act = async (call: () => Promise<string>) => {
    setBusy(true);
    acting.current = true;
    setError(null);
    try {
      setNotice(await call());
    } catch (e) {
      setError((e as Error).message);
    } finally {
      await load();
      acting.current = false;
      setBusy(false);
    }
  };

  /** Decides bound to the revision shown, with `edits` (approve only); true when it was decided. */
  const decide = async (
    action: 'approve' | 'reject' | 'request_changes',
    text: string,
    done: string,
    edits: Record<string, unknown> | null = null,
  ): Promise<boolean> => {
    let decided = false;
    await act(async () => {
      const revision = shown.current?.revision ?? null;
      const outcome = await decideOnScreen({ kind, id, revision, action, text, edits, item: shown.current });
      if (outcome === 'stale') {
        setStale(STALE_NOTICE);
        return 'Nothing was decided: the item changed elsewhere.';
      }
      setStale(null);
      decided = true;
      return done;
    });
    return decided;
  };

  const assign = (userId: string | null) =>
    act(async () => {
      await assignItem(kind, id, userId);
      return userId ? `Assigned to ${userId}.` : 'Sent back to triage.';
    });
  const snooze = (until: Date) =>
    act(async () => {
      await snoozeItem(kind, id, until);
      return 'Snoozed.';
    });

  /** Withdraws the decision the item holds (taken with a delay): the item is open again. */
  const undo = () =>
    act(async () =>
      (await undoItem(kind, id)) === 'undone'
        ? 'Undone: the item is open again.'
        : 'Too late to undo: it took effect.',
    );

  return { loaded, error, notice, stale, busy, decide, assign, snooze, undo, reload: () => void load() };
}
