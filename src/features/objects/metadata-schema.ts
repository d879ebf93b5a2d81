/**
 * Validation of an instance's `metadata` against its object type's JSON Schema. The schema was checked
 * strictly when the type was written (json-schema.ts), so here ajv runs non-strict (annotation keywords
 * such as `x-*` pass) but with formats enforced. Compiled validators are cached by schema text.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import type { FieldIssue } from '../../platform/errors.js';
import { setBounded } from '../../platform/util/bounded-map.js';
import { linearRegExp } from '../../platform/util/linear-regexp.js';

const MAX_CACHED = 256;

export class MetadataValidator {
  private readonly ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    logger: false,
    code: { regExp: linearRegExp },
  });
  private readonly cache = new Map<string, ValidateFunction>();

  constructor() {
    ajvFormats.default(this.ajv);
  }

  /** The problems of `metadata` under `schema`, as fields under `prefix` (e.g. `body.metadata`). */
  check(schema: Record<string, unknown>, metadata: unknown, prefix: string): FieldIssue[] {
    const validate = this.compiled(schema);
    if (validate(metadata)) return [];
    return (validate.errors ?? []).map((error) => toIssue(error, prefix));
  }

  private compiled(schema: Record<string, unknown>): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.cache.get(key);
    if (validate) {
      // Refresh its place in the insertion order, which is the eviction order.
      this.cache.delete(key);
      this.cache.set(key, validate);
      return validate;
    }
    // `$id`s may repeat across types; each compile is standalone.
    const { $id: _id, ...standalone } = schema;
    validate = this.ajv.compile(standalone);
    setBounded(this.cache, key, validate, MAX_CACHED);
    return validate;
  }
}

function toIssue(error: ErrorObject, prefix: string): FieldIssue {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    segments.push(params.missingProperty);
  } else if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    segments.push(params.additionalProperty);
  }
  return {
    field: [prefix, ...segments].join('.'),
    message: error.message ?? 'is invalid',
    keyword: error.keyword,
  };
}
