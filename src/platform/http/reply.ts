/**
 * What a handler returns. A JSON reply is status + body + headers; a stream reply hands the handler a
 * `ResponseStream` once the head is written (server-sent events, MCP). Keeping replies as values lets
 * the server cork every write in one place.
 */
export interface JsonReply {
  kind: 'json';
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A raw body (already serialized) with its content type. */
export interface RawReply {
  kind: 'raw';
  status: number;
  body: string | Buffer;
  contentType: string;
  headers?: Record<string, string>;
}

/** A long-lived response written in chunks; `start` runs after the head is sent. */
export interface StreamReply {
  kind: 'stream';
  status: number;
  headers: Record<string, string>;
  start(stream: ResponseStream): void;
}

export type Reply = JsonReply | RawReply | StreamReply;

/**
 * The writable side of a stream reply. `write` returns false when the socket's buffer is full: the
 * chunk is still queued, and the writer should wait for `onDrain` before writing more.
 */
export interface ResponseStream {
  write(chunk: string): boolean;
  onDrain(callback: () => void): void;
  /** Called once when the client goes away or the stream is ended. */
  onClose(callback: () => void): void;
  end(): void;
  readonly closed: boolean;
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): JsonReply => ({
  kind: 'json',
  status,
  body,
  ...(headers ? { headers } : {}),
});

export const ok = (body: unknown, headers?: Record<string, string>): JsonReply => json(200, body, headers);

/** The content type of every JSON answer. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A JSON answer whose text is already rendered (it is written as is). */
export const jsonText = (status: number, text: string): RawReply => raw(status, text, JSON_CONTENT_TYPE);

export const raw = (
  status: number,
  body: string | Buffer,
  contentType: string,
  headers?: Record<string, string>,
): RawReply => ({ kind: 'raw', status, body, contentType, ...(headers ? { headers } : {}) });
