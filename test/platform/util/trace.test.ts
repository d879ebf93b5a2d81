import { describe, expect, it } from 'vitest';
import {
  isSpanId,
  isTraceId,
  newSpanId,
  newTraceId,
  parseTraceparent,
  traceparent,
} from '../../../src/platform/util/trace.js';

describe('trace ids', () => {
  it('makes 32- and 16-digit lowercase hex ids that differ between calls', () => {
    const traces = new Set(Array.from({ length: 100 }, newTraceId));
    const spans = new Set(Array.from({ length: 100 }, newSpanId));
    expect(traces.size).toBe(100);
    expect(spans.size).toBe(100);
    for (const id of traces) expect(id).toMatch(/^[0-9a-f]{32}$/);
    for (const id of spans) expect(id).toMatch(/^[0-9a-f]{16}$/);
  });

  it('rejects all-zero and malformed ids', () => {
    expect(isTraceId('0'.repeat(32))).toBe(false);
    expect(isSpanId('0'.repeat(16))).toBe(false);
    expect(isTraceId('A'.repeat(32))).toBe(false);
    expect(isTraceId('a'.repeat(31))).toBe(false);
    expect(isSpanId('0'.repeat(15) + '1')).toBe(true);
  });
});

describe('traceparent', () => {
  const trace = '4bf92f3577b34da6a3ce929d0e0e4736';
  const span = '00f067aa0ba902b7';

  it('formats and parses a version-00 header', () => {
    const header = traceparent(trace, span);
    expect(header).toBe(`00-${trace}-${span}-01`);
    expect(parseTraceparent(header)).toEqual({
      version: '00',
      traceId: trace,
      spanId: span,
      flags: '01',
      sampled: true,
    });
    expect(parseTraceparent(traceparent(trace, span, false))?.sampled).toBe(false);
    expect(parseTraceparent(`  ${header} `)?.traceId).toBe(trace);
  });

  it('refuses to format invalid ids', () => {
    expect(() => traceparent('0'.repeat(32), span)).toThrow(RangeError);
    expect(() => traceparent(trace, 'xyz')).toThrow(RangeError);
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['version ff', `ff-${trace}-${span}-01`],
    ['zero trace id', `00-${'0'.repeat(32)}-${span}-01`],
    ['zero span id', `00-${trace}-${'0'.repeat(16)}-01`],
    ['uppercase', `00-${trace.toUpperCase()}-${span}-01`],
    ['extra field on version 00', `00-${trace}-${span}-01-extra`],
    ['short trace id', `00-${trace.slice(1)}-${span}-01`],
  ])('rejects %s', (_label, header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });

  it('accepts a future version with extra fields', () => {
    expect(parseTraceparent(`01-${trace}-${span}-03-whatever`)).toMatchObject({
      version: '01',
      flags: '03',
      sampled: true,
    });
  });
});
