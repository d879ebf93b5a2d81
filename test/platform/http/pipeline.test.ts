/**
 * The HTTP pipeline through a real socket: error shapes and codes of docs/api.md "Conventions", request ids,
 * body limits, malformed input, unexpected faults, aborted clients, and the guard on every kind of
 * route access (test routes registered on the live server).
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { access } from '../../../src/platform/auth/guard.js';
import { ok } from '../../../src/platform/http/reply.js';
import { defineRoute, MAX_BODY_BYTES } from '../../../src/platform/http/server.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let token: string;
let gate: { release: () => void; reached: Promise<void> } | null = null;

// The pipeline behaves the same on a native uWS build and on the node:http engine (uws-node.ts).
describe.each(['auto', 'node'] as const)('R3_HTTP_ENGINE=%s', (engine) => {
  beforeAll(async () => {
    t = await startTestApp({ R3_HTTP_ENGINE: engine });
    token = (await t.token({ scopes: ['read:all', 'write:resources', 'run:invoke', 'run:approve'] })).token;
    t.app.http.add(
      defineRoute({
        method: 'POST',
        path: '/api/v1/_test/echo/:name',
        access: access.write,
        params: z.object({ name: z.string().min(3) }),
        query: z.object({ limit: z.coerce.number().int().min(1).max(200).optional() }).strict(),
        body: z.object({ title: z.string(), count: z.number().int() }).strict(),
        handler: ({ params, query, body }) => ok({ params, query, body }),
      }),
    );
    t.app.http.add(
      defineRoute({
        method: 'GET',
        path: '/api/v1/_test/boom',
        access: access.read,
        handler: () => {
          throw new Error('secret internal detail at /srv/r3/boom.ts:12');
        },
      }),
    );
    t.app.http.add(
      defineRoute({
        method: 'GET',
        path: '/api/v1/_test/slow',
        access: access.read,
        handler: async () => {
          let release = () => {};
          let reached = () => {};
          const waiting = new Promise<void>((resolve) => {
            release = resolve;
          });
          gate = { release, reached: new Promise<void>((r) => (reached = r)) };
          reached();
          await waiting;
          return ok({ done: true });
        },
      }),
    );
  });

  afterAll(() => t.close());

  describe('error shape and codes', () => {
    it('answers an unknown route with 404 NOT_FOUND in the error shape', async () => {
      const res = await t.request('GET', '/api/v1/nothing-here', { token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        error: {
          code: 'NOT_FOUND',
          message: expect.any(String),
          details: { method: 'GET', path: '/api/v1/nothing-here' },
        },
      });
    });

    it('answers an unknown method on a known path with 404 as well', async () => {
      const res = await t.request('PUT', '/api/v1/tokens', { token });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    });

    it('asks for a token before saying whether a route exists', async () => {
      const res = await t.request('GET', '/api/v1/nothing-here');
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
      expect(res.headers.get('www-authenticate')).toContain('Bearer');
    });

    it('turns an unexpected fault into 500 INTERNAL without leaking details, and keeps serving', async () => {
      const res = await t.request('GET', '/api/v1/_test/boom', { token });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        error: { code: 'INTERNAL', message: 'Internal server error.', details: {} },
      });
      expect(res.text).not.toContain('secret internal detail');
      expect(res.text).not.toContain('boom.ts');
      expect((await t.request('GET', '/healthz')).status).toBe(200);
    });
  });

  describe('request ids', () => {
    it('puts an X-Request-Id on every response, errors included', async () => {
      for (const res of [
        await t.request('GET', '/healthz'),
        await t.request('GET', '/api/v1/tokens'),
        await t.request('GET', '/api/v1/nothing', { token }),
      ]) {
        expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      }
    });

    it('echoes a well-formed incoming X-Request-Id and replaces a malformed one', async () => {
      const kept = await t.request('GET', '/healthz', { headers: { 'x-request-id': 'trace-abc.123' } });
      expect(kept.headers.get('x-request-id')).toBe('trace-abc.123');
      const replaced = await t.request('GET', '/healthz', {
        headers: { 'x-request-id': 'bad id with spaces' },
      });
      expect(replaced.headers.get('x-request-id')).not.toBe('bad id with spaces');
    });
  });

  describe('input validation', () => {
    it('passes typed params, query and body to the handler', async () => {
      const res = await t.request('POST', '/api/v1/_test/echo/alpha?limit=5', {
        token,
        body: { title: 'x', count: 2 },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        params: { name: 'alpha' },
        query: { limit: 5 },
        body: { title: 'x', count: 2 },
      });
    });

    it('answers malformed JSON with 400 VALIDATION_FAILED naming the body', async () => {
      const res = await t.request('POST', '/api/v1/_test/echo/alpha', { token, rawBody: '{"title": "x",' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details.issues[0]).toMatchObject({
        field: 'body',
        message: expect.stringContaining('Malformed JSON'),
      });
    });

    it('names every offending field of a schema violation', async () => {
      const res = await t.request('POST', '/api/v1/_test/echo/alpha', {
        token,
        body: { title: 3, count: 1.5, extra: true },
      });
      expect(res.status).toBe(400);
      const fields = res.body.error.details.issues.map((i: { field: string }) => i.field);
      expect(fields).toEqual(expect.arrayContaining(['body.title', 'body.count', 'body']));
      const unknown = res.body.error.details.issues.find(
        (i: { code: string }) => i.code === 'unrecognized_keys',
      );
      expect(unknown.keys).toEqual(['extra']);
    });

    it('names bad query values and path params', async () => {
      const query = await t.request('POST', '/api/v1/_test/echo/alpha?limit=500', {
        token,
        body: { title: 'x', count: 1 },
      });
      expect(query.status).toBe(400);
      expect(query.body.error.details.issues[0].field).toBe('query.limit');
      const unknownQuery = await t.request('POST', '/api/v1/_test/echo/alpha?color=red', {
        token,
        body: { title: 'x', count: 1 },
      });
      expect(unknownQuery.status).toBe(400);
      const param = await t.request('POST', '/api/v1/_test/echo/ab', {
        token,
        body: { title: 'x', count: 1 },
      });
      expect(param.status).toBe(400);
      expect(param.body.error.details.issues[0].field).toBe('params.name');
    });

    it('refuses a body over 1 MiB with 413 (declared length)', async () => {
      const res = await t.request('POST', '/api/v1/_test/echo/alpha', {
        token,
        rawBody: JSON.stringify({ title: 'x'.repeat(MAX_BODY_BYTES), count: 1 }),
      });
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details.limitBytes).toBe(MAX_BODY_BYTES);
    });

    it('refuses a chunked body that grows past 1 MiB with 413', async () => {
      const chunk = 'x'.repeat(64 * 1024);
      let sent = 0;
      const body = new ReadableStream({
        pull(controller) {
          if (sent > MAX_BODY_BYTES + chunk.length) return controller.close();
          sent += chunk.length;
          controller.enqueue(new TextEncoder().encode(chunk));
        },
      });
      const res = await fetch(`${t.url}/api/v1/_test/echo/alpha`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body,
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('VALIDATION_FAILED');
    });

    it('treats an empty body as {}', async () => {
      const res = await t.request('POST', '/api/v1/_test/echo/alpha', { token });
      expect(res.status).toBe(400);
      expect(res.body.error.details.issues.map((i: { field: string }) => i.field)).toEqual([
        'body.title',
        'body.count',
      ]);
    });
  });

  describe('aborted clients', () => {
    it('survives a client that disconnects while its request is in flight', async () => {
      const socket = net.connect(t.app.port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(`GET /api/v1/_test/slow HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`);
      await new Promise<void>((resolve) => {
        const check = () => (gate ? gate.reached.then(resolve) : setTimeout(check, 5));
        check();
      });
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 20));
      gate?.release();
      await new Promise((resolve) => setTimeout(resolve, 20));
      const res = await t.request('GET', '/healthz');
      expect(res.status).toBe(200);
    });

    it('survives a client that disconnects halfway through its body', async () => {
      const socket = net.connect(t.app.port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        `POST /api/v1/_test/echo/alpha HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Length: 1000\r\n\r\n{"title":`,
      );
      await new Promise((resolve) => setTimeout(resolve, 30));
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect((await t.request('GET', '/healthz')).status).toBe(200);
    });
  });

  describe('probes', () => {
    it('serves /healthz and /readyz without a token', async () => {
      expect((await t.request('GET', '/healthz')).body).toEqual({ status: 'ok' });
      const ready = await t.request('GET', '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({
        status: 'ready',
        checks: { database: { ok: true }, bus: { ok: true } },
      });
    });
  });
});

/** A port that was free a moment ago: the sharing this guards against shows only on a fixed port, not PORT=0. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the listening port', () => {
  it('is not shared: a second r3 on a port in use fails to start, and the first keeps serving', async () => {
    const port = await freePort();
    const first = await startTestApp({ PORT: String(port) }, { database: t.database });
    try {
      await expect(startTestApp({ PORT: String(port) }, { database: t.database })).rejects.toThrow(
        `cannot listen on 127.0.0.1:${port}`,
      );
      expect((await first.request('GET', '/healthz')).status).toBe(200);
    } finally {
      await first.close();
    }
  });
});
