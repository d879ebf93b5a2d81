/**
 * Editing a draft before approving it: a Markdown text (the output's `markdown`, `text` or `content`)
 * in a text editor beside its live preview, rendered as the draft view renders it; every other field
 * as a form control built from the skill's `outputSchema` (a string as a text field, or a choice for
 * an `enum`; a number; a yes/no; anything nested as JSON text), and fields the schema does not name
 * from their values. An output that is not an object, or a schema-less one without fields, is edited
 * as JSON text. What is typed is checked by the server against the schema when approving.
 */
import { useMemo, useState } from 'preact/hooks';
import { renderMarkdown } from './markdown.js';

type Schema = Record<string, unknown>;
type Fields = Record<string, unknown>;

/** The keys a draft's Markdown text is read from, in order (as the draft view reads it). */
export const TEXT_KEYS = ['markdown', 'text', 'content'] as const;

/** The key of `output`'s Markdown text, or null. */
export function textKeyOf(output: unknown): string | null {
  if (!output || typeof output !== 'object' || Array.isArray(output)) return null;
  return TEXT_KEYS.find((key) => typeof (output as Fields)[key] === 'string') ?? null;
}

const isObject = (value: unknown): value is Fields =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The schema of each field: the schema's `properties`, then fields of the value it does not name. */
function fieldSchemas(value: Fields, schema: Schema | null): Array<[string, Schema]> {
  const properties = isObject(schema?.properties) ? (schema.properties as Record<string, Schema>) : {};
  const names = [...new Set([...Object.keys(properties), ...Object.keys(value)])];
  return names.map((name) => [name, properties[name] ?? {}]);
}

/** A field's control by its schema (its value's type when the schema says none). */
function controlOf(
  schema: Schema,
  value: unknown,
): 'enum' | 'string' | 'long' | 'number' | 'boolean' | 'json' {
  if (Array.isArray(schema.enum)) return 'enum';
  const type = schema.type ?? (value === undefined ? 'string' : typeof value);
  if (type === 'string')
    return typeof value === 'string' && (value.includes('\n') || value.length > 80) ? 'long' : 'string';
  if (type === 'number' || type === 'integer') return 'number';
  if (type === 'boolean') return 'boolean';
  return 'json';
}

/** JSON text edited in place: the parsed value goes up while it parses, an error shows while it does not. */
function JsonField(props: {
  id: string;
  label: string;
  value: unknown;
  onChange(value: unknown): void;
  onInvalid(bad: boolean): void;
}) {
  const [text, setText] = useState(() => JSON.stringify(props.value, null, 2) ?? '');
  const [bad, setBad] = useState<string | null>(null);
  return (
    <>
      <label for={props.id}>{props.label} (JSON)</label>
      <textarea
        id={props.id}
        rows={Math.min(16, text.split('\n').length + 1)}
        value={text}
        aria-invalid={bad !== null}
        aria-describedby={bad ? `${props.id}-error` : undefined}
        onInput={(e) => {
          const next = e.currentTarget.value;
          setText(next);
          try {
            props.onChange(JSON.parse(next));
            setBad(null);
            props.onInvalid(false);
          } catch (error) {
            setBad((error as Error).message);
            props.onInvalid(true);
          }
        }}
      />
      {bad && (
        <p id={`${props.id}-error`} class="error">
          Not valid JSON: {bad}
        </p>
      )}
    </>
  );
}

/** The Markdown text in an editor, and its preview as the reviewer's draft will render. */
export function MarkdownField(props: {
  id: string;
  label: string;
  value: string;
  onChange(value: string): void;
}) {
  const preview = useMemo(() => renderMarkdown(props.value), [props.value]);
  return (
    <div class="markdown-editor">
      <div class="stack">
        <label for={props.id}>{props.label} (Markdown)</label>
        <textarea
          id={props.id}
          rows={Math.min(24, Math.max(8, props.value.split('\n').length + 2))}
          value={props.value}
          onInput={(e) => props.onChange(e.currentTarget.value)}
        />
      </div>
      <section class="stack" aria-label={`Preview of ${props.label}`}>
        <p class="muted" aria-hidden="true">
          Preview
        </p>
        <div class="draft" dangerouslySetInnerHTML={{ __html: preview.html }} />
      </section>
    </div>
  );
}

/** One field of an object output, by its control. */
function Field(props: {
  id: string;
  name: string;
  schema: Schema;
  value: unknown;
  required: boolean;
  onChange(value: unknown): void;
  onInvalid(bad: boolean): void;
}) {
  const { id, name, schema, value } = props;
  const label = `${typeof schema.title === 'string' ? schema.title : name}${props.required ? '' : ' (optional)'}`;
  switch (controlOf(schema, value)) {
    case 'enum':
      return (
        <>
          <label for={id}>{label}</label>
          <select
            id={id}
            value={JSON.stringify(value ?? null)}
            onChange={(e) => props.onChange(JSON.parse(e.currentTarget.value))}
          >
            {value === undefined && <option value="null">—</option>}
            {(schema.enum as unknown[]).map((option) => (
              <option key={JSON.stringify(option)} value={JSON.stringify(option)}>
                {String(option)}
              </option>
            ))}
          </select>
        </>
      );
    case 'long':
      return (
        <>
          <label for={id}>{label}</label>
          <textarea
            id={id}
            rows={6}
            value={String(value ?? '')}
            onInput={(e) => props.onChange(e.currentTarget.value)}
          />
        </>
      );
    case 'string':
      return (
        <>
          <label for={id}>{label}</label>
          <input id={id} value={String(value ?? '')} onInput={(e) => props.onChange(e.currentTarget.value)} />
        </>
      );
    case 'number':
      return (
        <>
          <label for={id}>{label}</label>
          <input
            id={id}
            type="number"
            step={schema.type === 'integer' ? 1 : 'any'}
            value={value === undefined || value === null ? '' : String(value)}
            onInput={(e) => {
              const text = e.currentTarget.value;
              props.onChange(text === '' ? undefined : Number(text));
            }}
          />
        </>
      );
    case 'boolean':
      return (
        <label class="check">
          <input
            type="checkbox"
            id={id}
            checked={value === true}
            onChange={(e) => props.onChange(e.currentTarget.checked)}
          />{' '}
          {label}
        </label>
      );
    default:
      return (
        <JsonField
          id={id}
          label={label}
          value={value}
          onChange={props.onChange}
          onInvalid={props.onInvalid}
        />
      );
  }
}

/**
 * The editor of one output (`value`, as the model drafted it or as edited so far): `onChange` gets the
 * whole output after each change, `onInvalid` whether some JSON text does not parse (no approval then).
 */
export function OutputEditor(props: {
  /** Prefix of the controls' ids (unique on the page). */
  id: string;
  value: unknown;
  schema: Schema | null;
  onChange(value: unknown): void;
  /** Whether the JSON text of control `id` does not parse (no approval while one does not). */
  onInvalid(id: string, bad: boolean): void;
}) {
  const { value, schema } = props;
  if (!isObject(value)) {
    const id = `${props.id}-json`;
    return (
      <JsonField
        id={id}
        label="Output"
        value={value}
        onChange={props.onChange}
        onInvalid={(bad) => props.onInvalid(id, bad)}
      />
    );
  }
  const textKey = textKeyOf(value);
  const required = new Set(Array.isArray(schema?.required) ? (schema.required as string[]) : []);
  const set = (name: string, next: unknown) => {
    const copy = { ...value };
    if (next === undefined) delete copy[name];
    else copy[name] = next;
    props.onChange(copy);
  };
  return (
    <div class="stack output-editor">
      {textKey && (
        <MarkdownField
          id={`${props.id}-${textKey}`}
          label={textKey}
          value={value[textKey] as string}
          onChange={(text) => set(textKey, text)}
        />
      )}
      {fieldSchemas(value, schema)
        .filter(([name]) => name !== textKey)
        .map(([name, fieldSchema]) => (
          <Field
            key={name}
            id={`${props.id}-${name}`}
            name={name}
            schema={fieldSchema}
            value={value[name]}
            required={required.has(name)}
            onChange={(next) => set(name, next)}
            onInvalid={(bad) => props.onInvalid(`${props.id}-${name}`, bad)}
          />
        ))}
    </div>
  );
}
