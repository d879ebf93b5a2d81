/**
 * A small closed-loop HTTP/1.1 load generator: N keep-alive connections, each sending its next
 * request when the previous answer is complete. Latency is measured per request with hrtime (µs
 * resolution, unlike autocannon's whole milliseconds). It parses only the status line and
 * Content-Length, so it costs the machine as little as possible.
 */
import net from 'node:net';
import { percentiles } from './stats.js';

export interface LoadOptions {
  url: string;
  connections: number;
  durationMs: number;
  method?: string;
  headers?: Record<string, string>;
  /** A body, or a function giving each request's body (e.g. unique idempotency keys). */
  body?: string | (() => string);
}

export interface LoadStats {
  requests: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  statuses: Record<number, number>;
  errors: number;
}

export async function runLoad(options: LoadOptions): Promise<LoadStats> {
  const target = new URL(options.url);
  const head = (body: string | undefined) => {
    const lines = [
      `${options.method ?? 'GET'} ${target.pathname}${target.search} HTTP/1.1`,
      `Host: ${target.host}`,
    ];
    for (const [k, v] of Object.entries(options.headers ?? {})) lines.push(`${k}: ${v}`);
    if (body !== undefined)
      lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`);
    return `${lines.join('\r\n')}\r\n\r\n${body ?? ''}`;
  };
  const fixed = typeof options.body === 'function' ? null : head(options.body);
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  let stopping = false;
  const started = performance.now();

  const connection = () =>
    new Promise<void>((resolve) => {
      const socket = net.connect(Number(target.port), target.hostname);
      socket.setNoDelay(true);
      let buffer = Buffer.alloc(0);
      let sentAt = 0;
      const send = () => {
        if (stopping) {
          socket.end();
          return resolve();
        }
        sentAt = performance.now();
        socket.write(fixed ?? head((options.body as () => string)()));
      };
      socket.on('connect', send);
      socket.on('error', () => {
        errors++;
        resolve();
      });
      socket.on('data', (chunk) => {
        buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
        while (true) {
          const end = buffer.indexOf('\r\n\r\n');
          if (end < 0) return;
          const headText = buffer.subarray(0, end).toString('latin1');
          const length = Number(/content-length: *(\d+)/i.exec(headText)?.[1] ?? 0);
          if (buffer.length < end + 4 + length) return;
          const status = Number(headText.slice(9, 12));
          statuses[status] = (statuses[status] ?? 0) + 1;
          latencies.push(performance.now() - sentAt);
          buffer = buffer.subarray(end + 4 + length);
          send();
        }
      });
    });

  const timer = setTimeout(() => {
    stopping = true;
  }, options.durationMs);
  await Promise.all(Array.from({ length: options.connections }, connection));
  clearTimeout(timer);
  const elapsed = (performance.now() - started) / 1000;
  return {
    requests: latencies.length,
    rps: Math.round(latencies.length / elapsed),
    ...percentiles(latencies),
    statuses,
    errors,
  };
}
