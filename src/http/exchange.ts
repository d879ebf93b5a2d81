/**
 * One HTTP exchange on uWS and the low-level reading and writing the pipeline does with it: the
 * body (with the 1 MiB cap), the query string, the request id, and corked writes that respect
 * an aborted or already answered response.
 */
import type uWS from 'uWebSockets.js';
import { payloadTooLarge, validationFailed } from './errors.js';
import { statusLine } from './status.js';

/** Bodies above this are refused with 413 (decisions §4). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** A uWS response with the pipeline's bookkeeping. */
export interface Exchange {
  res: uWS.HttpResponse;
  aborted: boolean;
  done: boolean;
  controller: AbortController | null;
  onAbort: Array<() => void>;
}

export function readBody(exchange: Exchange, contentLength: string | undefined): Promise<Buffer> {
  const declared = contentLength === undefined ? undefined : Number(contentLength);
  if (declared !== undefined && declared > MAX_BODY_BYTES) {
    const refused = Promise.reject(payloadTooLarge(MAX_BODY_BYTES));
    refused.catch(() => undefined);
    // Stop buffering: the answer is 413 whatever arrives.
    exchange.res.onData(() => undefined);
    return refused;
  }
  const body = new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    exchange.res.onData((chunk, isLast) => {
      if (over) return;
      size += chunk.byteLength;
      if (size > MAX_BODY_BYTES) {
        over = true;
        reject(payloadTooLarge(MAX_BODY_BYTES));
        return;
      }
      // uWS reuses the chunk's memory after this callback returns: copy it.
      chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    });
    exchange.onAbort.push(() => reject(new Error('aborted')));
  });
  // The pipeline awaits the body only after authentication; a rejection before that is not unhandled.
  body.catch(() => undefined);
  return body;
}

export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return {};
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw validationFailed([{ field: 'body', message: `Malformed JSON: ${(error as Error).message}` }]);
  }
}

/** Query strings become a plain object; a repeated key becomes an array of its values. */
export function parseQuery(rawQuery: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (!rawQuery) return out;
  for (const [key, value] of new URLSearchParams(rawQuery)) {
    const existing = out[key];
    if (existing === undefined) out[key] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else out[key] = [existing, value];
  }
  return out;
}

export function acceptRequestId(incoming: string | undefined): string | undefined {
  return incoming && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : undefined;
}

export function respond(
  exchange: Exchange,
  status: number,
  body: unknown,
  headers: Record<string, string>,
): void {
  writeRaw(exchange, status, JSON.stringify(body), {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
  });
}

export function writeRaw(
  exchange: Exchange,
  status: number,
  body: string | Buffer,
  headers: Record<string, string>,
): void {
  if (exchange.aborted || exchange.done) return;
  exchange.done = true;
  const { res } = exchange;
  const close = headers.Connection === 'close';
  res.cork(() => {
    res.writeStatus(statusLine(status));
    for (const key in headers) {
      if (key !== 'Connection') res.writeHeader(key, headers[key] as string);
    }
    res.end(body, close);
  });
}
