/**
 * The OpenAPI document: valid OpenAPI 3.1 (by swagger-parser), one operation per served route with
 * its parameters, body, security and error answers; another version is 404; the /docs page and its
 * assets come from this process (no CDN).
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { openApiChecker } from '../../helpers/openapi-check.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

type Doc = any;

describe('GET /api/v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document, public, listing every route served', async () => {
    const answer = await t.request('GET', '/api/v1/openapi.json');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('application/json');
    const doc: Doc = answer.body;
    expect(doc.openapi).toBe('3.1.0');
    await SwaggerParser.validate(structuredClone(doc));

    const served = t.app.http.router
      .routes()
      .filter((entry) => !entry.route.hidden)
      .map((entry) => `${entry.method} ${entry.pattern.replace(/:(\w+)/g, '{$1}')}`);
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(served.sort());
    expect(served.length).toBeGreaterThan(50);
  });

  it('describes parameters, bodies, scopes and errors from the route table', async () => {
    const doc: Doc = (await t.request('GET', '/api/v1/openapi.json')).body;
    const create = doc.paths['/api/v1/webhooks'].post;
    expect(create.security).toEqual([{ bearer: ['write:resources'] }]);
    expect(create.requestBody.content['application/json'].schema.properties.url).toBeDefined();
    expect(create.requestBody.content['application/json'].schema.required).toContain('url');
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['400', '401', '403', '429']));
    expect(create.responses['400']).toEqual({ $ref: '#/components/responses/Error400' });

    const list = doc.paths['/api/v1/webhooks'].get;
    const limit = list.parameters.find((p: Doc) => p.name === 'limit');
    expect(limit).toMatchObject({ in: 'query', required: false, schema: { maximum: 200, minimum: 1 } });

    const readSkill = doc.paths['/api/v1/skills/{slug}'].get;
    expect(readSkill.security).toEqual([{ bearer: ['read:all'] }, { bearer: ['read:skills'] }]);
    expect(readSkill.parameters[0]).toMatchObject({ name: 'slug', in: 'path', required: true });

    expect(doc.paths['/healthz'].get.security).toEqual([]);
    expect(doc.paths['/healthz'].get.responses['401']).toBeUndefined();
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('is 404 for an unknown API version', async () => {
    const answer = await t.request('GET', '/api/v2/openapi.json');
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('NOT_FOUND');
  });
});

describe('GET /docs', () => {
  it('serves the reference page and its assets from this process', async () => {
    const page = await t.request('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(sources.length).toBe(3);
    for (const source of sources) {
      expect(source.startsWith('/docs/')).toBe(true);
      const asset = await t.request('GET', source);
      expect(asset.status).toBe(200);
      // Swagger UI's script and stylesheet; the page's own script names the document.
      if (source === '/docs/init.js') expect(asset.text).toContain("'/api/v1/openapi.json'");
      else expect(asset.text.length).toBeGreaterThan(10_000);
    }
    expect((await t.request('GET', '/docs/nothing.js')).status).toBe(404);
  });
});

describe('the /docs page under its Content-Security-Policy', () => {
  it('allows no inline script, nothing from another origin and no framing', async () => {
    const page = await t.request('GET', '/docs');
    const policy = page.headers.get('content-security-policy') ?? '';
    const directives = new Map(
      policy.split(';').map((part) => {
        const [name, ...values] = part.trim().split(/\s+/);
        return [name, values.join(' ')] as const;
      }),
    );
    expect(directives.get('default-src')).toBe("'none'");
    expect(directives.get('script-src')).toBe("'self'");
    expect(directives.get('frame-ancestors')).toBe("'none'");
    expect(directives.get('base-uri')).toBe("'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    // Every script is a file of this origin: the page has no inline one for the policy to refuse.
    expect(page.text).not.toMatch(/<script>|<script(?![^>]*\bsrc=)[^>]*>/);
    for (const [, source] of page.text.matchAll(/<script src="([^"]+)"/g)) {
      expect((await t.request('GET', source as string)).status).toBe(200);
    }
  });
});

describe('live answers are checked against the document (test/helpers/openapi-check.ts)', () => {
  it('rejects a body its schema does not allow and a status the operation does not document', () => {
    const check = openApiChecker(t.app);
    expect(() => check('GET', '/healthz', 200, 'application/json', { status: 'ok' })).not.toThrow();
    expect(() => check('GET', '/healthz', 200, 'application/json', { status: 'fine' })).toThrow(/rejects/);
    expect(() => check('GET', '/healthz', 418, 'application/json', { status: 'ok' })).toThrow(
      /does not document/,
    );
    const error = { error: { code: 'NOT_FOUND', message: 'No run.', details: {} } };
    expect(() => check('GET', '/api/v1/runs/1', 404, 'application/json', error)).not.toThrow();
    expect(() =>
      check('GET', '/api/v1/runs/1', 404, 'application/json', { error: { code: 'GONE', message: 'x' } }),
    ).toThrow(/rejects/);
  });
});
