/**
 * What an edit changes, before the reviewer confirms it: each changed part (a draft, a step's output,
 * a param, the plan) as a line diff. Removed and added lines are marked with − and + as text too (not
 * by colour alone), and the screen reader hears "removed"/"added".
 */
import { useMemo } from 'preact/hooks';
import { diffText, lineDiff } from './line-diff.js';

/** One changed part: what it is called, and its value before and after. */
export interface Change {
  label: string;
  before: unknown;
  after: unknown;
}

const MARK = { ' ': ' ', '-': '−', '+': '+' } as const;
const SAID = { ' ': '', '-': 'removed: ', '+': 'added: ' } as const;

function ChangeDiff({ change }: { change: Change }) {
  const lines = useMemo(() => lineDiff(diffText(change.before), diffText(change.after)), [change]);
  return (
    <figure class="diff">
      <figcaption>{change.label}</figcaption>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region (axe: scrollable-region-focusable) */}
      <pre class="bounded" tabIndex={0}>
        {lines.map((line, index) => (
          <span key={index} class={line.op === '-' ? 'del' : line.op === '+' ? 'ins' : undefined}>
            <span class="visually-hidden">{SAID[line.op]}</span>
            <span aria-hidden="true">{MARK[line.op]} </span>
            {line.text}
            {'\n'}
          </span>
        ))}
      </pre>
    </figure>
  );
}

export function DiffView({ changes }: { changes: Change[] }) {
  if (changes.length === 0) return <p class="muted">No changes.</p>;
  return (
    <div class="diffs">
      {changes.map((change) => (
        <ChangeDiff key={change.label} change={change} />
      ))}
    </div>
  );
}
