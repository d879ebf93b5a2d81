/**
 * Checks live answers against the OpenAPI document: every answer a test receives through
 * `TestApp.request` must have a documented status for its route, and a JSON body that validates
 * against that status's schema (ajv, JSON Schema 2020-12). A mismatch throws, failing the test.
 * Routes a test added itself (absent from the document) are not checked.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { App } from '../../src/main.js';
import { packageVersion } from '../../src/platform/http/api-docs.js';
import { openApiDocument } from '../../src/platform/http/openapi.js';

type Json = any;

export type AnswerCheck = (
  method: string,
  path: string,
  status: number,
  contentType: string,
  body: unknown,
) => void;

/** A checker for the answers of `app` (the document is built on first use, once routes are in). */
export function openApiChecker(app: App): AnswerCheck {
  let doc: Json | null = null;
  let ajv: Ajv2020 | null = null;
  const compiled = new Map<string, ValidateFunction>();
  return (method, rawPath, status, contentType, body) => {
    const path = rawPath.split('?')[0] as string;
    const lookup = app.http.router.find(method, path);
    if (lookup.kind !== 'match' || lookup.match.route.hidden) return;
    doc ??= openApiDocument(
      app.http.router.routes().map((entry) => entry.route),
      { version: packageVersion(), baseUrl: app.url },
    );
    if (!ajv) {
      ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats.default(ajv);
      ajv.addSchema(doc, 'openapi.json');
    }
    const route = lookup.match.route;
    const key = route.path.replace(/:(\w+)/g, '{$1}');
    const operation = doc.paths[key]?.[route.method.toLowerCase()];
    if (!operation) return;
    const statusKey = [String(status), `${String(status)[0]}XX`, 'default'].find(
      (candidate) => operation.responses[candidate] !== undefined,
    );
    if (!statusKey) {
      throw new Error(
        `${method} ${path} answered ${status}, which its OpenAPI operation ${operation.operationId} does not document (${Object.keys(operation.responses).join(', ')}): ${JSON.stringify(body).slice(0, 300)}`,
      );
    }
    if (!contentType.includes('json') || typeof body === 'string') return;
    const pointer = `openapi.json#/paths/${pointerSegment(key)}/${route.method.toLowerCase()}/responses/${statusKey}`;
    const cacheKey = `${pointer} ${contentType}`;
    let validate = compiled.get(cacheKey);
    if (!validate) {
      const response = resolve(doc, operation.responses[statusKey]);
      const mediaType = Object.keys(response.content ?? {}).find((type) => type.includes('json'));
      if (!mediaType) return;
      validate = ajv.compile({
        $ref: `${response === operation.responses[statusKey] ? pointer : refPointer(operation.responses[statusKey].$ref)}/content/${pointerSegment(mediaType)}/schema`,
      });
      compiled.set(cacheKey, validate);
    }
    if (!validate(body)) {
      throw new Error(
        `${method} ${path} answered ${status} with a body its OpenAPI schema (${operation.operationId}) rejects: ${ajv.errorsText(validate.errors)}; body ${JSON.stringify(body).slice(0, 500)}`,
      );
    }
  };
}

function resolve(doc: Json, node: Json): Json {
  if (!node?.$ref) return node;
  return (node.$ref as string)
    .slice(2)
    .split('/')
    .reduce((at: Json, part) => at[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

function refPointer(ref: string): string {
  return `openapi.json${ref}`;
}

/** A JSON pointer segment, as it stands in a URI fragment. */
function pointerSegment(segment: string): string {
  return encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));
}
