/**
 * The `decided` lane: recent decisions, newest first — those taken in this browser tab and those the
 * stream told of while the queue was open — with what was decided, by whom and when; each links to
 * its review screen (the decision and what was approved). The kind and slug filters apply by kind.
 */
import { PersonName } from '../components/person-name.js';
import { age } from '../format.js';
import type { DecidedEntry } from '../stores/queue-store.js';
import type { QueueView } from './lanes.js';
import { reviewPath } from './queue-list.js';

const VERBS: Readonly<Record<string, string>> = {
  approve: 'approved',
  reject: 'rejected',
  request_changes: 'sent back',
};

export function DecidedList(props: { entries: DecidedEntry[]; view: QueueView }) {
  const entries = props.entries.filter((entry) => !props.view.kind || entry.kind === props.view.kind);
  if (entries.length === 0) return <p class="muted">No decisions yet.</p>;
  return (
    <ol class="queue decided" aria-label="Recent decisions">
      {entries.map((entry) => (
        <li key={`${entry.kind}:${entry.id}:${entry.at}`}>
          <span class="tag">{VERBS[entry.action] ?? entry.action}</span>
          <a href={reviewPath(entry)} class="title">
            {entry.title}
          </a>
          <span class="meta">
            <span class="tag">{entry.kind}</span>
            <span title={entry.at}>{age(entry.at)} ago</span>
            <span>{entry.by ? <PersonName actor={entry.by} /> : 'by you'}</span>
          </span>
          {entry.summary && <span class="summary">{entry.summary}</span>}
        </li>
      ))}
    </ol>
  );
}
