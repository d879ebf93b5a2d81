/**
 * The draft: Markdown text rendered safely (see markdown.ts), anything else shown as data. A draft
 * cut for length says so and offers the whole run as a download.
 */
import { useMemo } from 'preact/hooks';
import { renderMarkdown } from './markdown.js';

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
