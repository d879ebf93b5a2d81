/**
 * Template references in authored text: `{{input.x}}` and `{{steps.<name>.output.<field>}}`.
 *
 * Templating is logic-less: a placeholder names a value, it never runs code. This module only finds and
 * classifies placeholders; rendering belongs to the runtime.
 */

import { bracedExpressions } from '../../platform/util/template.js';

/** One segment of a field path: what a JSON key in an input or output object can reasonably be called. */
const SEGMENT = /^[A-Za-z0-9_-]+$/;

/** A classified placeholder found in a string. */
export type TemplateRef =
  | { kind: 'input'; expression: string; path: string[] }
  | { kind: 'step'; expression: string; step: string; path: string[] }
  | { kind: 'invalid'; expression: string; message: string };

/** Classifies the expression inside one `{{ … }}` placeholder. */
export function parseTemplateExpression(expression: string): TemplateRef {
  const segments = expression.split('.');
  const invalid = (message: string): TemplateRef => ({ kind: 'invalid', expression, message });
  if (segments.some((s) => !SEGMENT.test(s))) {
    return invalid(`template "{{${expression}}}" is not a dotted path of letters, digits, "_" and "-"`);
  }
  const [root, ...rest] = segments;
  if (root === 'input') return { kind: 'input', expression, path: rest };
  if (root === 'steps') {
    const [step, output, ...path] = rest;
    if (step === undefined || output !== 'output') {
      return invalid(`template "{{${expression}}}" must have the form {{steps.<name>.output.<field>}}`);
    }
    return { kind: 'step', expression, step, path };
  }
  return invalid(`template "{{${expression}}}" must start with "input." or "steps."`);
}

/** Every placeholder in `text`, in order of appearance. */
export function findTemplateRefs(text: string): TemplateRef[] {
  const refs: TemplateRef[] = [];
  // `{{ … }}` placeholders (the expression may be padded with spaces), found in linear time.
  for (const { expression } of bracedExpressions(text)) refs.push(parseTemplateExpression(expression));
  return refs;
}

/** A string somewhere inside a JSON value, with the path that leads to it. */
export interface StringAt {
  path: (string | number)[];
  text: string;
}

/** Walks a JSON value (objects, arrays, scalars) and yields every string value with its path. */
export function* stringsIn(value: unknown, path: (string | number)[] = []): Generator<StringAt> {
  if (typeof value === 'string') {
    yield { path, text: value };
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) yield* stringsIn(item, [...path, index]);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) yield* stringsIn(item, [...path, key]);
  }
}
