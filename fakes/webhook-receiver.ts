/**
 * A local webhook receiver for tests and benchmarks: records every request with its raw body and
 * arrival time, and answers with a status the caller chooses (per request, so it can fail, then
 * succeed), at once or after a delay.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Collector, createCollector } from './collector.js';

/** One request the receiver got. */
export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The body exactly as it arrived. */
  raw: string;
  json: any;
  /** When it arrived (Date.now()). */
  at: number;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  url: string;
  received: Collector<Received>;
  /** Sets the status of the following answers (default 200). */
  respondWith(status: number, body?: string): void;
  /** Holds every answer (a slow receiver) until the returned function is called. */
  hold(): () => void;
  /** Requests that arrived and are being held. */
  readonly held: number;
  close(): Promise<void>;
}

/** Starts a receiver on a free port of 127.0.0.1; `delayMs`: each answer waits that long (default 0). */
export async function startReceiver(options: { delayMs?: number } = {}): Promise<Receiver> {
  const received = createCollector<Received>();
  let status = 200;
  let answer = 'ok';
  let holding: Array<() => void> | null = null;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      const raw = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(raw);
      } catch {
        // kept as raw only
      }
      const write = () => {
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(answer);
      };
      const respond = options.delayMs ? () => setTimeout(write, options.delayMs) : write;
      received.push({ path: req.url ?? '/', headers: req.headers, raw, json, at });
      if (holding) holding.push(respond);
      else respond();
    });
  });
  // Deliveries come in bursts minutes apart in the benchmarks: idle connections stay open meanwhile.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    respondWith(next, body = next < 300 ? 'ok' : 'nope') {
      status = next;
      answer = body;
    },
    hold() {
      holding = [];
      return () => {
        const waiting = holding ?? [];
        holding = null;
        for (const respond of waiting) respond();
      };
    },
    get held() {
      return holding?.length ?? 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
