import { describe, expect, it } from 'vitest';
import {
  compileTemplate,
  renderTemplate,
  renderValue,
  templateReferences,
  valueReferences,
} from '../../../src/platform/util/template.js';

const scope = {
  input: {
    name: 'Ada',
    count: 3,
    ratio: 0.5,
    active: false,
    none: null,
    html: '<b>Tom & "Jerry"</b>',
    tags: ['a', 'b'],
    customer: { address: { city: 'Zürich' } },
    items: [{ sku: 'X1' }, { sku: 'Y2' }],
    'first-name': 'Grace',
  },
  steps: { draft: { output: { text: 'Hello', score: 0.9, list: [1, 2] } } },
};

describe('renderTemplate', () => {
  it('replaces placeholders with or without inner whitespace, newlines included', () => {
    expect(renderTemplate('Hi {{input.name}}, {{ input.name }}, {{\n  input.name\n}}!', scope)).toEqual({
      text: 'Hi Ada, Ada, Ada!',
      missing: [],
    });
  });

  it('resolves nested paths, array indices and dashed keys', () => {
    const { text } = renderTemplate(
      '{{input.customer.address.city}} {{input.items.1.sku}} {{input.tags.0}} {{input.first-name}}',
      scope,
    );
    expect(text).toBe('Zürich Y2 a Grace');
  });

  it('renders missing paths empty and reports each once, in order', () => {
    const result = renderTemplate(
      '[{{input.nope}}][{{input.items.5.sku}}][{{input.name.first}}][{{input.nope}}][{{other}}]',
      scope,
    );
    expect(result).toEqual({
      text: '[][][][][]',
      missing: ['input.nope', 'input.items.5.sku', 'input.name.first', 'other'],
    });
  });

  it('renders numbers, booleans, null, objects and arrays', () => {
    const { text, missing } = renderTemplate(
      '{{input.count}}|{{input.ratio}}|{{input.active}}|{{input.none}}|{{input.tags}}|{{input.customer.address}}',
      scope,
    );
    expect(text).toBe('3|0.5|false||["a","b"]|{"city":"Zürich"}');
    expect(missing).toEqual([]);
  });

  it('does not escape HTML or quotes', () => {
    expect(renderTemplate('{{input.html}}', scope).text).toBe('<b>Tom & "Jerry"</b>');
  });

  it('never reads through the prototype chain', () => {
    const result = renderTemplate(
      '{{input.constructor}}{{input.__proto__}}{{input.name.length}}{{input.toString}}',
      scope,
    );
    expect(result.text).toBe('');
    expect(result.missing).toEqual([
      'input.constructor',
      'input.__proto__',
      'input.name.length',
      'input.toString',
    ]);
  });

  it('leaves sections, partials, comments, triple braces and expressions as literal text', () => {
    const source =
      '{{#input.tags}}x{{/input.tags}} {{>partial}} {{! note }} {{{input.name}}} {{ a + b }} {{}}';
    const result = renderTemplate(source, scope);
    expect(result).toEqual({ text: source, missing: [] });
    expect(compileTemplate(source).unsupported).toEqual([
      '{{#input.tags}}',
      '{{/input.tags}}',
      '{{>partial}}',
      '{{! note }}',
      '{{{input.name}}}',
      '{{ a + b }}',
      '{{}}',
    ]);
  });

  it('keeps text without placeholders, unclosed braces and lone braces as they are', () => {
    expect(renderTemplate('plain text', scope).text).toBe('plain text');
    expect(renderTemplate('{"json": {"a": 1}} {{input.name', scope).text).toBe(
      '{"json": {"a": 1}} {{input.name',
    );
    expect(renderTemplate('', scope)).toEqual({ text: '', missing: [] });
  });

  it('treats a non-object scope as having no keys', () => {
    expect(renderTemplate('{{a}}', null)).toEqual({ text: '', missing: ['a'] });
    expect(renderTemplate('{{a}}', 'str')).toEqual({ text: '', missing: ['a'] });
  });

  it('does not re-render placeholders that appear in values', () => {
    expect(renderTemplate('{{input.x}}', { input: { x: '{{input.y}}', y: 'no' } }).text).toBe('{{input.y}}');
  });

  it('caches the compiled template', () => {
    expect(compileTemplate('cached {{a}}')).toBe(compileTemplate('cached {{a}}'));
  });
});

describe('templateReferences', () => {
  it('lists distinct placeholder paths in order of first use, without unsupported tags', () => {
    expect(
      templateReferences('{{input.b}} {{ steps.a.output.text }} {{input.b}} {{#sec}} {{ x y }}'),
    ).toEqual(['input.b', 'steps.a.output.text']);
  });

  it('lists the paths used in a JSON value', () => {
    expect(
      valueReferences({ a: '{{input.x}}', b: ['{{steps.s.output}} and {{input.y}}', 3], c: { d: 'plain' } }),
    ).toEqual(['input.x', 'steps.s.output', 'input.y']);
  });
});

describe('renderValue', () => {
  it('gives an exact placeholder the referenced value with its type', () => {
    const { value, missing } = renderValue(
      {
        whole: '{{steps.draft.output}}',
        score: '{{ steps.draft.output.score }}',
        flag: '{{input.active}}',
        nothing: '{{input.none}}',
        list: '{{steps.draft.output.list}}',
        text: 'Draft: {{steps.draft.output.text}} ({{steps.draft.output.score}})',
        nested: { arr: ['{{input.count}}', 'n={{input.count}}', 7, true, null] },
      },
      scope,
    );
    expect(missing).toEqual([]);
    expect(value).toEqual({
      whole: { text: 'Hello', score: 0.9, list: [1, 2] },
      score: 0.9,
      flag: false,
      nothing: null,
      list: [1, 2],
      text: 'Draft: Hello (0.9)',
      nested: { arr: [3, 'n=3', 7, true, null] },
    });
  });

  it('interpolates when the placeholder has surrounding text or whitespace', () => {
    expect(renderValue(' {{input.count}}', scope).value).toBe(' 3');
    expect(renderValue('{{input.count}}{{input.count}}', scope).value).toBe('33');
  });

  it('omits missing exact placeholders from objects, nulls them in arrays, and reports them', () => {
    const { value, missing } = renderValue(
      { keep: 1, gone: '{{input.nope}}', arr: ['{{input.nope2}}', 'x'], s: 'a{{input.nope3}}b' },
      scope,
    );
    expect(value).toEqual({ keep: 1, arr: [null, 'x'], s: 'ab' });
    expect(missing).toEqual(['input.nope', 'input.nope2', 'input.nope3']);
  });

  it('yields undefined for a top-level missing exact placeholder', () => {
    expect(renderValue('{{input.nope}}', scope)).toEqual({ value: undefined, missing: ['input.nope'] });
  });

  it('returns copies: mutating the result changes neither the template nor the scope', () => {
    const template = { a: '{{steps.draft.output}}', b: { c: 1 } };
    const { value } = renderValue(template, scope) as { value: { a: { text: string }; b: { c: number } } };
    value.a.text = 'changed';
    value.b.c = 2;
    expect(scope.steps.draft.output.text).toBe('Hello');
    expect(template.b.c).toBe(1);
  });

  it('does not render object keys', () => {
    expect(renderValue({ '{{input.name}}': 'v' }, scope).value).toEqual({ '{{input.name}}': 'v' });
  });
});
