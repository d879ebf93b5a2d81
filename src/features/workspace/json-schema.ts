/**
 * JSON Schema as r3 uses it: skill input/output schemas, workflow input schemas and object type metadata
 * schemas are all draft 2020-12, the dialect `z.toJSONSchema` emits and OpenAPI 3.1 uses, so every
 * schema r3 shows or accepts speaks one dialect. Formats (`email`, `date-time`, `uri`, …) come from
 * ajv-formats and are enforced.
 */
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { linearRegExp } from '../../platform/util/linear-regexp.js';
import type { FieldIssue, FieldPath } from './issues.js';

/** The one JSON Schema dialect r3 accepts; a schema's `$schema`, when present, must be this. */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** The configured ajv instance type. */
export type JsonSchemaCompiler = Ajv2020;

/**
 * An ajv instance configured for r3. `strictSchema` makes unknown keywords (typos such as `requierd`)
 * and unknown formats compile errors; the type/tuple/required strictness checks stay off because they
 * reject valid schemas. `allErrors` so input validation reports every bad field.
 */
export function createJsonSchemaCompiler(): JsonSchemaCompiler {
  const ajv = new Ajv2020({
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allErrors: true,
    logger: false,
    // User patterns run in linear time (linear-regexp.ts).
    code: { regExp: linearRegExp },
  });
  ajvFormats.default(ajv);
  return ajv;
}

/** Turns an ajv instance path (`/properties/a~1b/0`) into a field path, using the schema for index-vs-key. */
function pointerToPath(pointer: string, root: unknown): FieldPath {
  if (pointer === '') return [];
  const path: FieldPath = [];
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node) && /^\d+$/.test(key)) {
      path.push(Number(key));
      node = node[Number(key)];
    } else {
      path.push(key);
      node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
    }
  }
  return path;
}

/** Keys starting with `x-` anywhere in a schema: annotation keywords such as UI hints. */
function extensionKeywords(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) extensionKeywords(item, found);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith('x-')) found.add(key);
      extensionKeywords(value, found);
    }
  }
  return found;
}

/**
 * Meta-schema errors, one per field: a failed `anyOf` is reported together with the branch errors that
 * explain it, so it is dropped, and of several errors at one place the first is the most direct.
 */
function metaSchemaIssues(errors: readonly ErrorObject[], schema: unknown): FieldIssue[] {
  const byPointer = new Map<string, ErrorObject>();
  for (const error of errors) {
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') continue;
    if (!byPointer.has(error.instancePath)) byPointer.set(error.instancePath, error);
  }
  if (byPointer.size === 0) for (const error of errors) byPointer.set(error.instancePath, error);
  return [...byPointer.values()].map((error) => ({
    path: pointerToPath(error.instancePath, schema),
    message: describe(error),
  }));
}

function describe(error: ErrorObject): string {
  const params = Object.entries(error.params)
    .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
    .join(', ');
  return params ? `${error.message ?? 'is invalid'} (${params})` : (error.message ?? 'is invalid');
}

/**
 * Checks that `schema` is a JSON Schema r3 can use: it matches the 2020-12 meta-schema and compiles
 * (no unknown keyword or format, no unresolvable `$ref`). Keywords starting with `x-` are accepted as
 * annotations (UI hints and the like). Returns the problems, paths relative to the schema; an empty
 * list means it is usable. The compiled schema is not kept in `ajv`.
 */
export function checkJsonSchema(ajv: JsonSchemaCompiler, schema: Record<string, unknown>): FieldIssue[] {
  if (schema.$schema !== undefined && schema.$schema !== JSON_SCHEMA_DIALECT) {
    return [
      { path: ['$schema'], message: `only JSON Schema 2020-12 is supported ("${JSON_SCHEMA_DIALECT}")` },
    ];
  }
  if (!ajv.validateSchema(schema)) return metaSchemaIssues(ajv.errors ?? [], schema);
  for (const keyword of extensionKeywords(schema)) {
    if (!ajv.RULES.keywords[keyword]) ajv.addKeyword(keyword);
  }
  try {
    ajv.compile(schema);
    return [];
  } catch (error) {
    return [{ path: [], message: `does not compile: ${(error as Error).message}` }];
  } finally {
    // Two resources may use the same `$id`; each is checked on its own.
    ajv.removeSchema(schema);
  }
}

/**
 * Why `schema` (already accepted by {@link checkJsonSchema}) refuses `value`, or undefined when it
 * accepts it. The compiled schema is not kept in `ajv`.
 */
export function schemaRefusal(
  ajv: JsonSchemaCompiler,
  schema: Record<string, unknown>,
  value: unknown,
): string | undefined {
  try {
    const validate = ajv.compile(schema);
    if (validate(value)) return undefined;
    const error = validate.errors?.[0];
    return error ? `${error.instancePath || '(root)'} ${error.message ?? 'is refused'}` : 'is refused';
  } finally {
    ajv.removeSchema(schema);
  }
}
