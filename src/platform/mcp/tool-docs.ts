/**
 * docs/mcp.md's tool tables, generated from the toolset: per group, every tool with its title, its
 * arguments (from its input schema), its output (from its output schema), its access and its hints.
 * Each table sits between `<!-- tools:<group> -->` and `<!-- /tools:<group> -->`; the prose around the
 * tables is written by hand. test/platform/mcp/tool-docs.test.ts fails while the file is stale
 * (`npm run docs:mcp` writes it).
 */
import type { Access } from '../auth/guard.js';
import { type ToolDef, toolJsonSchema, toolOutputSchema } from './tool.js';

type JsonSchema = Record<string, unknown>;

/** Keys of an object schema shown before the rest are elided. */
const MAX_KEYS = 8;

function access(rule: Access): string {
  switch (rule.kind) {
    case 'public':
      return 'public';
    case 'authenticated':
      return 'any token';
    case 'scope':
      return rule.anyOf.map((scope) => `\`${scope}\``).join(' or ');
    case 'approve':
      return 'approve capability';
  }
}

function hints(tool: ToolDef): string {
  const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = tool.hints;
  const said = [
    readOnlyHint ? 'read-only' : 'writes',
    destructiveHint ? 'destructive' : null,
    idempotentHint ? 'idempotent' : null,
    openWorldHint ? 'open world' : null,
    tool.task ? 'task ([optional](#tasks))' : null,
  ];
  return said.filter((hint) => hint !== null).join(', ');
}

/** An enum's values (`a`\|`b`), when the schema is one of a few strings. */
function enumOf(schema: JsonSchema): string | null {
  const values = Array.isArray(schema.enum) ? schema.enum : null;
  if (!values || values.length > 12) return null;
  return values.map((value) => `\`${String(value)}\``).join('\\|');
}

/** `{a, b?, c: [{…}]}`: an object schema's keys, optional ones marked, one level into arrays. */
function shape(schema: JsonSchema, depth: number): string {
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(branches) && !schema.properties) {
    const kinds = branches.map((branch) => shape(branch, depth));
    return [...new Set(kinds)].join(' or ');
  }
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const keys = Object.keys(properties);
  if (keys.length === 0) return schema.type === 'object' ? '`{}`' : '—';
  const shown = keys.slice(0, MAX_KEYS).map((key) => {
    const property = properties[key] ?? {};
    const mark = required.has(key) ? '' : '?';
    const items = property.items as JsonSchema | undefined;
    if (depth === 0 && property.type === 'array' && items?.properties) {
      return `${key}${mark}: [${shape(items, 1).slice(1, -1)}]`;
    }
    return `${key}${mark}`;
  });
  if (keys.length > MAX_KEYS) shown.push('…');
  return `\`{${shown.join(', ')}}\``;
}

/** What to say of an argument beyond its name: its values, its range, its default. */
function detail(property: JsonSchema): string {
  const said: string[] = [];
  const values = enumOf(property);
  if (values) said.push(values);
  const { minimum, maximum } = property;
  if (typeof minimum === 'number' && typeof maximum === 'number' && maximum < Number.MAX_SAFE_INTEGER) {
    said.push(`${minimum}–${maximum}`);
  }
  if (property.default !== undefined && typeof property.default !== 'object') {
    said.push(`default ${JSON.stringify(property.default)}`);
  }
  return said.length > 0 ? ` (${said.join(', ')})` : '';
}

/** The arguments column: each argument, `?` when optional, with what {@link detail} says of it. */
function argumentsOf(tool: ToolDef): string {
  const schema = toolJsonSchema(tool.input);
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const keys = Object.keys(properties);
  if (keys.length === 0) return '—';
  return keys
    .map((key) => `\`${key}${required.has(key) ? '' : '?'}\`${detail(properties[key] ?? {})}`)
    .join(', ');
}

/** The Markdown table of `tools` (one group). */
export function toolTable(tools: readonly ToolDef[]): string {
  const rows = tools.map((tool) => {
    const name = `\`${tool.name}\`${tool.authoring ? ' ✎' : ''}`;
    const output = shape(toolOutputSchema(tool.output), 0);
    return `| ${name} | ${tool.title} | ${argumentsOf(tool)} | ${output} | ${access(tool.access)} | ${hints(tool)} |`;
  });
  return [
    '| tool | title | arguments | output | access | hints |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/**
 * `markdown` with each group's table rewritten from `tools`. Throws when a group of `tools` has no
 * marked place in `markdown`, or a marked group has no tool.
 */
export function withToolTables(markdown: string, tools: readonly ToolDef[]): string {
  const groups = new Map<string, ToolDef[]>();
  for (const tool of tools) groups.set(tool.group, [...(groups.get(tool.group) ?? []), tool]);
  const marked = /<!-- tools:([a-z-]+) -->\n[\s\S]*?<!-- \/tools:\1 -->/g;
  const seen = new Set<string>();
  const out = markdown.replace(marked, (_block, group: string) => {
    const members = groups.get(group);
    if (!members) throw new Error(`docs/mcp.md marks tool group "${group}", which has no tool`);
    seen.add(group);
    return `<!-- tools:${group} -->\n${toolTable(members)}\n<!-- /tools:${group} -->`;
  });
  const missing = [...groups.keys()].filter((group) => !seen.has(group));
  if (missing.length > 0) {
    throw new Error(`docs/mcp.md has no place for the tool groups ${missing.join(', ')}`);
  }
  return out;
}
