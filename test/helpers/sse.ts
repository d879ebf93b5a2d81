/**
 * A server-sent-event client for tests, on node:http (so a test can also stop reading, like a slow
 * client): parses frames into events and comments, and says when the server ended the stream.
 */
import http from 'node:http';
import { type Collector, createCollector, deferred } from './wait.js';

/** One parsed event. */
export interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
  /** `data` parsed as JSON. */
  json: any;
}

export interface SseClient {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: Collector<SseEvent>;
  comments: Collector<string>;
  /** Resolves when the server ends the response (or the connection drops). */
  ended: Promise<void>;
  /** Stops reading from the socket (the kernel buffers fill up, then the server's). */
  pause(): void;
  resume(): void;
  /** Closes the connection from the client side. */
  close(): void;
  /** The body text of a non-stream answer. */
  text(): Promise<string>;
}

export interface SseOptions {
  token?: string;
  lastEventId?: string;
  headers?: Record<string, string>;
  /** Start paused: read nothing after the head. */
  paused?: boolean;
}

/** Opens `GET <baseUrl><path>` and resolves once the head arrived. */
export function openSse(baseUrl: string, path: string, options: SseOptions = {}): Promise<SseClient> {
  const url = new URL(path, baseUrl);
  const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'GET', headers, agent: false }, (res) => {
      const events = createCollector<SseEvent>();
      const comments = createCollector<string>();
      const ended = deferred<void>();
      let buffer = '';
      let body = '';
      const isStream = (res.headers['content-type'] ?? '').startsWith('text/event-stream');
      if (options.paused) res.pause();
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (!isStream) {
          body += chunk;
          return;
        }
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          parseBlock(block, events, comments);
        }
      });
      const finish = () => ended.resolve();
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        comments,
        ended: ended.promise,
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => req.destroy(),
        text: async () => {
          await ended.promise;
          return body;
        },
      });
    });
    req.on('error', reject);
    req.end();
  });
}

function parseBlock(block: string, events: Collector<SseEvent>, comments: Collector<string>): void {
  let id: string | undefined;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      comments.push(line.slice(1).trim());
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return;
  const text = data.join('\n');
  events.push({ id, event, data: text, json: JSON.parse(text) });
}
