/**
 * The subset of the uWS API r3 uses, served by `node:http`: what r3 runs on when no native uWS
 * build loads (see `uws.ts`). Written here because the emulation that ships inside the uWS package
 * is incomplete where r3 needs it (its `getQuery()` throws on every request, `forEach()` is not
 * implemented) and no maintained package offers the uWS API over `node:http`.
 *
 * It keeps uWS's contract for what r3 uses: the handler reads the request synchronously; body chunks
 * arrive through `onData` with `isLast` on the final one; `onAborted` fires when the client goes away
 * before the answer is complete; `write` reports backpressure and `onWritable` says when to go on;
 * `end(body, true)` closes the connection. Pipelined requests are answered in order, as node:http does.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { UwsApi, UwsApp, UwsListenSocket, UwsRequest, UwsResponse } from './uws.js';

const EMPTY = new ArrayBuffer(0);

function chunkOf(data: Buffer): ArrayBuffer {
  return data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
}

class NodeRequest implements UwsRequest {
  private readonly path: string;
  private readonly query: string;
  constructor(private readonly req: IncomingMessage) {
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    this.path = mark === -1 ? url : url.slice(0, mark);
    this.query = mark === -1 ? '' : url.slice(mark + 1);
  }
  getMethod(): string {
    return (this.req.method ?? 'GET').toLowerCase();
  }
  getUrl(): string {
    return this.path;
  }
  getQuery(): string {
    return this.query;
  }
  forEach(cb: (key: string, value: string) => void): void {
    for (const [key, value] of Object.entries(this.req.headers)) {
      if (value !== undefined) cb(key, Array.isArray(value) ? value.join(', ') : value);
    }
  }
}

class NodeResponse implements UwsResponse {
  private aborted: (() => void) | null = null;
  private writable: ((offset: number) => boolean) | null = null;
  private written = 0;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
  ) {
    res.on('close', () => {
      // 'close' also follows a completed answer; only an unfinished one is an abort.
      if (!res.writableFinished) this.aborted?.();
    });
  }

  onAborted(handler: () => void): this {
    this.aborted = handler;
    return this;
  }

  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): this {
    this.req.on('data', (data: Buffer) => handler(chunkOf(data), false));
    this.req.on('end', () => handler(EMPTY, true));
    return this;
  }

  onWritable(handler: (offset: number) => boolean): this {
    if (this.writable === null) this.res.on('drain', () => this.writable?.(this.written));
    this.writable = handler;
    return this;
  }

  writeStatus(status: string): this {
    this.res.statusCode = Number.parseInt(status, 10);
    const message = status.slice(4).trim();
    if (message) this.res.statusMessage = message;
    return this;
  }

  writeHeader(key: string, value: string): this {
    this.res.appendHeader(key, value);
    return this;
  }

  write(chunk: string | Uint8Array): boolean {
    if (chunk.length === 0) {
      // uWS sends the head on an empty write; so must this (an event stream opens at once).
      if (!this.res.headersSent) this.res.flushHeaders();
      return true;
    }
    this.written += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    return this.res.write(chunk);
  }

  end(body?: string | Uint8Array, closeConnection?: boolean): this {
    if (closeConnection) {
      if (!this.res.headersSent) this.res.setHeader('Connection', 'close');
      this.res.shouldKeepAlive = false;
    }
    if (body === undefined) this.res.end();
    else this.res.end(body);
    return this;
  }

  /**
   * Runs `cb` uncorked: node:http already sends one tick's writes together, and on Node 22 and 24 a
   * corked response that refuses a second write never emits 'drain' (a slow event-stream client then
   * stalled for good; reproduced with node:http alone).
   */
  cork(cb: () => void): this {
    cb();
    return this;
  }

  getRemoteAddressAsText(): ArrayBuffer {
    return chunkOf(Buffer.from(this.req.socket.remoteAddress ?? ''));
  }
}

interface NodeListenSocket {
  server: Server;
}

function createApp(): UwsApp {
  let handler: ((res: UwsResponse, req: UwsRequest) => void) | null = null;
  const app: UwsApp = {
    any(pattern, h) {
      if (pattern !== '/*') throw new Error(`only the catch-all pattern is supported, not ${pattern}`);
      handler = h;
      return app;
    },
    listen(host, port, _options, cb) {
      const server = createServer((req, res) => {
        if (handler) handler(new NodeResponse(req, res), new NodeRequest(req));
        else res.writeHead(404).end();
      });
      // uWS closes idle connections after 10 s; keep-alive here follows it.
      server.keepAliveTimeout = 10_000;
      server.once('error', () => cb(false));
      // Node never sets SO_REUSEPORT: a taken port fails, as uWS's exclusive listen does.
      server.listen({ host, port }, () => cb({ server } satisfies NodeListenSocket));
      return app;
    },
  };
  return app;
}

/** The node:http implementation of the uWS subset r3 uses. */
export const nodeHttpUws: UwsApi = {
  App: createApp,
  us_socket_local_port(socket: UwsListenSocket): number {
    return ((socket as NodeListenSocket).server.address() as AddressInfo).port;
  },
  us_listen_socket_close(socket: UwsListenSocket): void {
    const { server } = socket as NodeListenSocket;
    server.close();
    server.closeIdleConnections();
  },
};
