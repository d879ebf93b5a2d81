import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createDeliveryAgentPool,
  type DeliveryAgentPool,
  type DeliveryRequest,
  type DeliveryResult,
  postWebhook,
} from '../../../src/features/webhooks/deliver-http.js';
import { TEST_TLS_CERT, TEST_TLS_HOSTNAME, TEST_TLS_KEY } from './tls-fixture.js';

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

const servers: http.Server[] = [];
const pools: DeliveryAgentPool[] = [];

afterEach(async () => {
  for (const pool of pools.splice(0)) pool.destroy();
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

/** Starts a server that records every request and answers with `handler` once the body is in. */
async function serve(
  handler: Handler,
  options: { host?: string; port?: number; tls?: boolean } = {},
): Promise<{ server: http.Server; port: number; received: Received[]; connections: () => number }> {
  const received: Received[] = [];
  let connections = 0;
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ method: req.method, url: req.url, headers: req.headers, body });
      handler(req, res, body);
    });
  };
  const server = options.tls
    ? https.createServer({ key: TEST_TLS_KEY, cert: TEST_TLS_CERT }, onRequest)
    : http.createServer(onRequest);
  server.on(options.tls ? 'secureConnection' : 'connection', () => {
    connections += 1;
  });
  servers.push(server);
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, received, connections: () => connections };
}

function attempt(url: string, overrides: Partial<DeliveryRequest> = {}): Promise<DeliveryResult> {
  return postWebhook({
    url: new URL(url),
    address: '127.0.0.1',
    family: 4,
    body: '{"event":"run.completed"}',
    headers: { 'X-Service-Signature': 't=1,v1=ab' },
    timeoutMs: 5_000,
    ...overrides,
  });
}

function pool(options: Parameters<typeof createDeliveryAgentPool>[0] = {}): DeliveryAgentPool {
  const created = createDeliveryAgentPool(options);
  pools.push(created);
  return created;
}

describe('postWebhook', () => {
  it('POSTs the JSON body with its headers, and a 2xx is ok', async () => {
    const { port, received } = await serve((_req, res) => res.writeHead(200).end('thanks'));
    const result = await attempt(`http://127.0.0.1:${port}/hooks/in?tenant=a`, {
      headers: { 'X-Service-Signature': 't=1,v1=ab', 'content-type': 'text/plain', Host: 'evil.example' },
    });
    expect(result).toMatchObject({ status: 200, ok: true, bodyExcerpt: 'thanks' });
    expect(result.error).toBeUndefined();
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(received).toHaveLength(1);
    const [req] = received;
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe('/hooks/in?tenant=a');
    expect(req?.body).toBe('{"event":"run.completed"}');
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.headers['user-agent']).toBe('r3-webhooks/1');
    expect(req?.headers['x-service-signature']).toBe('t=1,v1=ab');
    expect(req?.headers.host).toBe(`127.0.0.1:${port}`);
  });

  it('reports a 500 as not ok, with the body excerpt', async () => {
    const { port } = await serve((_req, res) => res.writeHead(500).end('boom'));
    expect(await attempt(`http://127.0.0.1:${port}/`)).toMatchObject({
      status: 500,
      ok: false,
      bodyExcerpt: 'boom',
    });
  });

  it('does not follow a redirect, and counts it as a failure', async () => {
    const target = await serve((_req, res) => res.writeHead(200).end());
    const { port } = await serve((_req, res) =>
      res.writeHead(302, { Location: `http://127.0.0.1:${target.port}/elsewhere` }).end(),
    );
    const result = await attempt(`http://127.0.0.1:${port}/`);
    expect(result).toMatchObject({ status: 302, ok: false, error: 'redirect_not_followed' });
    expect(target.received).toHaveLength(0);
  });

  it('times out when no answer comes', async () => {
    const { port, received } = await serve(() => {});
    const result = await attempt(`http://127.0.0.1:${port}/`, { timeoutMs: 150 });
    expect(result).toMatchObject({ status: null, ok: false, error: 'timeout' });
    expect(result.durationMs).toBeGreaterThanOrEqual(140);
    expect(received).toHaveLength(1);
  });

  it('times out when the answer body never ends', async () => {
    const { port } = await serve((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    expect(await attempt(`http://127.0.0.1:${port}/`, { timeoutMs: 150 })).toMatchObject({
      status: null,
      ok: false,
      error: 'timeout',
    });
  });

  it('caps the body it reads and cuts the connection', async () => {
    let closedEarly!: () => void;
    const cut = new Promise<void>((resolve) => {
      closedEarly = resolve;
    });
    const { port } = await serve((_req, res) => {
      res.writeHead(200);
      // An endless body: the attempt can only finish by cutting the connection.
      const pump = (): void => {
        while (!res.destroyed && res.write('x'.repeat(1024))) {}
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('close', closedEarly);
      pump();
    });
    const result = await attempt(`http://127.0.0.1:${port}/`, { maxResponseBytes: 4096 });
    expect(result).toMatchObject({ status: 200, ok: true });
    expect(result.bodyExcerpt).toBe('x'.repeat(4096));
    await cut;
  });

  it('defaults the cap to 4096 bytes', async () => {
    const { port } = await serve((_req, res) => res.writeHead(500).end('y'.repeat(10_000)));
    const result = await attempt(`http://127.0.0.1:${port}/`);
    expect(result.bodyExcerpt).toHaveLength(4096);
  });

  it('connects to the pinned address whatever the host name resolves to', async () => {
    const { port, received } = await serve((_req, res) => res.writeHead(204).end());
    // .test never resolves (RFC 2606), so only the pinned address can have been used.
    const result = await attempt(`http://${TEST_TLS_HOSTNAME}:${port}/in`, {
      address: '127.0.0.1',
      family: 4,
    });
    expect(result).toMatchObject({ status: 204, ok: true });
    expect(received[0]?.headers.host).toBe(`${TEST_TLS_HOSTNAME}:${port}`);
  });

  it('connects to the pinned address rather than where the name points', async () => {
    const real = await serve((_req, res) => res.writeHead(200).end('real'), { host: '127.0.0.2' });
    const decoy = await serve((_req, res) => res.writeHead(200).end('decoy'), {
      host: '127.0.0.1',
      port: real.port,
    });
    const result = await attempt(`http://localhost:${real.port}/`, { address: '127.0.0.2', family: 4 });
    expect(result).toMatchObject({ ok: true, bodyExcerpt: 'real' });
    expect(decoy.received).toHaveLength(0);
  });

  it('keeps the host name for TLS: SNI and certificate checks use it', async () => {
    let servername: string | false | null | undefined;
    const { server, port } = await serve((_req, res) => res.writeHead(200).end('tls'), { tls: true });
    server.on('secureConnection', (socket: TLSSocket) => {
      servername = socket.servername;
    });
    const trusted = pool({ ca: TEST_TLS_CERT });
    const ok = await attempt(`https://${TEST_TLS_HOSTNAME}:${port}/`, { agents: trusted });
    expect(ok).toMatchObject({ status: 200, ok: true, bodyExcerpt: 'tls' });
    expect(servername).toBe(TEST_TLS_HOSTNAME);

    const wrongName = await attempt(`https://other.example.test:${port}/`, { agents: trusted });
    expect(wrongName).toMatchObject({ status: null, ok: false, error: 'ERR_TLS_CERT_ALTNAME_INVALID' });

    const untrusted = await attempt(`https://${TEST_TLS_HOSTNAME}:${port}/`, { agents: pool() });
    expect(untrusted).toMatchObject({ status: null, ok: false });
    expect(untrusted.error).toMatch(/CERT/);
  });

  it('refuses a literal IP in the URL that is not the pinned address', async () => {
    const { port, received } = await serve((_req, res) => res.writeHead(200).end());
    const result = await attempt(`http://127.0.0.1:${port}/`, { address: '127.0.0.2' });
    expect(result).toMatchObject({ status: null, ok: false, error: 'address_mismatch' });
    expect(received).toHaveLength(0);
  });

  it('reports a refused connection by its code', async () => {
    const { server, port } = await serve(() => {});
    await new Promise((resolve) => server.close(resolve));
    expect(await attempt(`http://127.0.0.1:${port}/`)).toMatchObject({
      status: null,
      ok: false,
      error: 'ECONNREFUSED',
    });
  });

  it('stops when aborted', async () => {
    const { port } = await serve(() => {});
    const controller = new AbortController();
    const pending = attempt(`http://127.0.0.1:${port}/`, { signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ status: null, ok: false, error: 'aborted' });
  });
});

describe('createDeliveryAgentPool', () => {
  it('reuses a kept-alive connection for the next delivery to the same origin', async () => {
    const { port, connections } = await serve((_req, res) => res.writeHead(200).end('ok'));
    const agents = pool();
    expect(await attempt(`http://127.0.0.1:${port}/a`, { agents })).toMatchObject({ ok: true });
    expect(await attempt(`http://127.0.0.1:${port}/b`, { agents })).toMatchObject({ ok: true });
    expect(connections()).toBe(1);
  });

  it('bounds sockets per origin, so a stuck endpoint does not hold up another', async () => {
    const held: http.ServerResponse[] = [];
    let firstArrived!: () => void;
    const arrived = new Promise<void>((resolve) => {
      firstArrived = resolve;
    });
    const slow = await serve((_req, res) => {
      held.push(res);
      firstArrived();
    });
    const fast = await serve((_req, res) => res.writeHead(200).end());
    const agents = pool({ maxSocketsPerOrigin: 1 });

    const first = attempt(`http://127.0.0.1:${slow.port}/1`, { agents });
    const second = attempt(`http://127.0.0.1:${slow.port}/2`, { agents });
    await arrived;
    expect(await attempt(`http://127.0.0.1:${fast.port}/`, { agents })).toMatchObject({ ok: true });
    // The second request to the slow origin is still queued behind the first one's socket.
    expect(slow.received).toHaveLength(1);
    expect(slow.connections()).toBe(1);

    held.shift()?.writeHead(200).end();
    expect(await first).toMatchObject({ ok: true });
    await expect.poll(() => held.length).toBe(1);
    held.shift()?.writeHead(200).end();
    expect(await second).toMatchObject({ ok: true });
    expect(slow.connections()).toBe(1);
  });
});
