/**
 * r3's configuration: the environment, parsed once by zod (decisions §1). A bad value stops start-up
 * with a message naming the variable; nothing else in the code reads `process.env`.
 */
import path from 'node:path';
import { z } from 'zod';
// The delivery machine's own defaults (its events module: zod only, not the machines themselves).
import { DEFAULT_BACKOFF_MS, DEFAULT_MAX_ATTEMPTS } from '../../machines/webhook-delivery/events.js';
import { formatDuration, parseDuration, parseDurationList } from './util/duration.js';

const duration = (name: string) =>
  z.string().transform((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: `${name} must be a duration like 500ms, 30s, 5m or 1h` });
      return z.NEVER;
    }
    return ms;
  });

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => ['true', '1', 'yes'].includes(v));
const nonNegativeInt = z.coerce.number().int().min(0);

/** The OpenTelemetry `key=value,key2=value2` lists (values percent-decoded). */
const keyValueList = (name: string) =>
  z.string().transform((text, ctx) => {
    const out: Record<string, string> = {};
    for (const entry of text.split(',')) {
      if (entry.trim() === '') continue;
      const cut = entry.indexOf('=');
      const key = cut > 0 ? entry.slice(0, cut).trim() : '';
      if (!key) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a comma list of key=value` });
        return z.NEVER;
      }
      try {
        out[key] = decodeURIComponent(entry.slice(cut + 1).trim());
      } catch {
        ctx.addIssue({ code: 'custom', message: `${name}: ${key}'s value is not percent-encoded correctly` });
        return z.NEVER;
      }
    }
    return out;
  });
const otlpProtocol = z.enum(['http/protobuf', 'http/json'], {
  message: 'must be http/protobuf or http/json (r3 exports over OTLP/HTTP; grpc is not supported)',
});
const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
const optionalUrl = z.url().optional();

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  BASE_URL: optionalUrl,
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// URL')
    .optional(),
  R3_DATA_DIR: z.string().min(1).default('./.r3'),
  NATS_URL: z
    .string()
    .regex(/^(nats|tls|ws|wss):\/\/|^[^:/]+:\d+$/, 'NATS_URL must be a nats:// URL')
    .optional(),
  R3_ENV: z.enum(['live', 'test']).default('test'),
  R3_RATE_LIMIT_PER_MIN: nonNegativeInt.default(60),
  R3_RATE_LIMIT_BURST: nonNegativeInt.default(120),
  R3_WEBHOOK_BACKOFF: z
    .string()
    .default(DEFAULT_BACKOFF_MS.map(formatDuration).join(','))
    .transform((text, ctx) => {
      const list = parseDurationList(text);
      if (!list) {
        ctx.addIssue({ code: 'custom', message: 'R3_WEBHOOK_BACKOFF must be a comma list of durations' });
        return z.NEVER;
      }
      return list;
    }),
  R3_WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(DEFAULT_MAX_ATTEMPTS),
  R3_WEBHOOK_TIMEOUT: duration('R3_WEBHOOK_TIMEOUT').default(30_000),
  R3_WEBHOOK_OLD_SECRET_WINDOW: duration('R3_WEBHOOK_OLD_SECRET_WINDOW').default(600_000),
  R3_WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  R3_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  R3_SSE_HEARTBEAT: duration('R3_SSE_HEARTBEAT').default(15_000),
  R3_SSE_MAX_STREAMS_PER_TOKEN: nonNegativeInt.default(100),
  R3_SSE_QUEUE_LIMIT: z.coerce.number().int().min(1).max(100_000).default(256),
  R3_MCP_HTTP_AUTHORING: bool.default(false),
  R3_MCP_ALLOWED_ORIGINS: z.string().default(''),
  R3_MODEL_PROVIDER: z.enum(['echo', 'openai']).default('echo'),
  OPENAI_BASE_URL: z.url().default('https://api.openai.com/v1'),
  OPENAI_API_KEY: z.string().optional(),
  R3_MODEL: z.string().default('gpt-4o-mini'),
  R3_EMBEDDINGS_PROVIDER: z.enum(['local', 'openai']).default('local'),
  R3_EMBEDDINGS_MODEL: z.string().default('text-embedding-3-small'),
  R3_EMBEDDINGS_DIMENSIONS: z.coerce.number().int().min(2).max(8192).optional(),
  R3_LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  R3_BUS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'R3_BUS_PREFIX may hold letters, digits, - and _')
    .default('r3'),
  R3_DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  R3_WORKER_CONCURRENCY: z.coerce.number().int().min(0).max(256).default(32),
  R3_SHUTDOWN_TIMEOUT: duration('R3_SHUTDOWN_TIMEOUT').default(10_000),
  R3_TRUST_PROXY: bool.default(false),
  R3_HTTP_ENGINE: z.enum(['auto', 'node']).default('auto'),
  R3_SECRET_KEY: z.string().min(32, 'R3_SECRET_KEY must be at least 32 characters').optional(),
  R3_CONNECTORS_ALLOW_PRIVATE: bool.default(false),
  R3_CONNECTOR_TIMEOUT: duration('R3_CONNECTOR_TIMEOUT').default(15_000),
  R3_CONNECTOR_RETRY_BASE: duration('R3_CONNECTOR_RETRY_BASE').default(500),
  R3_METRICS_TOKEN: z.string().min(16, 'R3_METRICS_TOKEN must be at least 16 characters').optional(),
  R3_ARTIFACT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(1024 * 1024 * 1024)
    .default(10 * 1024 * 1024),
  R3_TOOLS_ALLOW_PRIVATE: bool.default(false),
  R3_WEB_SEARCH: z
    .string()
    .regex(/^(searxng:https?:\/\/\S+|brave(:https?:\/\/\S+)?)$/, 'must be searxng:<base URL> or brave')
    .optional(),
  R3_BRAVE_API_KEY: z.string().optional(),
  R3_IMAGE_MODEL: z.string().min(1).optional(),
  // OpenTelemetry (the variables of its SDK specification that r3 reads; a bad value stops start-up).
  OTEL_SDK_DISABLED: bool.default(false),
  OTEL_SERVICE_NAME: z.string().min(1).default('r3'),
  OTEL_RESOURCE_ATTRIBUTES: keyValueList('OTEL_RESOURCE_ATTRIBUTES').default({}),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none'], { message: 'must be otlp or none' }).default('otlp'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_HEADERS: keyValueList('OTEL_EXPORTER_OTLP_HEADERS').default({}),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: keyValueList('OTEL_EXPORTER_OTLP_TRACES_HEADERS').default({}),
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol.default('http/protobuf'),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol.optional(),
  OTEL_TRACES_SAMPLER: z
    .enum(SAMPLERS, { message: `must be one of ${SAMPLERS.join(', ')}` })
    .default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
});

/** Every environment variable r3 reads (deployment files set no other: test/ops checks). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(EnvSchema.shape);

/** The parsed, typed configuration every module receives (never `process.env`). */
export interface Config {
  port: number;
  host: string;
  /** Without a trailing slash. When BASE_URL is unset and PORT is 0, the bound port replaces 0 at start. */
  baseUrl: string;
  baseUrlExplicit: boolean;
  databaseUrl: string | undefined;
  dataDir: string;
  natsUrl: string | undefined;
  env: 'live' | 'test';
  rateLimit: { perMinute: number; burst: number };
  webhooks: {
    backoffMs: number[];
    maxAttempts: number;
    timeoutMs: number;
    oldSecretWindowMs: number;
    allowPrivate: boolean;
    /** Attempts in flight per webhook per process (R3_WEBHOOK_CONCURRENCY). */
    concurrencyPerEndpoint: number;
  };
  /** Per-run event streams: heartbeat period, open streams per token (0: no cap), events held for a slow client. */
  sse: { heartbeatMs: number; maxStreamsPerToken: number; queueLimit: number };
  mcp: { httpAuthoring: boolean; allowedOrigins: string[] };
  model: {
    provider: 'echo' | 'openai';
    openai: { baseUrl: string; apiKey: string | undefined; model: string };
  };
  /** `dimensions`: 256 for the local embedder, 1536 for `openai` unless R3_EMBEDDINGS_DIMENSIONS says. */
  embeddings: { provider: 'local' | 'openai'; model: string; dimensions: number };
  logLevel: string;
  busPrefix: string;
  dbPoolSize: number;
  workerConcurrency: number;
  shutdownTimeoutMs: number;
  trustProxy: boolean;
  /** `auto`: a native uWS build for this Node when one loads, else node:http; `node`: node:http always. */
  httpEngine: 'auto' | 'node';
  secretKey: string | undefined;
  /**
   * Source connectors: `allowPrivate` lets plain http and loopback/private hosts through the SSRF
   * guard (tests); `timeoutMs` bounds one upstream request; `retryBaseMs` is the first backoff step.
   */
  connectors: { allowPrivate: boolean; timeoutMs: number; retryBaseMs: number };
  /** Bearer token `GET /metrics` needs; unset: it answers loopback clients only. */
  metricsToken: string | undefined;
  /** Artifacts (decisions §10): `maxBytes` caps one artifact's content (R3_ARTIFACT_MAX_BYTES, 10 MiB). */
  artifacts: { maxBytes: number };
  /** The built-in agent tools' settings (decisions §10). */
  tools: ToolsConfig;
  /**
   * OpenTelemetry traces: exported over OTLP/HTTP to `endpoint` (the traces URL) when one is set
   * (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`), unless
   * OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none.
   */
  tracing: TracingConfig;
}

/** Settings of the built-in agent tools (decisions §10). */
export interface ToolsConfig {
  /** `fetch_url`/`crawl_site` may reach loopback/private/reserved addresses (R3_TOOLS_ALLOW_PRIVATE; tests). */
  allowPrivate: boolean;
  /**
   * `web_search`'s backend (R3_WEB_SEARCH): a SearXNG instance's JSON API, or Brave's Search API
   * (`brave`, at api.search.brave.com unless `brave:<base URL>` names a compatible one) with
   * R3_BRAVE_API_KEY. Unset: the tool answers TOOL_UNAVAILABLE.
   */
  webSearch: WebSearchConfig | undefined;
  /**
   * `generate_image`'s model (R3_IMAGE_MODEL), asked on the `openai` provider's server
   * (OPENAI_BASE_URL, OPENAI_API_KEY). Unset: the tool answers TOOL_UNAVAILABLE.
   */
  imageModel: string | undefined;
}

/** Where `web_search` asks. */
export type WebSearchConfig =
  | { backend: 'searxng'; baseUrl: string }
  | { backend: 'brave'; baseUrl: string; apiKey: string };

/** The default Brave Search API root (`R3_WEB_SEARCH=brave`). */
export const BRAVE_SEARCH_URL = 'https://api.search.brave.com/res/v1';

function webSearchConfig(
  value: string | undefined,
  braveKey: string | undefined,
): WebSearchConfig | undefined {
  if (value === undefined) return undefined;
  if (value.startsWith('searxng:'))
    return { backend: 'searxng', baseUrl: value.slice(8).replace(/\/+$/, '') };
  if (braveKey === undefined) {
    throw new ConfigError(['R3_BRAVE_API_KEY: must be set when R3_WEB_SEARCH is brave']);
  }
  const baseUrl = value === 'brave' ? BRAVE_SEARCH_URL : value.slice(6).replace(/\/+$/, '');
  return { backend: 'brave', baseUrl, apiKey: braveKey };
}

/** The OpenTelemetry settings r3 reads (see `Config.tracing`). */
export interface TracingConfig {
  endpoint: string | undefined;
  protocol: 'http/protobuf' | 'http/json';
  headers: Record<string, string>;
  serviceName: string;
  resourceAttributes: Record<string, string>;
  sampler: (typeof SAMPLERS)[number];
  /** The ratio of the `traceidratio` samplers (default 1). */
  samplerArg: number;
}

/** A configuration error names every offending variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses an environment (default `process.env`); throws `ConfigError` naming each bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? '?');
        const value = present[name];
        const shown =
          value === undefined
            ? ''
            : ` (got ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)})`;
        return `${name}: ${issue.message}${shown}`;
      }),
    );
  }
  const e = parsed.data;
  if (e.R3_RATE_LIMIT_PER_MIN > 0 && e.R3_RATE_LIMIT_BURST === 0) {
    throw new ConfigError(['R3_RATE_LIMIT_BURST: must be at least 1 when R3_RATE_LIMIT_PER_MIN is set']);
  }
  const baseUrl = (e.BASE_URL ?? `http://${e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST}:${e.PORT}`).replace(
    /\/+$/,
    '',
  );
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl,
    baseUrlExplicit: e.BASE_URL !== undefined,
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(e.R3_DATA_DIR),
    natsUrl: e.NATS_URL,
    env: e.R3_ENV,
    rateLimit: { perMinute: e.R3_RATE_LIMIT_PER_MIN, burst: e.R3_RATE_LIMIT_BURST },
    webhooks: {
      backoffMs: e.R3_WEBHOOK_BACKOFF,
      maxAttempts: e.R3_WEBHOOK_MAX_ATTEMPTS,
      timeoutMs: e.R3_WEBHOOK_TIMEOUT,
      oldSecretWindowMs: e.R3_WEBHOOK_OLD_SECRET_WINDOW,
      allowPrivate: e.R3_WEBHOOK_ALLOW_PRIVATE,
      concurrencyPerEndpoint: e.R3_WEBHOOK_CONCURRENCY,
    },
    sse: {
      heartbeatMs: e.R3_SSE_HEARTBEAT,
      maxStreamsPerToken: e.R3_SSE_MAX_STREAMS_PER_TOKEN,
      queueLimit: e.R3_SSE_QUEUE_LIMIT,
    },
    mcp: {
      httpAuthoring: e.R3_MCP_HTTP_AUTHORING,
      allowedOrigins: e.R3_MCP_ALLOWED_ORIGINS.split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    },
    model: {
      provider: e.R3_MODEL_PROVIDER,
      openai: { baseUrl: e.OPENAI_BASE_URL.replace(/\/+$/, ''), apiKey: e.OPENAI_API_KEY, model: e.R3_MODEL },
    },
    embeddings: {
      provider: e.R3_EMBEDDINGS_PROVIDER,
      model: e.R3_EMBEDDINGS_MODEL,
      dimensions: e.R3_EMBEDDINGS_DIMENSIONS ?? (e.R3_EMBEDDINGS_PROVIDER === 'local' ? 256 : 1536),
    },
    logLevel: e.R3_LOG_LEVEL,
    busPrefix: e.R3_BUS_PREFIX,
    dbPoolSize: e.R3_DB_POOL_SIZE,
    workerConcurrency: e.R3_WORKER_CONCURRENCY,
    shutdownTimeoutMs: e.R3_SHUTDOWN_TIMEOUT,
    trustProxy: e.R3_TRUST_PROXY,
    httpEngine: e.R3_HTTP_ENGINE,
    secretKey: e.R3_SECRET_KEY,
    connectors: {
      allowPrivate: e.R3_CONNECTORS_ALLOW_PRIVATE,
      timeoutMs: e.R3_CONNECTOR_TIMEOUT,
      retryBaseMs: e.R3_CONNECTOR_RETRY_BASE,
    },
    metricsToken: e.R3_METRICS_TOKEN,
    artifacts: { maxBytes: e.R3_ARTIFACT_MAX_BYTES },
    tools: {
      allowPrivate: e.R3_TOOLS_ALLOW_PRIVATE,
      webSearch: webSearchConfig(e.R3_WEB_SEARCH, e.R3_BRAVE_API_KEY),
      imageModel: e.R3_IMAGE_MODEL,
    },
    tracing: {
      endpoint:
        e.OTEL_SDK_DISABLED || e.OTEL_TRACES_EXPORTER === 'none'
          ? undefined
          : (e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
            (e.OTEL_EXPORTER_OTLP_ENDPOINT
              ? `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`
              : undefined)),
      protocol: e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL,
      headers: { ...e.OTEL_EXPORTER_OTLP_HEADERS, ...e.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
      serviceName: e.OTEL_SERVICE_NAME,
      resourceAttributes: e.OTEL_RESOURCE_ATTRIBUTES,
      sampler: e.OTEL_TRACES_SAMPLER,
      samplerArg: e.OTEL_TRACES_SAMPLER_ARG ?? 1,
    },
  };
}
