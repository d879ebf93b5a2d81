/**
 * Small HTTP/1.1 load generators that cost the machine as little as possible (they parse only the
 * status line and Content-Length; latency per request from performance.now(), µs resolution):
 *
 * - closed loop (`runLoad`): N keep-alive connections, each sending its next request when the
 *   previous answer is complete — the most the server answers;
 * - open loop (`runOpenLoad`): requests offered at a fixed rate whatever the answers, each on a free
 *   keep-alive connection (a new one when none is free) — what a client sees at a given load. Its
 *   latency counts from when the request was due, so a request that waited for a connection (the
 *   server was slow) is not counted as fast: no coordinated omission.
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

/** The request text of `options`: fixed, or made anew for each request when the body is a function. */
function requestText(options: Omit<LoadOptions, 'connections'>): () => string {
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
  if (typeof options.body !== 'function') {
    const fixed = head(options.body);
    return () => fixed;
  }
  const body = options.body;
  return () => head(body());
}

/**
 * A keep-alive connection to `url` that tells `onAnswer` the status of each complete answer (one
 * request at a time on it), `onClose` when it ends or fails.
 */
function openConnection(url: URL, onAnswer: (status: number) => void, onClose: (failed: boolean) => void) {
  const socket = net.connect(Number(url.port), url.hostname);
  socket.setNoDelay(true);
  let buffer = Buffer.alloc(0);
  socket.on('error', () => onClose(true));
  socket.on('close', () => onClose(false));
  socket.on('data', (chunk) => {
    buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
    while (true) {
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const headText = buffer.subarray(0, end).toString('latin1');
      const length = Number(/content-length: *(\d+)/i.exec(headText)?.[1] ?? 0);
      if (buffer.length < end + 4 + length) return;
      buffer = buffer.subarray(end + 4 + length);
      onAnswer(Number(headText.slice(9, 12)));
    }
  });
  return socket;
}

export async function runLoad(options: LoadOptions): Promise<LoadStats> {
  const target = new URL(options.url);
  const next = requestText(options);
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  let stopping = false;
  const started = performance.now();

  const connection = () =>
    new Promise<void>((resolve) => {
      let sentAt = 0;
      const socket = openConnection(
        target,
        (status) => {
          statuses[status] = (statuses[status] ?? 0) + 1;
          latencies.push(performance.now() - sentAt);
          send();
        },
        (failed) => {
          if (failed) errors++;
          resolve();
        },
      );
      const send = () => {
        if (stopping) {
          socket.end();
          return resolve();
        }
        sentAt = performance.now();
        socket.write(next());
      };
      socket.on('connect', send);
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

export interface OpenLoadOptions extends Omit<LoadOptions, 'connections'> {
  /** Requests offered per second. */
  rate: number;
  /** Most connections open at once (default 512); a request due while all are busy waits for one. */
  maxConnections?: number;
}

export interface OpenLoadStats extends LoadStats {
  /** Requests offered (due during the run). */
  offered: number;
  /** Most connections that were open at once. */
  connections: number;
}

/**
 * Offers requests at `rate` a second for `durationMs`, then waits for the answers of those sent (see
 * the file comment). `rps` is the answers per second over the offering window.
 */
export async function runOpenLoad(options: OpenLoadOptions): Promise<OpenLoadStats> {
  const target = new URL(options.url);
  const next = requestText(options);
  const maxConnections = options.maxConnections ?? 512;
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  let open = 0;
  let mostOpen = 0;
  let offered = 0;
  let answeredInWindow = 0;
  /** Due times (performance.now()) of requests waiting for a free connection. */
  const due: number[] = [];
  const idle: Array<(dueAt: number) => void> = [];
  let pending = 0;
  let allAnswered: (() => void) | null = null;
  const sockets = new Set<net.Socket>();
  const started = performance.now();
  const end = started + options.durationMs;
  const toOffer = Math.floor(options.rate * (options.durationMs / 1000));

  const answered = () => {
    pending--;
    if (pending === 0 && offered === toOffer) allAnswered?.();
  };

  function connect(): void {
    open++;
    mostOpen = Math.max(mostOpen, open);
    let dueAt = 0;
    let busy = false;
    const socket = openConnection(
      target,
      (status) => {
        const now = performance.now();
        statuses[status] = (statuses[status] ?? 0) + 1;
        latencies.push(now - dueAt);
        if (now <= end) answeredInWindow++;
        busy = false;
        answered();
        take();
      },
      (failed) => {
        open--;
        sockets.delete(socket);
        if (failed) errors++;
        if (busy) answered();
        const at = idle.indexOf(send);
        if (at >= 0) idle.splice(at, 1);
      },
    );
    sockets.add(socket);
    const send = (at: number) => {
      dueAt = at;
      busy = true;
      socket.write(next());
    };
    const take = () => {
      const waiting = due.shift();
      if (waiting !== undefined) send(waiting);
      else idle.push(send);
    };
    socket.on('connect', take);
  }

  /**
   * Sends every request due by now; at the end, every one of `toOffer`. (Not from `end - started`:
   * `(started + durationMs) - started` may come out a hair under `durationMs` in floating point, and
   * one request short the last answer waited for `offered === toOffer` for ever — a 10 s row of
   * bench:evaluations that never ended.)
   */
  function offer(now: number): void {
    const total =
      now >= end ? toOffer : Math.min(toOffer, Math.floor(options.rate * ((now - started) / 1000)));
    while (offered < total) {
      const at = started + (offered * 1000) / options.rate;
      offered++;
      pending++;
      const free = idle.pop();
      if (free) free(at);
      else {
        due.push(at);
        if (open < maxConnections) connect();
      }
    }
  }

  await new Promise<void>((resolve) => {
    allAnswered = resolve;
    const timer = setInterval(() => {
      const now = performance.now();
      offer(now);
      if (now >= end) {
        clearInterval(timer);
        if (pending === 0) resolve();
      }
    }, 1);
  });
  for (const socket of sockets) socket.end();
  const elapsed = options.durationMs / 1000;
  return {
    requests: latencies.length,
    rps: Math.round(answeredInWindow / elapsed),
    ...percentiles(latencies),
    statuses,
    errors,
    offered,
    connections: mostOpen,
  };
}
