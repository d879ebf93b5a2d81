/**
 * The decision record of an item: its entries of the org's decision ledger (hash-chained, oldest
 * first) — which event, who caused it (by name), when, what it carried, and its hash and the one it
 * chains to (shortened; the whole on hover).
 */
import { PersonName } from '../components/person-name.js';
import { when } from '../format.js';
import type { LedgerEntry } from '../wire.js';
import type { ItemLedgerState } from './ledger-data.js';

/** The details an entry's line shows, in this order, when present. */
const SHOWN = ['action', 'reason', 'assignedTo', 'note', 'snoozedUntil', 'edited'] as const;

/** "action approve · reason …" of an entry's details; approvals of a quorum as "1 of 2". */
function detailsText(details: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const key of SHOWN) {
    const value = details[key];
    if (value !== undefined && value !== null && value !== '') parts.push(`${key} ${String(value)}`);
  }
  const approvals = details.approvals;
  if (Array.isArray(approvals) && typeof details.required === 'number') {
    parts.push(`${approvals.length} of ${details.required} approved`);
  }
  return parts.join(' · ');
}

function Hash({ label, hash }: { label: string; hash: string }) {
  return (
    <span>
      {label}{' '}
      <code title={hash} data-hash={hash}>
        {hash.slice(0, 12)}…
      </code>
    </span>
  );
}

function Entry({ entry }: { entry: LedgerEntry }) {
  const details = detailsText(entry.details);
  return (
    <li data-seq={entry.seq}>
      <p class="entry-head">
        <strong>#{entry.seq}</strong> <span class="tag">{entry.event}</span> by{' '}
        <PersonName actor={entry.by} /> <time dateTime={entry.at}>{when(entry.at)}</time>
      </p>
      {details && <p class="entry-details">{details}</p>}
      <p class="entry-hash muted">
        <Hash label="hash" hash={entry.hash} /> · <Hash label="after" hash={entry.prevHash} />
      </p>
    </li>
  );
}

export function ItemLedger({ ledger }: { ledger: ItemLedgerState }) {
  return (
    <section aria-labelledby="ledger-title" class="item-ledger">
      <h2 id="ledger-title">Decision record</h2>
      {ledger.error && (
        <p class="error" role="alert">
          {ledger.error}
        </p>
      )}
      {ledger.entries === null ? (
        !ledger.error && <p class="muted">Loading…</p>
      ) : ledger.entries.length === 0 ? (
        <p class="muted">No entries yet.</p>
      ) : (
        <ol class="ledger">
          {ledger.entries.map((entry) => (
            <Entry key={entry.seq} entry={entry} />
          ))}
        </ol>
      )}
    </section>
  );
}
