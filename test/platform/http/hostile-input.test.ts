/**
 * Input PostgreSQL cannot store, and JSON too deep to walk, refused at the edge on every route: NUL
 * and lone surrogates in bodies (values and keys), query values and path parameters, and nesting
 * beyond 64 levels, each a 400 VALIDATION_FAILED naming the field — never a 500, and nothing stored.
 * The routes come from the live route table, so a route added later is covered too. Also: the headers
 * every answer carries (nosniff; no-store when authenticated; no server banner).
 */
import net from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef } from '../../../src/platform/http/server.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { createSkill } from '../../helpers/resources.js';
import { outboxDrained } from '../../helpers/reviews.js';
import { waitFor } from '../../helpers/wait.js';

let t: TestApp;
let token: string;
let routes: RouteDef[];

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  token = (await t.token({ scopes: ALL_SCOPES })).token;
  await createSkill(t, token, { slug: 'plain' });
  routes = t.app.http.router.routes().map((entry) => entry.route);
});
afterAll(async () => {
  await t.close();
});

/** A concrete path for a route pattern: every `:param` filled with `value`. */
const pathOf = (route: RouteDef, value = 'plain') =>
  route.path.replace(/:[a-zA-Z]+/g, encodeURIComponent(value)).replace(/\*$/, 'x');

const fields = (body: any): string[] => (body?.error?.details?.issues ?? []).map((i: any) => i.field);

async function rowTotals(): Promise<Record<string, number>> {
  // The outbox is a queue the relay drains on its own time: an earlier request's row may leave it
  // between two counts. Counted once drained (a hostile request's writes would show in other tables).
  await outboxDrained(t);
  const tables = await t.app.db.sql.query<{ tablename: string }>(
    `select tablename from pg_tables where schemaname = 'public' and tablename not in ('mikro_orm_migrations', 'rate_limits', 'audit_log', 'workers')`,
  );
  const out: Record<string, number> = {};
  for (const { tablename } of tables) {
    const [row] = await t.app.db.sql.query<{ n: number }>(`select count(*)::int as n from "${tablename}"`);
    out[tablename] = row?.n ?? 0;
  }
  return out;
}

/** `levels` nested objects as JSON text (built as text: a recursive stringify would overflow first). */
const deepRaw = (levels: number) => `${'{"a":'.repeat(levels)}"leaf"${'}'.repeat(levels)}`;

function deep(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

describe('hostile input on every route', () => {
  it('the route table is the one the app serves', () => {
    expect(routes.length).toBeGreaterThan(40);
  });

  it('a NUL in a query value is a 400 naming query.<key>, on every route that reads a query', async () => {
    for (const route of routes.filter((r) => r.query)) {
      const res = await t.request(route.method, `${pathOf(route)}?q=a%00b&limit=a%00`, { token });
      expect(res.status, `${route.method} ${route.path}: ${res.text}`).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(
        fields(res.body).some((f) => f.startsWith('query.')),
        `${route.method} ${route.path}`,
      ).toBe(true);
    }
  });

  it('a NUL in a path parameter is a 400 naming params.<name>, on every route with parameters', async () => {
    for (const route of routes.filter((r) => r.path.includes(':') && r.access.kind !== 'public')) {
      const res = await t.request(route.method, pathOf(route, 'a\u0000b'), {
        token,
        ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { body: {} }),
      });
      expect(res.status, `${route.method} ${route.path}: ${res.text}`).toBe(400);
      expect(
        fields(res.body).some((f) => f.startsWith('params.')),
        `${route.method} ${route.path}`,
      ).toBe(true);
    }
  });

  it('bodies with NUL, lone surrogates (values and keys) or 5,000 levels: 400 naming the field, nothing stored', async () => {
    const before = await rowTotals();
    const hostile: Array<{ raw: string; field: RegExp }> = [
      { raw: '{"manifest":{"slug":"x","name":"a\\u0000b"},"input":{"t":"a\\u0000"}}', field: /^body\./ },
      { raw: '{"manifest":{"slug":"x","name":"\\ud800"},"input":{"t":"\\udc00x"}}', field: /^body\./ },
      { raw: '{"input":{"a\\u0000":1},"manifest":{"na\\ud800me":"x"}}', field: /^body/ },
      {
        raw: `{"input":${deepRaw(5_000)},"manifest":${deepRaw(5_000)},"metadata":${deepRaw(5_000)}}`,
        field: /^body\./,
      },
    ];
    for (const route of routes.filter((r) => r.body && !r.rawBody)) {
      for (const { raw, field } of hostile) {
        const res = await t.request(route.method, pathOf(route), {
          token,
          rawBody: raw,
          headers: { 'content-type': 'application/json' },
        });
        expect(res.status, `${route.method} ${route.path}: ${res.text}`).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_FAILED');
        expect(
          fields(res.body).every((f) => field.test(f)),
          `${route.method} ${route.path} ${res.text}`,
        ).toBe(true);
      }
    }
    // A top-level 5,000-deep array body too.
    const arrays = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
    const res = await t.request('POST', '/api/v1/skills/plain/runs', {
      token,
      rawBody: arrays,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues[0]).toMatchObject({ code: 'too_deep' });
    expect(await rowTotals()).toEqual(before);
    expect((await t.request('GET', '/healthz')).status).toBe(200);
  });

  it('64 levels are accepted (the cap is on what is beyond)', async () => {
    const res = await t.request('POST', '/api/v1/skills/plain/runs', {
      token,
      body: { input: { text: 'x', nested: deep(62) } },
    });
    expect(res.status, res.text).toBe(202);
  });

  it('MCP tools/call arguments are held to the same rule (a tool error naming arguments.<field>)', async () => {
    const before = await rowTotals();
    const res = await t.request('POST', '/api/mcp', {
      token,
      headers: { accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'runtime_run_skill', arguments: { slug: 'plain', input: { text: 'a\u0000b' } } },
      },
    });
    expect(res.status).toBe(200);
    const result = res.body.result;
    expect(result.isError).toBe(true);
    const error = JSON.parse(result.content[0].text).error;
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details.issues[0].field).toBe('arguments.input.text');
    expect(await rowTotals()).toEqual(before);
  });
});

describe('response headers', () => {
  it('nosniff everywhere, no-store when authenticated, and no server banner', async () => {
    const anonymous = await t.request('GET', '/healthz');
    expect(anonymous.headers.get('x-content-type-options')).toBe('nosniff');
    expect(anonymous.headers.get('cache-control')).toBeNull();
    expect(anonymous.headers.get('uwebsockets')).toBeNull();
    const mine = await t.request('GET', '/api/v1/skills', { token });
    expect(mine.headers.get('x-content-type-options')).toBe('nosniff');
    expect(mine.headers.get('cache-control')).toBe('no-store');
    expect(mine.headers.get('uwebsockets')).toBeNull();
    const refused = await t.request('GET', '/api/v1/skills/ghost', { token });
    expect(refused.status).toBe(404);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    // Once: a page or an asset that names the header itself does not send it a second time.
    const page = await t.request('GET', '/review');
    expect(page.status).toBe(200);
    const asset = /src="(\/assets\/[^"]+)"/.exec(page.text)?.[1] as string;
    for (const answer of [page, await t.request('GET', asset), await t.request('GET', '/docs')]) {
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });
});

describe('a client that goes away mid-body', () => {
  it('is no server error: nothing logged at error level, the server goes on', async () => {
    const entries: Array<{ level: number; msg: string }> = [];
    const log = pino(
      { level: 'info' },
      {
        write(line: string) {
          entries.push(JSON.parse(line));
        },
      },
    );
    const quiet = await startTestApp({ R3_WORKER_CONCURRENCY: '0' }, { log });
    try {
      const own = (await quiet.token({ scopes: ALL_SCOPES })).token;
      const { port } = new URL(quiet.url);
      const socket = net.connect(Number(port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        `POST /api/v1/skills HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${own}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"manifest":',
      );
      // Authentication is answered before the body is awaited: wait until the request is in flight.
      await waitFor(() => quiet.app.http.inflight === 1, 'the request to be in flight');
      socket.destroy();
      await waitFor(() => quiet.app.http.inflight === 0, 'the request to end');
      expect((await quiet.request('GET', '/healthz')).status).toBe(200);
      expect(entries.filter((e) => e.level >= 50)).toEqual([]);
      expect(entries.find((e) => e.msg === 'request' && (e as any).status === 499)).toBeDefined();
    } finally {
      await quiet.close();
    }
  });
});
