/**
 * The API's description, public: `GET /api/v1/openapi.json` (the OpenAPI 3.1 document of every
 * route this process serves; another version is 404) and `GET /docs`, a reference page rendered by
 * Swagger UI from the `swagger-ui-dist` package (its script and stylesheet served from
 * node_modules, nothing from a CDN).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { access } from '../auth/guard.js';
import { notFound } from '../errors.js';
import { openApiDocument } from './openapi.js';
import { JSON_CONTENT_TYPE, raw } from './reply.js';
import { defineRoute, type RouteDef } from './server.js';

/** The API versions this process documents. */
const VERSIONS = ['v1'];

const DOCS_ASSETS: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
};

/** The page's own script, served as a file so the policy allows no inline script. */
const DOCS_INIT = {
  name: 'init.js',
  body: Buffer.from(
    "window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#swagger-ui', deepLinking: true });\n",
  ),
  contentType: 'text/javascript; charset=utf-8',
};

/**
 * The page's policy: scripts, styles and the document only from this origin (Swagger UI's icons are
 * `data:` images), no inline script, and no framing by any page (clickjacking).
 */
const DOCS_HEADERS = {
  'Content-Security-Policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

/** `routes()` gives every route served (read on the first request, once all are added). */
export function apiDocsRoutes(routes: () => readonly RouteDef[], baseUrl: () => string): RouteDef[] {
  let text: string | null = null;
  const documentText = () => {
    text ??= JSON.stringify(openApiDocument(routes(), { version: packageVersion(), baseUrl: baseUrl() }));
    return text;
  };
  const assets = new Map<string, Buffer>();
  return [
    defineRoute({
      method: 'GET',
      path: '/api/:version/openapi.json',
      access: access.public,
      params: z.object({ version: z.string().meta({ description: 'The API version: v1.' }) }),
      summary: 'The OpenAPI 3.1 document of this API (404 for an unknown version).',
      responses: {
        200: { description: 'The OpenAPI 3.1 document.', schema: z.record(z.string(), z.unknown()) },
      },
      handler: ({ params }) => {
        if (!VERSIONS.includes(params.version)) throw notFound('API version', params.version);
        return raw(200, documentText(), JSON_CONTENT_TYPE);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/docs',
      access: access.public,
      summary: 'The API reference page (Swagger UI over /api/v1/openapi.json).',
      responses: { 200: { description: 'An HTML page.', contentType: 'text/html' } },
      handler: () => raw(200, DOCS_PAGE, 'text/html; charset=utf-8', DOCS_HEADERS),
    }),
    defineRoute({
      method: 'GET',
      path: '/docs/:asset',
      access: access.public,
      params: z.object({ asset: z.string() }),
      summary: "The reference page's script and stylesheet.",
      responses: { 200: { description: 'A script or stylesheet.', contentType: 'text/javascript' } },
      hidden: true,
      handler: ({ params }) => {
        if (params.asset === DOCS_INIT.name) return raw(200, DOCS_INIT.body, DOCS_INIT.contentType);
        const type = DOCS_ASSETS[params.asset];
        if (!type) throw notFound('asset', params.asset);
        let body = assets.get(params.asset);
        if (!body) {
          body = readFileSync(swaggerUiFile(params.asset));
          assets.set(params.asset, body);
        }
        return raw(200, body, type);
      },
    }),
  ];
}

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>r3 API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/${DOCS_INIT.name}"></script>
</body>
</html>
`;

const require = createRequire(import.meta.url);

function swaggerUiFile(name: string): string {
  return path.join(path.dirname(require.resolve('swagger-ui-dist/package.json')), name);
}

let version: string | null = null;

/** r3's version, from the package.json above this module (src/ or dist/app/src/). */
export function packageVersion(): string {
  if (version) return version;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (parsed.name === 'r3' && parsed.version) {
        version = parsed.version;
        return version;
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return '0.0.0';
    dir = parent;
  }
}
