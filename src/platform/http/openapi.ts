/**
 * The OpenAPI 3.1 document, generated from the route table: each route's path and query parameters,
 * body and answers from its zod schemas (zod's own JSON Schema output, draft 2020-12, which 3.1
 * uses), its access rule as a security requirement (a scope rule lists its scopes, one requirement
 * per alternative; public routes need none), and the error answers the pipeline can give it.
 *
 * Built once per process on first request (`openApiText`) and served as text; routes flagged
 * `hidden` (the version fallback itself) are left out.
 */
import { z } from 'zod';
import type { Access } from '../auth/guard.js';
import type { RouteDef } from './server.js';

type JsonSchema = Record<string, unknown>;

/** Every error answer's body (`ApiError.toBody()`). */
export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.enum([
        'UNAUTHORIZED',
        'FORBIDDEN',
        'NOT_FOUND',
        'VALIDATION_FAILED',
        'RATE_LIMITED',
        'CONFLICT',
        'INTERNAL',
        'METHOD_NOT_ALLOWED',
      ]),
      message: z.string(),
      details: z.record(z.string(), z.unknown()),
    }),
  })
  .meta({ description: 'An error: a stable code, a human message and machine-readable details.' });

const ERRORS: Record<number, string> = {
  400: 'The parameters, query or body failed validation (details.issues names each field).',
  401: 'No valid Bearer token.',
  403: 'The token lacks the scope (or role) this call needs.',
  404: 'Nothing of that id in the caller’s organization (another organization’s resources are 404 too).',
  405: 'The method is not allowed on this path (Allow lists those that are).',
  409: 'The request conflicts with the resource’s current state.',
  413: 'The body exceeds the size limit.',
  429: 'Rate limit exceeded (Retry-After says when to retry).',
  500: 'Internal error (the request id in X-Request-Id finds it in the logs).',
};

export interface OpenApiInfo {
  version: string;
  /** The server URL the document names. */
  baseUrl: string;
}

/** The OpenAPI 3.1 document of `routes`. */
export function openApiDocument(routes: readonly RouteDef[], info: OpenApiInfo): JsonSchema {
  const components: Record<string, JsonSchema> = { ErrorBody: toSchema(errorBodySchema, 'output') };
  const shared = new SharedDefs(components);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if (route.hidden) continue;
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    paths[path] ??= {};
    (paths[path] as Record<string, unknown>)[route.method.toLowerCase()] = operation(route, shared);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'r3',
      version: info.version,
      description: 'Runs, reviews and resources. Every error answers {error: {code, message, details}}.',
    },
    servers: [{ url: info.baseUrl }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An r3 API token (r3_live_… / r3_test_…). Security requirements list the scopes a route needs.',
        },
      },
      responses: Object.fromEntries(
        Object.entries(ERRORS).map(([status, description]) => [
          `Error${status}`,
          {
            description,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
          },
        ]),
      ),
    },
  };
}

function operation(route: RouteDef, shared: SharedDefs): JsonSchema {
  const op: JsonSchema = {
    operationId: operationId(route),
    summary: route.summary ?? `${route.method} ${route.path}`,
    tags: [tagOf(route.path)],
  };
  const parameters = [...pathParameters(route, shared), ...objectParameters(route.query, 'query', shared)];
  if (parameters.length > 0) op.parameters = parameters;
  if (route.body) {
    op.requestBody = {
      required: true,
      content: { 'application/json': { schema: shared.add(toSchema(route.body, 'input')) } },
    };
  } else if (route.rawBody) {
    op.requestBody = {
      required: true,
      content: { [route.rawBodyType ?? 'application/json']: { schema: {} } },
    };
  }
  op.security = security(route.access);
  if (route.access.kind !== 'public') {
    const scopes = requiredScopes(route.access);
    if (scopes.length > 0) op['x-required-scopes'] = scopes;
  }
  op.responses = responses(route, shared);
  return op;
}

function responses(route: RouteDef, shared: SharedDefs): JsonSchema {
  const out: JsonSchema = {};
  const declared = route.responses ?? {};
  for (const [status, answer] of Object.entries(declared)) {
    if (!answer) continue;
    out[status] = {
      description: answer.description,
      content: {
        [answer.contentType ?? 'application/json']: {
          schema: answer.schema ? shared.add(toSchema(answer.schema, 'output')) : {},
        },
      },
    };
  }
  if (Object.keys(declared).length === 0) {
    out[route.method === 'POST' ? '2XX' : '200'] = {
      description: route.summary ?? 'Success.',
      content: { 'application/json': { schema: {} } },
    };
  }
  const errors = new Set<number>([404, 500]);
  if (route.access.kind !== 'public') {
    errors.add(401);
    errors.add(429);
  } else if (route.limitByAddress) errors.add(429);
  if (route.access.kind === 'scope' || route.access.kind === 'approve') errors.add(403);
  // Path parameters are checked on every route (input-guard.ts), with or without a schema.
  if (route.params || route.query || route.body || route.path.includes(':')) errors.add(400);
  if (route.body || route.rawBody) errors.add(413);
  if (route.method !== 'GET') errors.add(409);
  for (const status of route.errors ?? []) errors.add(status);
  for (const status of [...errors].sort()) {
    if (out[String(status)] === undefined)
      out[String(status)] = { $ref: `#/components/responses/Error${status}` };
  }
  return out;
}

function security(rule: Access): Array<Record<string, string[]>> {
  switch (rule.kind) {
    case 'public':
      return [];
    case 'authenticated':
      return [{ bearer: [] }];
    case 'scope':
      return rule.anyOf.map((scope) => ({ bearer: [scope] }));
    case 'approve':
      return [{ bearer: ['run:approve'] }];
  }
}

function requiredScopes(rule: Access): string[] {
  if (rule.kind === 'scope') return [...rule.anyOf];
  if (rule.kind === 'approve') return ['run:approve'];
  return [];
}

function pathParameters(route: RouteDef, shared: SharedDefs): JsonSchema[] {
  const names = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1] as string);
  const properties = route.params ? propertiesOf(toSchema(route.params, 'input')) : {};
  return names.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: shared.add((properties[name] as JsonSchema | undefined) ?? { type: 'string' }),
  }));
}

function objectParameters(schema: z.ZodType | undefined, where: 'query', shared: SharedDefs): JsonSchema[] {
  if (!schema) return [];
  const json = toSchema(schema, 'input');
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(propertiesOf(json)).map(([name, property]) => {
    const { description, ...rest } = property as JsonSchema;
    return {
      name,
      in: where,
      required: required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: shared.add(rest),
    };
  });
}

function propertiesOf(json: JsonSchema): Record<string, unknown> {
  return (json.properties as Record<string, unknown> | undefined) ?? {};
}

/** zod → JSON Schema 2020-12; what JSON Schema cannot say (transforms, custom checks) is left open. */
function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete json.$schema;
  return json;
}

/**
 * Moves each schema's `$defs` (recursive and registered schemas) into the document's
 * `components.schemas`, rewriting `#/$defs/X` references to point there: inside an OpenAPI document
 * a local `#/$defs` would resolve against the document's root.
 */
class SharedDefs {
  private count = 0;
  constructor(private readonly components: Record<string, JsonSchema>) {}

  add(schema: JsonSchema): JsonSchema {
    const defs = schema.$defs as Record<string, JsonSchema> | undefined;
    if (!defs) return schema;
    const { $defs: _, ...rest } = schema;
    const names: Record<string, string> = {};
    for (const name of Object.keys(defs)) {
      this.count++;
      names[name] = /^[A-Za-z][A-Za-z0-9_]*$/.test(name) ? `${name}_${this.count}` : `Def${this.count}`;
    }
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value === null || typeof value !== 'object') return value;
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(value)) {
        if (key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')) {
          out[key] = `#/components/schemas/${names[inner.slice('#/$defs/'.length)]}`;
        } else out[key] = rewrite(inner);
      }
      return out;
    };
    for (const [name, def] of Object.entries(defs)) {
      this.components[names[name] as string] = rewrite(def) as JsonSchema;
    }
    return rewrite(rest) as JsonSchema;
  }
}

function operationId(route: RouteDef): string {
  const words = route.path
    .replace(/^\/api\/v1\//, '')
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? `by-${segment.slice(1)}` : segment));
  const camel = [route.method.toLowerCase(), ...words]
    .join('-')
    .replace(/[^A-Za-z0-9]+(.)/g, (_, c: string) => c.toUpperCase());
  return camel;
}

function tagOf(path: string): string {
  const segments = path.split('/').filter(Boolean);
  if (segments[0] !== 'api') return segments[0] === 'mcp' ? 'mcp' : 'operations';
  return segments[2] ?? 'api';
}
