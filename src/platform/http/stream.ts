/**
 * The writable side of a stream reply (server-sent events, MCP streams) on a uWS response: every
 * write is corked, `write` reports backpressure, `onDrain` fires when the socket can take more,
 * and the stream ends itself when the client goes away. Open streams are tracked so shutdown can
 * end them.
 */
import type { Exchange } from './exchange.js';
import type { ResponseStream, StreamReply } from './reply.js';
import { statusLine } from './status.js';

export function openStream(
  exchange: Exchange,
  reply: StreamReply,
  headers: Record<string, string>,
  streams: Set<ResponseStream>,
): ResponseStream | null {
  if (exchange.aborted || exchange.done) return null;
  exchange.done = true;
  const { res } = exchange;
  const closeCallbacks: Array<() => void> = [];
  let drainCallbacks: Array<() => void> = [];
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    streams.delete(stream);
    for (const fn of closeCallbacks) fn();
  };
  exchange.onAbort.push(close);
  const stream: ResponseStream = {
    write(chunk) {
      if (closed) return false;
      let written = false;
      res.cork(() => {
        written = res.write(chunk);
      });
      return written;
    },
    onDrain(callback) {
      drainCallbacks.push(callback);
      res.onWritable(() => {
        const pending = drainCallbacks;
        drainCallbacks = [];
        for (const fn of pending) fn();
        return true;
      });
    },
    onClose(callback) {
      if (closed) callback();
      else closeCallbacks.push(callback);
    },
    end() {
      if (closed) return;
      if (!exchange.aborted) res.cork(() => res.end());
      close();
    },
    get closed() {
      return closed;
    },
  };
  streams.add(stream);
  res.cork(() => {
    res.writeStatus(statusLine(reply.status));
    for (const [key, value] of Object.entries({ ...headers, ...reply.headers })) res.writeHeader(key, value);
    // An empty write flushes the head so the client sees the stream open at once.
    res.write('');
  });
  reply.start(stream);
  return stream;
}
