/**
 * Requests pipelined on one connection (HTTP/1.1 pipelining). On the node:http engine they are all
 * answered, in order. The native uWS build cannot answer a request while an earlier one on the same
 * connection is pending: it drops the connection — so r3 makes sure that nothing was done for a
 * request it cannot answer (before, the first request ran and answered nothing), and says so in
 * docs/api.md. Browsers and HTTP clients do not pipeline; this is what a hand-made client meets.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  token = (await t.token({ scopes: ALL_SCOPES })).token;
});
afterAll(async () => {
  await t.close();
});

/** Writes `raw` in one go and collects what comes back until the server closes or 1.5 s pass. */
function exchange(raw: string): Promise<string> {
  const { port } = new URL(t.url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let out = '';
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(out);
    };
    const timer = setTimeout(done, 1_500);
    socket.on('data', (chunk) => {
      out += chunk.toString();
    });
    socket.on('close', done);
    socket.on('error', done);
    socket.on('connect', () => socket.write(raw));
  });
}

const post = (slug: string) => {
  const body = JSON.stringify({ manifest: { slug, name: slug }, promptMd: 'x' });
  return (
    `POST /api/v1/skills HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
};

const exists = async (slug: string) =>
  (await t.request('GET', `/api/v1/skills/${slug}`, { token })).status === 200;

describe('pipelined requests', () => {
  it('either are all answered in order, or nothing is done for those that are not', async () => {
    const out = await exchange(post('pipe-a') + post('pipe-b'));
    const statuses = [...out.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
    if (t.app.http.engine.kind === 'native') {
      // The connection was dropped: no answer, and no skill created behind the client's back.
      expect(statuses).toEqual([]);
      expect(await exists('pipe-a')).toBe(false);
      expect(await exists('pipe-b')).toBe(false);
    } else {
      expect(statuses).toEqual([201, 201]);
      expect(await exists('pipe-a')).toBe(true);
      expect(await exists('pipe-b')).toBe(true);
    }
    // The server is unharmed.
    expect((await t.request('GET', '/healthz')).status).toBe(200);
  });

  it('one request per connection (or one after the other) is always answered', async () => {
    expect(await exchange(post('pipe-c'))).toMatch(/^HTTP\/1\.1 201/);
    expect(await exists('pipe-c')).toBe(true);
  });
});
