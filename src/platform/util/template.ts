/**
 * Logic-less templating for skill prompts (`promptMd`) and workflow step inputs.
 *
 * Terminology:
 * - placeholder: `{{ path }}`; whitespace (including newlines) is allowed inside the braces.
 * - path: dot-separated segments of letters, digits, `_`, `$` and `-` (`input.customer.name`,
 *   `steps.draft.output.items.0`). A numeric segment indexes an array.
 * - scope: the JSON value paths are resolved against (`{input, steps}` for workflows).
 * - missing: a path that resolves to nothing; it renders as the empty string and is reported.
 * - unsupported tag: any other `{{…}}` (Mustache sections `{{#x}}`, inverted `{{^x}}`, partials
 *   `{{>x}}`, comments `{{!x}}`, triple braces `{{{x}}}`, expressions `{{ a + b }}`). It is left in the
 *   text as written, never evaluated, and listed in `CompiledTemplate.unsupported` so the workspace
 *   validator can warn about it.
 *
 * Rendering rules: strings are inserted as they are (no HTML escaping — prompts are not HTML);
 * numbers, booleans and bigints via `String()`; `null` renders empty and is not missing;
 * objects and arrays render as compact JSON. Only own properties are read, so `constructor` or
 * `__proto__` never reach the prototype chain. There is no escape syntax: a template cannot
 * contain a literal `{{ path }}` (a value inserted by rendering is never re-rendered, though).
 */
import { setBounded } from './bounded-map.js';

/** One parsed template, reusable across renders. */
export interface CompiledTemplate {
  /** The template text. */
  readonly source: string;
  /** Distinct placeholder paths in order of first use (`input.x`, `steps.a.output`). */
  readonly references: readonly string[];
  /** Distinct `{{…}}` tags that are not placeholders, as written; they render literally. */
  readonly unsupported: readonly string[];
  /** Renders against `scope`. */
  render(scope: unknown): RenderResult;
}

/** The outcome of rendering a template string. */
export interface RenderResult {
  text: string;
  /** Distinct paths that resolved to nothing, in order of first use. */
  missing: string[];
}

/** The outcome of deep-rendering a JSON value. */
export interface RenderValueResult {
  /** The rendered value; `undefined` only when the whole value was one missing placeholder. */
  value: unknown;
  /** Distinct missing paths, in order of first use. */
  missing: string[];
}

interface Placeholder {
  readonly path: string;
  readonly segments: readonly string[];
}

type Part = string | Placeholder;

const PATH = /^[\p{L}\p{N}_$-]+(?:\.[\p{L}\p{N}_$-]+)*$/u;
const CACHE_LIMIT = 512;
/** Longer sources are compiled but not cached, so the cache stays within a few megabytes. */
const CACHE_MAX_SOURCE = 16 * 1024;
const cache = new Map<string, CompiledTemplate>();

/** Sentinel for "path resolves to nothing", distinct from a present `undefined`-free JSON value. */
const MISSING: unique symbol = Symbol('missing');

function parse(source: string): { parts: Part[]; references: string[]; unsupported: string[] } {
  const parts: Part[] = [];
  const references = new Set<string>();
  const unsupported = new Set<string>();
  let literal = '';
  let pos = 0;
  for (;;) {
    const open = source.indexOf('{{', pos);
    if (open === -1) break;
    const close = source.indexOf('}}', open + 2);
    if (close === -1) break;
    let end = close + 2;
    const inner = source.slice(open + 2, close).trim();
    if (PATH.test(inner)) {
      literal += source.slice(pos, open);
      if (literal !== '') parts.push(literal);
      literal = '';
      parts.push({ path: inner, segments: inner.split('.') });
      references.add(inner);
    } else {
      // `{{{x}}}` closes with three braces; keep the whole tag together in the report.
      if (inner.startsWith('{') && source[end] === '}') end += 1;
      literal += source.slice(pos, end);
      unsupported.add(source.slice(open, end));
    }
    pos = end;
  }
  literal += source.slice(pos);
  if (literal !== '') parts.push(literal);
  return { parts, references: [...references], unsupported: [...unsupported] };
}

function resolve(scope: unknown, segments: readonly string[]): unknown {
  let current: unknown = scope;
  for (const segment of segments) {
    if (current === null || typeof current !== 'object') return MISSING;
    if (!Object.hasOwn(current, segment)) return MISSING;
    current = (current as Record<string, unknown>)[segment];
  }
  if (current === undefined || typeof current === 'function' || typeof current === 'symbol') return MISSING;
  return current;
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value) ?? '';
  return String(value);
}

function renderParts(parts: readonly Part[], scope: unknown, missing: Set<string>): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    const value = resolve(scope, part.segments);
    if (value === MISSING) missing.add(part.path);
    else out += stringify(value);
  }
  return out;
}

/**
 * Parses `source` once and caches the result (an LRU of 512 sources up to 16 KiB each), so a prompt
 * rendered for every run is parsed only the first time. Parsing is linear, so an uncached long
 * source costs one scan per render.
 */
export function compileTemplate(source: string): CompiledTemplate {
  const hit = cache.get(source);
  if (hit) {
    cache.delete(source);
    cache.set(source, hit);
    return hit;
  }
  const { parts, references, unsupported } = parse(source);
  const compiled: CompiledTemplate = {
    source,
    references,
    unsupported,
    render(scope: unknown): RenderResult {
      const missing = new Set<string>();
      const text = renderParts(parts, scope, missing);
      return { text, missing: [...missing] };
    },
  };
  if (source.length > CACHE_MAX_SOURCE) return compiled;
  setBounded(cache, source, compiled, CACHE_LIMIT);
  return compiled;
}

/** Renders `text` against `scope`; missing paths render empty and are listed in `missing`. */
export function renderTemplate(text: string, scope: unknown): RenderResult {
  return compileTemplate(text).render(scope);
}

/** The distinct placeholder paths `text` references, in order of first use. */
export function templateReferences(text: string): string[] {
  return [...compileTemplate(text).references];
}

/** The path of `text` when the whole of it is one placeholder (`{{ a.b }}`), else undefined. */
function exactPlaceholder(text: string): string | undefined {
  if (text.length < 4 || !text.startsWith('{{') || !text.endsWith('}}')) return undefined;
  const inner = text.slice(2, -2);
  if (!braceFree(inner)) return undefined;
  const path = inner.trim();
  return PATH.test(path) ? path : undefined;
}

function braceFree(text: string): boolean {
  return !text.includes('{') && !text.includes('}');
}

/** One `{{ … }}` found by `bracedExpressions`: the trimmed text inside, and where the tag lies. */
export interface BracedExpression {
  expression: string;
  start: number;
  end: number;
}

/**
 * Every `{{ … }}` in `text` whose inside holds no brace, with the inside trimmed — what
 * `/\{\{\s*([^{}]*?)\s*\}\}/g` finds, in one linear pass. (That regular expression backtracks
 * cubically on `{{` followed by spaces with no closing braces: 3 KB held the event loop for 32 s.)
 */
export function bracedExpressions(text: string): BracedExpression[] {
  const found: BracedExpression[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf('{{', from);
    if (open === -1) return found;
    // The inside runs to the first brace after `{{`; it must be `}}`.
    let at = open + 2;
    while (at < text.length && text[at] !== '{' && text[at] !== '}') at++;
    if (at + 1 < text.length && text[at] === '}' && text[at + 1] === '}') {
      found.push({ expression: text.slice(open + 2, at).trim(), start: open, end: at + 2 });
      from = at + 2;
    } else {
      // No tag starts here; one may start at the next `{` (`{{{x}}` holds `{{x}}`).
      from = open + 1;
    }
  }
}

function renderDeep(value: unknown, scope: unknown, missing: Set<string>): unknown {
  if (typeof value === 'string') {
    const path = exactPlaceholder(value);
    if (path !== undefined) {
      const resolved = resolve(scope, path.split('.'));
      if (resolved === MISSING) {
        missing.add(path);
        return MISSING;
      }
      // A copy, so a consumer that mutates its input (ajv `useDefaults`) cannot alter the scope.
      return typeof resolved === 'object' && resolved !== null ? structuredClone(resolved) : resolved;
    }
    if (!value.includes('{{')) return value;
    const compiled = compileTemplate(value);
    const rendered = compiled.render(scope);
    for (const path of rendered.missing) missing.add(path);
    return rendered.text;
  }
  if (Array.isArray(value)) {
    return value.map((item) => {
      const out = renderDeep(item, scope, missing);
      return out === MISSING ? null : out;
    });
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const rendered = renderDeep(item, scope, missing);
      if (rendered !== MISSING) out[key] = rendered;
    }
    return out;
  }
  return value;
}

/**
 * Deep-renders a JSON value such as a workflow step's `input`. Object keys are never rendered.
 *
 * - A string that is exactly one placeholder (`"{{steps.a.output}}"`, no surrounding text or
 *   whitespace) becomes the referenced value with its own type (a copy of an object or array).
 *   When that path is missing, the key is omitted from its object, becomes `null` in an array, and
 *   the whole result is `undefined` at the top level.
 * - Any other string is interpolated like `renderTemplate`.
 * - Other values are copied as they are.
 */
export function renderValue(value: unknown, scope: unknown): RenderValueResult {
  const missing = new Set<string>();
  const rendered = renderDeep(value, scope, missing);
  return { value: rendered === MISSING ? undefined : rendered, missing: [...missing] };
}

/** Distinct placeholder paths referenced anywhere in a JSON value's strings, in order of first use. */
export function valueReferences(value: unknown): string[] {
  const out = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      if (v.includes('{{')) for (const ref of compileTemplate(v).references) out.add(ref);
    } else if (Array.isArray(v)) {
      v.forEach(walk);
    } else if (v !== null && typeof v === 'object') {
      Object.values(v).forEach(walk);
    }
  };
  walk(value);
  return [...out];
}
