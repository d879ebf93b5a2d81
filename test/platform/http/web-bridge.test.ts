/** Web-standard handlers behind the uWS pipeline: buffered answers and event streams. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { access } from '../../../src/platform/auth/guard.js';
import { defineRoute } from '../../../src/platform/http/server.js';
import { fromWebResponse, toWebRequest } from '../../../src/platform/http/web.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startTestApp();
  token = (await t.token()).token;
  t.app.http.add(
    defineRoute({
      method: 'POST',
      path: '/api/_test/web',
      access: access.authenticated,
      rawBody: true,
      handler: async (ctx) => {
        const request = toWebRequest(ctx, 'http://r3.test');
        const seen = {
          method: request.method,
          url: request.url,
          type: request.headers.get('x-kind'),
          body: await request.text(),
        };
        if (seen.type === 'stream') {
          const encoder = new TextEncoder();
          const stream = new ReadableStream({
            start(controller) {
              controller.enqueue(encoder.encode('event: one\ndata: 1\n\n'));
              controller.enqueue(encoder.encode('event: two\ndata: 2\n\n'));
              controller.close();
            },
          });
          return fromWebResponse(new Response(stream, { headers: { 'content-type': 'text/event-stream' } }));
        }
        return fromWebResponse(
          new Response(JSON.stringify(seen), {
            status: 202,
            headers: { 'content-type': 'application/json', 'x-extra': 'yes' },
          }),
        );
      },
    }),
  );
});
afterAll(() => t.close());

describe('web-standard bridge', () => {
  it('passes method, url, headers and body through and returns status, headers and body', async () => {
    const res = await t.request('POST', '/api/_test/web', {
      token,
      rawBody: '{"a":1}',
      headers: { 'x-kind': 'json' },
    });
    expect(res.status).toBe(202);
    expect(res.headers.get('x-extra')).toBe('yes');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.body).toEqual({
      method: 'POST',
      url: 'http://r3.test/api/_test/web',
      type: 'json',
      body: '{"a":1}',
    });
  });

  it('streams a text/event-stream response chunk by chunk and ends it', async () => {
    const res = await fetch(`${t.url}/api/_test/web`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'x-kind': 'stream' },
      body: '{}',
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(await res.text()).toBe('event: one\ndata: 1\n\nevent: two\ndata: 2\n\n');
  });
});
