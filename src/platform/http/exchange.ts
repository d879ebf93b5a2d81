/**
 * One HTTP exchange on uWS and the low-level reading and writing the pipeline does with it: the
 * body (with the 1 MiB cap), the query string, the request id, and corked writes that respect
 * an aborted or already answered response.
 */
import { validationFailed } from '../errors.js';
import type { RateDecision } from '../ratelimit/limiter.js';
import { payloadTooLarge } from './errors.js';
import { JSON_CONTENT_TYPE } from './reply.js';
import { statusLine } from './status.js';
import type { UwsResponse } from './uws.js';

/** Bodies above this are refused with 413 (docs/api.md "Conventions"). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The status logged for a request whose client went away before it was answered (nginx's 499): no
 * answer is sent, and it is not an error of the server's.
 */
export const CLIENT_GONE_STATUS = 499;

/** Thrown where a request's client went away (mid-body, say): ends the request quietly. */
export class ClientGone extends Error {
  constructor() {
    super('the client went away');
    this.name = 'ClientGone';
  }
}

/** A uWS response with the pipeline's bookkeeping. */
export interface Exchange {
  res: UwsResponse;
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
    exchange.onAbort.push(() => reject(new ClientGone()));
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

/** What every response carries besides its body: the request id, the rate-limit reading, extras. */
export interface ResponseHead {
  requestId: string;
  rate: RateDecision | null;
  /**
   * The reply's own headers (a `Content-Type`, `Connection` or `X-Content-Type-Options` among them is
   * ignored: the first two are written from their own fields, the last on every answer already).
   */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Close the connection after this response (shutdown, an oversized body). */
  close?: boolean;
  /** The caller was authenticated: the answer is theirs alone and must not be stored by caches. */
  authenticated?: boolean;
}

export function respond(exchange: Exchange, status: number, body: unknown, head: ResponseHead): void {
  writeRaw(exchange, status, JSON.stringify(body), JSON_CONTENT_TYPE, head);
}

/** Writes a whole response in one corked pass (no intermediate header objects: this is every request). */
export function writeRaw(
  exchange: Exchange,
  status: number,
  body: string | Buffer,
  contentType: string,
  head: ResponseHead,
): void {
  if (exchange.aborted || exchange.done) return;
  exchange.done = true;
  const { res } = exchange;
  res.cork(() => {
    res.writeStatus(statusLine(status));
    res.writeHeader('X-Request-Id', head.requestId);
    res.writeHeader('X-Content-Type-Options', 'nosniff');
    if (head.rate) writeRateHeaders(res, head.rate);
    const extra = head.headers;
    let cacheControl = false;
    if (extra) {
      for (const key in extra) {
        const lower = key.toLowerCase();
        if (lower === 'cache-control') cacheControl = true;
        if (lower !== 'content-type' && lower !== 'connection' && lower !== 'x-content-type-options') {
          res.writeHeader(key, extra[key] as string);
        }
      }
    }
    if (head.authenticated && !cacheControl) res.writeHeader('Cache-Control', 'no-store');
    res.writeHeader('Content-Type', contentType);
    res.end(body, head.close === true);
  });
}

/** The rate-limit headers of docs/api.md "Conventions" and the IETF `RateLimit`/`RateLimit-Policy` fields. */
export function rateHeaders(rate: RateDecision | null): Record<string, string> {
  if (!rate) return {};
  const out: Record<string, string> = {};
  forEachRateHeader(rate, (name, value) => {
    out[name] = value;
  });
  return out;
}

function writeRateHeaders(res: UwsResponse, rate: RateDecision): void {
  forEachRateHeader(rate, (name, value) => res.writeHeader(name, value));
}

function forEachRateHeader(rate: RateDecision, write: (name: string, value: string) => void): void {
  write('X-RateLimit-Limit', String(rate.limit));
  write('X-RateLimit-Remaining', String(rate.remaining));
  write('X-RateLimit-Reset', String(rate.resetAt));
  write('RateLimit-Policy', `"default";q=${rate.limit};w=${rate.windowSec}`);
  write('RateLimit', `"default";r=${rate.remaining};t=${rate.fullInSec}`);
}
