/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/) helpers.
 *
 * A run gets one trace id; every outgoing call made on its behalf (model provider, connector,
 * webhook) sends a `traceparent` header naming that trace and a fresh span id, so the receiving
 * side can correlate its logs with the run.
 */
import { randomFillSync } from 'node:crypto';

/** A parsed `traceparent` header. */
export interface TraceParent {
  /** Two lowercase hex digits; `00` is the only version this code emits. */
  version: string;
  /** 32 lowercase hex digits, not all zero. */
  traceId: string;
  /** The caller's span: 16 lowercase hex digits, not all zero. */
  spanId: string;
  /** Two lowercase hex digits of trace flags. */
  flags: string;
  /** Whether the `sampled` flag (bit 0) is set. */
  sampled: boolean;
}

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const HEADER = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ALL_ZERO = /^0+$/;

/** Random bytes drawn in blocks (one CSPRNG call per 4 KiB, as `randomUUID` does), handed out in order. */
const pool = Buffer.allocUnsafe(4096);
let poolOffset = pool.length;

function randomHex(bytes: number): string {
  for (;;) {
    if (poolOffset + bytes > pool.length) {
      randomFillSync(pool);
      poolOffset = 0;
    }
    const slice = pool.subarray(poolOffset, poolOffset + bytes);
    poolOffset += bytes;
    // An all-zero id is invalid by the spec; 2^-64 at worst, but cheap to rule out.
    if (slice.some((b) => b !== 0)) return slice.toString('hex');
  }
}

/** A new random trace id: 32 lowercase hex digits, never all zero. */
export function newTraceId(): string {
  return randomHex(16);
}

/** A new random span (parent) id: 16 lowercase hex digits, never all zero. */
export function newSpanId(): string {
  return randomHex(8);
}

/** Whether `value` is a valid trace id (32 lowercase hex digits, not all zero). */
export function isTraceId(value: string): boolean {
  return TRACE_ID.test(value) && !ALL_ZERO.test(value);
}

/** Whether `value` is a valid span id (16 lowercase hex digits, not all zero). */
export function isSpanId(value: string): boolean {
  return SPAN_ID.test(value) && !ALL_ZERO.test(value);
}

/**
 * Formats a version-00 `traceparent` header value: `00-<traceId>-<spanId>-01` (sampled) or `…-00`.
 * Throws `RangeError` on an invalid id, so a bad id never leaves the process.
 */
export function traceparent(traceId: string, spanId: string, sampled = true): string {
  if (!isTraceId(traceId)) throw new RangeError(`invalid trace id: ${JSON.stringify(traceId)}`);
  if (!isSpanId(spanId)) throw new RangeError(`invalid span id: ${JSON.stringify(spanId)}`);
  return `00-${traceId}-${spanId}-${sampled ? '01' : '00'}`;
}

/**
 * Parses a `traceparent` header value; `undefined` when it is absent or invalid (the spec says to
 * then start a new trace). Version `ff` is invalid; version `00` must be exactly 55 characters;
 * a future version may carry more fields after a `-`, which are ignored.
 */
export function parseTraceparent(header: string | null | undefined): TraceParent | undefined {
  if (header === null || header === undefined) return undefined;
  const value = header.trim();
  const match = HEADER.exec(value);
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === undefined || traceId === undefined || spanId === undefined || flags === undefined) {
    return undefined;
  }
  if (version === 'ff') return undefined;
  if (version === '00' && rest !== undefined) return undefined;
  if (ALL_ZERO.test(traceId) || ALL_ZERO.test(spanId)) return undefined;
  return { version, traceId, spanId, flags, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}
