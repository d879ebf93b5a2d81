/**
 * Reading an item's entries of the decision ledger (`GET /audit/reviews?kind=&id=`, oldest first),
 * again whenever the item changes (`version`: anything that differs after a change of the item), and
 * the people who caused them by name.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { namePeople } from '../people/people-data.js';
import type { LedgerEntry } from '../wire.js';

/** Most entries read for one item (pages of 200). */
const MOST = 1_000;

export type ItemLedgerState = { entries: LedgerEntry[] | null; error: string | null };

async function readLedger(kind: string, id: number): Promise<LedgerEntry[]> {
  const entries: LedgerEntry[] = [];
  let cursor: string | null = null;
  do {
    const query = `kind=${encodeURIComponent(kind)}&id=${id}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page: { entries: LedgerEntry[]; nextCursor: string | null } = await api(
      'GET',
      `/audit/reviews?${query}`,
    );
    entries.push(...page.entries);
    cursor = page.nextCursor;
  } while (cursor && entries.length < MOST);
  return entries;
}

/** The ledger entries of item `{kind, id}` (null while first read), read again when `version` changes. */
export function useItemLedger(kind: string | null, id: number, version: string): ItemLedgerState {
  const [state, setState] = useState<ItemLedgerState>({ entries: null, error: null });
  useEffect(() => {
    if (kind === null) return;
    let stopped = false;
    readLedger(kind, id).then(
      (entries) => {
        if (stopped) return;
        setState({ entries, error: null });
        void namePeople(entries.map((e) => e.by));
      },
      (error: unknown) => {
        if (!stopped) setState((s) => ({ ...s, error: (error as Error).message }));
      },
    );
    return () => {
      stopped = true;
    };
  }, [kind, id, version]);
  return state;
}

/** What changes whenever the item's ledger may have grown: its revision and status. */
export function ledgerVersion(review: { revision: string | null; status: string } | null): string {
  return review ? `${review.revision ?? ''}:${review.status}` : '';
}
