/**
 * The draft: Markdown text rendered safely (see markdown.ts), anything else shown as data. A draft
 * cut for length says so and offers the whole run as a download; a draft the sanitizer removed
 * something from says what, and shows its raw text on request.
 */
import { useMemo, useState } from 'preact/hooks';
import { LIMIT, type Removed, renderMarkdown } from './markdown.js';

/** The text of an output when it has one: a string, or an object's `text`/`markdown`/`content`. */
function textOf(output: unknown): string | null {
  if (typeof output === 'string') return output;
  if (output && typeof output === 'object') {
    for (const key of ['markdown', 'text', 'content']) {
      const value = (output as Record<string, unknown>)[key];
      if (typeof value === 'string') return value;
    }
  }
  return null;
}

export function DraftView(props: { output: unknown; runId: number }) {
  const text = textOf(props.output);
  const rendered = useMemo(() => (text === null ? null : renderMarkdown(text)), [text]);
  if (props.output === null || props.output === undefined) return <p class="muted">No output yet.</p>;
  return (
    <div>
      {rendered ? (
        <div class="draft" dangerouslySetInnerHTML={{ __html: rendered.html }} />
      ) : (
        <JsonBlock value={props.output} />
      )}
      {rendered?.removed && text !== null && (
        <RemovedNotice removed={rendered.removed} text={text.slice(0, LIMIT)} />
      )}
      {rendered?.truncated && (
        <p class="notice" role="status">
          Showing the first {Math.round(rendered.html.length / 1000)} KB of a{' '}
          {(rendered.length / 1e6).toFixed(1)} MB draft.{' '}
          <a href={`/api/v1/runs/${props.runId}`} download={`run-${props.runId}.json`}>
            Download the whole run
          </a>
        </p>
      )}
    </div>
  );
}

/** Tells the reviewer the page does not show all of the draft, and shows the raw text on request. */
function RemovedNotice(props: { removed: Removed; text: string }) {
  const [raw, setRaw] = useState(false);
  const { elements, attributes, hiddenChars } = props.removed;
  const parts = [
    hiddenChars > 0 ? `${hiddenChars.toLocaleString('en')} characters of text` : null,
    elements.length > 0 ? `elements ${elements.map((e) => `<${e}>`).join(', ')}` : null,
    attributes.length > 0 ? `attributes ${attributes.join(', ')}` : null,
  ].filter((part) => part !== null);
  return (
    <div class="notice notice-removed" role="note">
      <p>
        <strong>Not all of this draft is shown.</strong> For safety the page removed {parts.join('; ')}. Read
        the raw text before you decide.
      </p>
      <button type="button" aria-expanded={raw} onClick={() => setRaw(!raw)}>
        {raw ? 'Hide the raw text' : 'Show the raw text'}
      </button>
      {raw && <BoundedText text={props.text} />}
    </div>
  );
}

/** Text at most a screenful tall, scrolling in its own region (focusable, so the keyboard scrolls it too). */
export function BoundedText(props: { text: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region (axe: scrollable-region-focusable)
    <pre class="bounded" tabIndex={0}>
      {props.text}
    </pre>
  );
}

/** Data as indented JSON text (inert), cut at 100,000 characters; `bounded` as `BoundedText`. */
export function JsonBlock(props: { value: unknown; bounded?: boolean }) {
  const text = useMemo(() => {
    const json = JSON.stringify(props.value, null, 2) ?? 'null';
    return json.length > 100_000 ? `${json.slice(0, 100_000)}\n… (cut)` : json;
  }, [props.value]);
  return props.bounded ? <BoundedText text={text} /> : <pre>{text}</pre>;
}
