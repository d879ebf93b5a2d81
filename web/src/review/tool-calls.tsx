/**
 * A run's tool calls (docs/api.md#runs), in the order the model asked for them: per call the tool, its
 * status, when and how long, its arguments and its result or error. An object is shown field by field
 * (text as text, so a script or a page reads as written, not as an escaped JSON string); anything long
 * starts folded.
 */
import { when } from '../format.js';
import type { ToolCall } from '../stores/review-store.js';
import { BoundedText, JsonBlock } from './draft-view.js';

/** Values longer than this (as JSON text) or with more lines start folded. */
const FOLD_CHARS = 600;
const FOLD_LINES = 12;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isLong(value: unknown): boolean {
  const text = typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? '');
  return text.length > FOLD_CHARS || text.split('\n').length > FOLD_LINES;
}

/** One value: text as it is written, anything else as JSON. */
function ValueView({ value }: { value: unknown }) {
  if (typeof value === 'string') {
    if (value === '') return <span class="muted">(empty)</span>;
    if (!value.includes('\n') && value.length <= 80) return <code>{value}</code>;
    return <BoundedText text={value} />;
  }
  if (value === null || typeof value === 'number' || typeof value === 'boolean') {
    return <code>{JSON.stringify(value)}</code>;
  }
  return <JsonBlock value={value} bounded />;
}

/** An object field by field; any other value as it is. */
function FieldsView({ value }: { value: unknown }) {
  if (!isRecord(value) || Object.keys(value).length === 0) return <ValueView value={value} />;
  return (
    <dl class="call-fields">
      {Object.entries(value).map(([key, field]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>
            <ValueView value={field} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** A labelled value, folded when long. */
function Part({ label, value }: { label: string; value: unknown }) {
  return (
    <details class="call-part" open={!isLong(value)}>
      <summary>{label}</summary>
      <FieldsView value={value} />
    </details>
  );
}

function duration(call: ToolCall): string | null {
  if (!call.completedAt) return null;
  const ms = Date.parse(call.completedAt) - Date.parse(call.startedAt);
  if (!Number.isFinite(ms) || ms < 0) return null;
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function ToolCallItem({ call }: { call: ToolCall }) {
  const took = duration(call);
  return (
    <li class="tool-call" data-call={call.id}>
      <h3>
        <code>{call.tool}</code> <span class={`status call-${call.status}`}>{call.status}</span>
      </h3>
      <p class="muted call-meta">
        Call <code>{call.id}</code> · started {when(call.startedAt)}
        {took && <> · took {took}</>}
      </p>
      <Part label="Arguments" value={call.arguments} />
      {call.status === 'ok' && <Part label="Result" value={call.result} />}
      {call.error && (
        <div class="call-failure">
          <p>
            <strong>{call.error.code}</strong>: {call.error.message}
          </p>
          {call.error.details && <Part label="Details" value={call.error.details} />}
        </div>
      )}
    </li>
  );
}

/** The run's tool calls; nothing when it made none. */
export function ToolCalls({ calls }: { calls: ToolCall[] | null | undefined }) {
  if (!calls || calls.length === 0) return null;
  return (
    <section aria-labelledby="tool-calls-title">
      <h2 id="tool-calls-title">
        Tool calls <span class="muted">({calls.length})</span>
      </h2>
      <ol class="tool-calls">
        {calls.map((call) => (
          <ToolCallItem key={call.id} call={call} />
        ))}
      </ol>
    </section>
  );
}
