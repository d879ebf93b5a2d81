/**
 * Compiled JSON Schema validators of skill and workflow input/output schemas, compiled once per
 * (org, workspace version, resource, which schema) and kept in a bounded LRU map: a workspace version
 * never changes, so its compiled validators never go stale.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { FieldIssue } from '../../platform/errors.js';
import { setBounded } from '../../platform/util/bounded-map.js';
import { createJsonSchemaCompiler, type JsonSchemaCompiler } from '../workspace/index.js';

/** Validates a value; returns the problems (empty when it conforms). */
export type SchemaCheck = (value: unknown) => FieldIssue[];

/** The cache. */
export interface SchemaCache {
  /**
   * The check of `schema`, compiled on first use for `key`. `key` must identify the schema's content
   * (e.g. `<org>:<workspaceSha>:skill:<slug>:input`). `field` prefixes the issues' field paths.
   */
  check(key: string, schema: Record<string, unknown>, field: string): SchemaCheck;
  readonly size: number;
}

function pointerToField(prefix: string, pointer: string): string {
  if (pointer === '') return prefix;
  const parts = pointer
    .slice(1)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
  return [prefix, ...parts].join('.');
}

function toIssues(errors: readonly ErrorObject[] | null | undefined, field: string): FieldIssue[] {
  return (errors ?? []).map((error) => {
    const missing =
      error.keyword === 'required' ? (error.params as { missingProperty?: string }).missingProperty : null;
    const where = pointerToField(field, error.instancePath);
    return {
      field: missing ? `${where}.${missing}` : where,
      message: error.message ?? 'is invalid',
      keyword: error.keyword,
    };
  });
}

/** Registers `x-…` annotation keywords so strict mode accepts them (as the workspace validator does). */
function allowExtensions(ajv: JsonSchemaCompiler, node: unknown): void {
  if (Array.isArray(node)) for (const item of node) allowExtensions(ajv, item);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith('x-') && !ajv.RULES.keywords[key]) ajv.addKeyword(key);
      allowExtensions(ajv, value);
    }
  }
}

/** Creates a cache holding at most `max` compiled schemas. */
export function createSchemaCache(max = 1_000): SchemaCache {
  const ajv = createJsonSchemaCompiler();
  const cache = new Map<string, ValidateFunction>();
  return {
    check(key, schema, field) {
      let validate = cache.get(key);
      if (validate) {
        // Refresh its place in the LRU order.
        cache.delete(key);
        cache.set(key, validate);
      } else {
        allowExtensions(ajv, schema);
        validate = ajv.compile(schema);
        // Two resources may use the same `$id`: the compiled function stays usable without the registry entry.
        ajv.removeSchema(schema);
        setBounded(cache, key, validate, max);
      }
      const compiled = validate;
      return (value) => (compiled(value) ? [] : toIssues(compiled.errors, field));
    },
    get size() {
      return cache.size;
    },
  };
}
