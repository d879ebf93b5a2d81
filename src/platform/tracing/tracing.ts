/**
 * OpenTelemetry traces (the official SDK: `@opentelemetry/sdk-trace-base`), exported over OTLP/HTTP
 * when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `…_TRACES_ENDPOINT`) is set. Spans: HTTP requests (server;
 * an incoming `traceparent` is their parent), run steps (children of the run's trace), model calls
 * and webhook attempts (client; their requests carry `traceparent`), MCP tool calls.
 *
 * Each process (each app, in tests) has its own tracer provider, never registered globally; the
 * context manager (AsyncLocalStorage) is the process's one global, so the active span follows
 * awaits. Without an endpoint nothing is created and `inSpan` runs its function with no span; the
 * SDK is imported only when tracing is on (its import is a noticeable part of a start:
 * docs/performance.md, "Choices in the code").
 */
import {
  type Attributes,
  type Context,
  context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { Sampler, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { TracingConfig } from '../config.js';
import type { RequestObserver } from '../http/server.js';
import { isTraceId } from '../util/trace.js';

export { SpanKind } from '@opentelemetry/api';

/** What a span is started with. */
export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent (default: the active context). */
  parent?: Context;
}

/** The tracing of one process. */
export interface Tracing {
  readonly enabled: boolean;
  /**
   * Runs `fn` in a new span (active for everything `fn` awaits), ended when `fn` settles; a throw
   * is recorded on it and rethrown. Without tracing, `fn(undefined)`.
   */
  inSpan<T>(name: string, options: SpanOptions, fn: (span: Span | undefined) => Promise<T>): Promise<T>;
  /** The context whose parent is the `traceparent` (and `tracestate`) of `headers`, if valid. */
  extract(headers: Readonly<Record<string, string | undefined>>): Context;
  /** The context whose parent is run trace `traceId` (the run's own span id, derived from `runId`). */
  runContext(traceId: string, runId: number): Context;
  /** Exports what is pending and stops. */
  shutdown(): Promise<void>;
}

const getter: TextMapGetter<Readonly<Record<string, string | undefined>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

let contextManagerSet = false;

/** The process's context manager (AsyncLocalStorage): set once, for every tracer provider. */
async function ensureContextManager(): Promise<void> {
  if (contextManagerSet) return;
  contextManagerSet = true;
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

type Sdk = typeof import('@opentelemetry/sdk-trace-base');

function sampler(config: TracingConfig, sdk: Sdk): Sampler {
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } = sdk;
  const ratio = new TraceIdRatioBasedSampler(config.samplerArg);
  switch (config.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/**
 * The tracing `config` asks for: off without an endpoint. `exporter` replaces the OTLP exporter and
 * turns tracing on whatever the config says (tests: an `InMemorySpanExporter`, spans exported as
 * they end).
 */
export async function createTracing(
  config: TracingConfig,
  options: { exporter?: SpanExporter; version?: string } = {},
): Promise<Tracing> {
  if (!options.exporter && !config.endpoint) return disabledTracing;
  await ensureContextManager();
  const sdk = await import('@opentelemetry/sdk-trace-base');
  const { resourceFromAttributes } = await import('@opentelemetry/resources');
  const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
  const propagator = new W3CTraceContextPropagator();
  const exporter =
    options.exporter ??
    (config.protocol === 'http/json'
      ? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter({
          url: config.endpoint as string,
          headers: config.headers,
        })
      : new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter({
          url: config.endpoint as string,
          headers: config.headers,
        }));
  const processor = options.exporter
    ? new sdk.SimpleSpanProcessor(exporter)
    : new sdk.BatchSpanProcessor(exporter);
  const provider = new sdk.BasicTracerProvider({
    resource: resourceFromAttributes({
      ...config.resourceAttributes,
      'service.name': config.serviceName,
      ...(options.version ? { 'service.version': options.version } : {}),
    }),
    sampler: sampler(config, sdk),
    spanProcessors: [processor],
  });
  const tracer: Tracer = provider.getTracer('r3', options.version);
  let stopped: Promise<void> | null = null;
  return {
    enabled: true,
    inSpan(name, spanOptions, fn) {
      const parent = spanOptions.parent ?? context.active();
      const span = tracer.startSpan(
        name,
        {
          ...(spanOptions.kind !== undefined ? { kind: spanOptions.kind } : {}),
          ...(spanOptions.attributes ? { attributes: spanOptions.attributes } : {}),
        },
        parent,
      );
      return context.with(trace.setSpan(parent, span), async () => {
        try {
          return await fn(span);
        } catch (error) {
          span.recordException(error instanceof Error ? error : String(error));
          span.setStatus({
            code: SpanStatusCode.ERROR,
            message: error instanceof Error ? error.message : '',
          });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    extract: (headers) => propagator.extract(ROOT_CONTEXT, headers, getter),
    runContext: (traceId, runId) => runParent(traceId, runId),
    shutdown() {
      stopped ??= provider.shutdown().catch(() => undefined);
      return stopped;
    },
  };
}

/** Tracing off: no spans, no cost beyond a call. */
export const disabledTracing: Tracing = {
  enabled: false,
  inSpan: (_name, _options, fn) => fn(undefined),
  extract: () => ROOT_CONTEXT,
  runContext: () => ROOT_CONTEXT,
  shutdown: async () => undefined,
};

/**
 * A run's steps execute long after (and maybe far from) the request that created it, so their spans
 * hang off a remote parent in the run's trace: the run's trace id and a span id derived from the run
 * id (the same for every step, so a trace view groups them under one missing "run" parent).
 */
function runParent(traceId: string, runId: number): Context {
  if (!isTraceId(traceId)) return ROOT_CONTEXT;
  const spanId = (BigInt(runId) + 1n).toString(16).padStart(16, '0').slice(-16);
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  });
}

/** The trace id of the active span, when one records (a run created now joins that trace). */
export function activeTraceId(): string | undefined {
  const span = trace.getActiveSpan();
  return span?.isRecording() ? span.spanContext().traceId : undefined;
}

/** The `traceparent` naming the active span, when one records (outgoing requests carry it). */
export function activeTraceparent(): string | undefined {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return undefined;
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${(traceFlags & TraceFlags.SAMPLED) === 1 ? '01' : '00'}`;
}

/** Marks `span` failed when `status` is a server error (a client's 4xx is not the server's fault). */
export function setHttpStatus(span: Span, status: number, serverSide: boolean): void {
  span.setAttribute('http.response.status_code', status);
  if (status >= 500 || (!serverSide && status >= 400)) span.setStatus({ code: SpanStatusCode.ERROR });
}

/** Probes and scrapes: every few seconds from every checker, they would drown the traces. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * A server span per HTTP request (not probes and scrapes), named `METHOD /route/pattern` once routed, continuing the
 * request's `traceparent` when it has a valid one.
 */
export function httpTracingObserver(tracing: Tracing): RequestObserver {
  return (request, handle) =>
    UNTRACED_PATHS.has(request.path)
      ? handle()
      : tracing.inSpan(
          request.method,
          {
            kind: SpanKind.SERVER,
            parent: tracing.extract(request.headers),
            attributes: { 'http.request.method': request.method, 'url.path': request.path },
          },
          async (span) => {
            const status = await handle();
            if (span) {
              span.updateName(`${request.method} ${request.route ?? 'unmatched'}`);
              if (request.route) span.setAttribute('http.route', request.route);
              setHttpStatus(span, status, true);
            }
            return status;
          },
        );
}

/** Observers run nested, the first outermost. */
export function composeObservers(...observers: RequestObserver[]): RequestObserver {
  return observers.reduceRight<RequestObserver>(
    (inner, outer) => (request, handle) => outer(request, () => inner(request, handle)),
    (_request, handle) => handle(),
  );
}
