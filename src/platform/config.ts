/**
 * r3's configuration: the environment, parsed once by zod (README "Configuration"). A bad value stops start-up
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

/**
 * One environment variable, declared once: its zod schema, its default as an operator would write
 * it (parsed by the same schema, so it is valid by construction) and what it means. Parsing, the
 * list of variables r3 reads and the variable tables of README.md and docs/operations.md (checked
 * by test/platform/config-docs.test.ts) all come from these declarations.
 */
interface Variable<S extends z.ZodType = z.ZodType> {
  schema: S;
  doc: string;
  /** The value when unset, as text; absent: unset stays `undefined`. */
  default?: string;
  /** The tables' default column where `default` cannot say it (derived or generated at start). */
  shown?: string;
  /** Documented in docs/operations.md (tracing) instead of README.md. */
  operations?: true;
}

function variable<
  S extends z.ZodType,
  const O extends Omit<Variable, 'schema' | 'doc'> = Record<never, never>,
>(schema: S, doc: string, options?: O): { schema: S; doc: string } & O {
  return { schema, doc, ...(options as O) };
}

const durationDefault = (ms: number) => ({ default: formatDuration(ms) });

const VARIABLES = {
  PORT: variable(
    z.coerce.number().int().min(0).max(65_535),
    'HTTP port (REST, SSE, MCP); `0` picks a free one',
    { default: '8080' },
  ),
  HOST: variable(z.string().min(1), 'bind address', { default: '127.0.0.1' }),
  BASE_URL: variable(z.url(), 'used in `pollUrl`, `reviewUrl` and links', { shown: '`http://HOST:PORT`' }),
  DATABASE_URL: variable(
    z.string().regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// URL'),
    'PostgreSQL URL; unset: embedded PostgreSQL under `R3_DATA_DIR`',
  ),
  R3_DATA_DIR: variable(z.string().min(1), 'embedded database files and anything else kept on disk', {
    default: './.r3',
  }),
  NATS_URL: variable(
    z.string().regex(/^(nats|tls|ws|wss):\/\/|^[^:/]+:\d+$/, 'NATS_URL must be a nats:// URL'),
    'NATS with JetStream; unset: in-process bus (single node only)',
  ),
  R3_ENV: variable(
    z.enum(['live', 'test']),
    '`live` or `test`: which token prefix (`svc_live_`/`svc_test_`) is issued and accepted',
    { default: 'test' },
  ),
  R3_RATE_LIMIT_PER_MIN: variable(
    nonNegativeInt,
    'per-token bucket refill per minute, shared by all nodes; `0` disables',
    {
      default: '60',
    },
  ),
  R3_RATE_LIMIT_BURST: variable(nonNegativeInt, 'per-token bucket size (at least 1 while limits are on)', {
    default: '120',
  }),
  R3_WEBHOOK_BACKOFF: variable(
    z.string().transform((text, ctx) => {
      const list = parseDurationList(text);
      if (!list) {
        ctx.addIssue({ code: 'custom', message: 'R3_WEBHOOK_BACKOFF must be a comma list of durations' });
        return z.NEVER;
      }
      return list;
    }),
    'webhook retry delays (the last repeats)',
    { default: DEFAULT_BACKOFF_MS.map(formatDuration).join(',') },
  ),
  R3_WEBHOOK_MAX_ATTEMPTS: variable(
    z.coerce.number().int().min(1).max(100),
    'attempts per delivery before it is `failed`',
    { default: String(DEFAULT_MAX_ATTEMPTS) },
  ),
  R3_WEBHOOK_TIMEOUT: variable(
    duration('R3_WEBHOOK_TIMEOUT'),
    "one delivery attempt's timeout",
    durationDefault(30_000),
  ),
  R3_WEBHOOK_OLD_SECRET_WINDOW: variable(
    duration('R3_WEBHOOK_OLD_SECRET_WINDOW'),
    'how long a rotated-out secret still signs',
    durationDefault(600_000),
  ),
  R3_WEBHOOK_ALLOW_PRIVATE: variable(
    bool,
    'allow webhook targets on loopback/private networks (and plain http); never cloud metadata or link-local addresses',
    { default: 'false' },
  ),
  R3_WEBHOOK_CONCURRENCY: variable(
    z.coerce.number().int().min(1).max(256),
    'delivery attempts in flight per webhook per process (1–256)',
    { default: '8' },
  ),
  R3_SSE_HEARTBEAT: variable(
    duration('R3_SSE_HEARTBEAT'),
    'interval of the heartbeat comment on run event streams',
    durationDefault(15_000),
  ),
  R3_SSE_MAX_STREAMS_PER_TOKEN: variable(
    nonNegativeInt,
    'open event streams per token per process (one more is 429); `0`: no cap',
    { default: '100' },
  ),
  R3_SSE_QUEUE_LIMIT: variable(
    z.coerce.number().int().min(1).max(100_000),
    'live events held for a client whose socket is full before its stream is closed',
    { default: '256' },
  ),
  R3_MCP_HTTP_AUTHORING: variable(bool, 'enable the MCP authoring tools over HTTP', { default: 'false' }),
  R3_MCP_VALIDATE_OUTPUT: variable(
    bool,
    "check every MCP tool result against the tool's `outputSchema` before it is answered (a result outside it is logged and answered `INTERNAL`)",
    { default: 'true' },
  ),
  R3_MCP_ALLOWED_ORIGINS: variable(
    z.string(),
    "comma list of browser `Origin`s allowed on `/api/mcp` (BASE_URL's own origin always is)",
    { default: '' },
  ),
  R3_OAUTH_ALLOW_PRIVATE: variable(
    bool,
    'let OAuth Client ID Metadata Documents be fetched from loopback/private hosts and over plain http (tests); never cloud metadata or link-local addresses',
    { default: 'false' },
  ),
  R3_MODEL_PROVIDER: variable(
    z.enum(['echo', 'openai']),
    'default model provider of prompt skills: `echo` or `openai`',
    { default: 'echo' },
  ),
  OPENAI_BASE_URL: variable(z.url(), 'the OpenAI-compatible provider’s base URL', {
    default: 'https://api.openai.com/v1',
  }),
  OPENAI_API_KEY: variable(z.string(), 'its API key'),
  R3_MODEL: variable(z.string(), 'its default model', { default: 'gpt-4o-mini' }),
  R3_EMBEDDINGS_PROVIDER: variable(
    z.enum(['local', 'openai']),
    'embeddings for hybrid search: `local` or `openai`',
    {
      default: 'local',
    },
  ),
  R3_EMBEDDINGS_MODEL: variable(z.string(), 'the `openai` embeddings model', {
    default: 'text-embedding-3-small',
  }),
  R3_EMBEDDINGS_DIMENSIONS: variable(z.coerce.number().int().min(2).max(8192), 'embedding dimensions', {
    shown: '`256` (`local`), `1536` (`openai`)',
  }),
  R3_LOG_LEVEL: variable(
    z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']),
    'pino level (`silent` … `trace`)',
    { default: 'info' },
  ),
  R3_BUS_PREFIX: variable(
    z.string().regex(/^[A-Za-z0-9_-]+$/, 'R3_BUS_PREFIX may hold letters, digits, - and _'),
    'namespace of NATS subjects and streams (several deployments on one NATS)',
    { default: 'r3' },
  ),
  R3_DB_POOL_SIZE: variable(
    z.coerce.number().int().min(1).max(200),
    "connections of the database pool per process (MikroORM's, shared by plain SQL and the ORM; the job workers' statements hold at most half of them); authentication's batched reads have three more of their own",
    {
      default: '10',
    },
  ),
  R3_WORKER_CONCURRENCY: variable(
    z.coerce.number().int().min(0).max(256),
    "jobs executed at once per process (`0`: this process runs no jobs); jobs that running work waits on (a mission's next tasks) may take a quarter more",
    { default: '32' },
  ),
  R3_WORKER_PROCESSES: variable(
    z.coerce.number().int().min(0).max(64),
    'worker processes (`r3 work`) that `r3 serve` starts and restarts beside itself, each with R3_WORKER_CONCURRENCY workers and the webhook dispatcher, so the serving process only answers requests (needs NATS_URL). `0`: the serving process executes the jobs itself',
    { default: '0' },
  ),
  R3_WORKER_NICE: variable(
    z.coerce.number().int().min(0).max(19),
    "how much lower `r3 work` runs in the CPU scheduler than other processes (Unix nice; `0`: the same): on a busy machine the serving processes' requests go first",
    { default: '10' },
  ),
  R3_SHADOW_RUN_RATE: variable(
    z.coerce.number().min(0).max(100_000),
    "shadow runs (an evaluation's replays) a process starts per second while it has other jobs (one started or ended in the last 250 ms); otherwise they take up to half its worker slots at once. `0`: none until the other jobs pause",
    { default: '10' },
  ),
  R3_SHUTDOWN_TIMEOUT: variable(
    duration('R3_SHUTDOWN_TIMEOUT'),
    'how long SIGTERM waits for in-flight requests',
    durationDefault(10_000),
  ),
  R3_TRUST_PROXY: variable(
    bool,
    'take the client address from `X-Forwarded-For` (per-IP limits behind a proxy)',
    { default: 'false' },
  ),
  R3_HTTP_ENGINE: variable(
    z.enum(['auto', 'node']),
    '`auto`: a native uWebSockets.js build for this Node when one loads, else `node:http`; `node`: always `node:http`',
    { default: 'auto' },
  ),
  R3_SECRET_KEY: variable(
    z.string().min(32, 'R3_SECRET_KEY must be at least 32 characters'),
    'master secret (≥ 32 characters) sealing webhook signing secrets and source credentials at rest; unset, r3 generates a random one into that file (0600) on first start and reads it on later starts. Every node must use the same one (set it, or share the file); with another key, stored webhook secrets no longer open. To change it, `r3 secrets rekey` (ops/README.md)',
    { shown: 'unset: `R3_DATA_DIR/secret.key`' },
  ),
  R3_CONNECTORS_ALLOW_PRIVATE: variable(
    bool,
    'allow source connectors (HubSpot, IMAP/SMTP, Zoom) to reach loopback/private hosts (and plain http); never cloud metadata or link-local addresses',
    { default: 'false' },
  ),
  R3_CONNECTOR_TIMEOUT: variable(
    duration('R3_CONNECTOR_TIMEOUT'),
    'bound on one upstream request of a connector',
    durationDefault(15_000),
  ),
  R3_CONNECTOR_RETRY_BASE: variable(
    duration('R3_CONNECTOR_RETRY_BASE'),
    "first backoff step of a connector's retries (timeouts, 5xx, 429 without `Retry-After`)",
    { default: '500ms' },
  ),
  R3_METRICS_TOKEN: variable(
    z.string().min(16, 'R3_METRICS_TOKEN must be at least 16 characters'),
    'Bearer token `GET /metrics` requires (≥ 16 characters); unset, `/metrics` answers loopback clients only (docs/operations.md lists the metrics)',
  ),
  R3_RUN_DEADLINE: variable(
    duration('R3_RUN_DEADLINE'),
    "longest a skill run's tool loop may take from the run's creation (a workflow skill step's, from the step's start) (a call still executing is answered `TOOL_TIMEOUT`; a model turn past it fails the run with `DEADLINE_EXCEEDED`)",
    durationDefault(600_000),
  ),
  R3_SCHEDULE_MIN_INTERVAL: variable(
    duration('R3_SCHEDULE_MIN_INTERVAL'),
    "shortest time between two firings of one `schedule` trigger (its cron's due times sooner than that after a firing are passed over); `0s`: no floor; `r3 org schedules` sets an org's own",
    durationDefault(60_000),
  ),
  R3_SCHEDULE_MAX_OPEN_REVIEWS: variable(
    nonNegativeInt,
    "open review items one `schedule` trigger's runs may have; at the cap a due time starts no run and is recorded as skipped; `0`: no cap; `r3 org schedules` sets an org's own",
    { default: '20' },
  ),
  R3_ARTIFACT_MAX_BYTES: variable(
    z.coerce
      .number()
      .int()
      .min(1)
      .max(1024 * 1024 * 1024),
    'largest artifact a tool may store (bytes)',
    { default: String(10 * 1024 * 1024), shown: '`10485760` (10 MiB)' },
  ),
  R3_TOOLS_ALLOW_PRIVATE: variable(
    bool,
    'let the agent tools `fetch_url` / `crawl_site` reach loopback/private hosts (tests, intranets); never cloud metadata or link-local addresses',
    { default: 'false' },
  ),
  R3_RUN_CODE_WORKERS: variable(
    z.coerce.number().int().min(1).max(64),
    "`run_code`'s sandbox workers per process (one script each at a time; one of them is kept for orgs running no script)",
    { default: '2' },
  ),
  R3_RUN_CODE_ORG_CONCURRENCY: variable(
    z.coerce.number().int().min(1).max(64),
    "`run_code` scripts one org runs at once per process; the org's further scripts wait in its own queue, served round-robin with other orgs'",
    { default: '1' },
  ),
  R3_RUN_CODE_ORG_QUEUE: variable(
    z.coerce.number().int().min(1).max(10_000),
    '`run_code` scripts one org may have waiting per process; beyond it a call is `RATE_LIMITED` (`details.limit: "queue"`)',
    { default: '32' },
  ),
  R3_WEB_SEARCH: variable(
    z
      .string()
      .regex(/^(searxng:https?:\/\/\S+|brave(:https?:\/\/\S+)?)$/, 'must be searxng:<base URL> or brave'),
    "backend of the agent tool `web_search`: `searxng:<base URL>` (a SearXNG instance's JSON API) or `brave` (Brave Search API; `brave:<base URL>` for a compatible server); unset: the tool answers `TOOL_UNAVAILABLE`",
  ),
  R3_BRAVE_API_KEY: variable(
    z.string(),
    'Brave Search API key (`X-Subscription-Token`); required when `R3_WEB_SEARCH` is `brave`',
  ),
  R3_IMAGE_MODEL: variable(
    z.string().min(1),
    "`generate_image`'s model, asked on the `openai` provider's server; unset: the tool answers `TOOL_UNAVAILABLE`",
  ),
  // OpenTelemetry (the variables of its SDK specification that r3 reads; a bad value stops start-up).
  OTEL_SDK_DISABLED: variable(bool, '`true`: tracing off whatever else is set', {
    default: 'false',
    operations: true,
  }),
  OTEL_SERVICE_NAME: variable(z.string().min(1), '`service.name` of the spans', {
    default: 'r3',
    operations: true,
  }),
  OTEL_RESOURCE_ATTRIBUTES: variable(
    keyValueList('OTEL_RESOURCE_ATTRIBUTES'),
    '`key=value,…` added to the resource (`deployment.environment=prod`)',
    { default: '', shown: 'none', operations: true },
  ),
  OTEL_TRACES_EXPORTER: variable(
    z.enum(['otlp', 'none'], { message: 'must be otlp or none' }),
    '`otlp` or `none` (tracing off)',
    { default: 'otlp', operations: true },
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: variable(
    z.url(),
    'collector base URL; traces go to `<it>/v1/traces`. Unset (and no traces endpoint): tracing off',
    { operations: true },
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: variable(z.url(), 'full traces URL (wins over the base)', {
    operations: true,
  }),
  OTEL_EXPORTER_OTLP_HEADERS: variable(
    keyValueList('OTEL_EXPORTER_OTLP_HEADERS'),
    '`key=value,…` (values percent-encoded) sent with each export',
    { default: '', shown: 'none', operations: true },
  ),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: variable(
    keyValueList('OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
    'the same for traces only (added to the above)',
    { default: '', shown: 'none', operations: true },
  ),
  OTEL_EXPORTER_OTLP_PROTOCOL: variable(otlpProtocol, '`http/protobuf` or `http/json` (`grpc` is refused)', {
    default: 'http/protobuf',
    operations: true,
  }),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: variable(
    otlpProtocol,
    'the same for traces only (wins over the above)',
    {
      shown: '`OTEL_EXPORTER_OTLP_PROTOCOL`',
      operations: true,
    },
  ),
  OTEL_TRACES_SAMPLER: variable(
    z.enum(SAMPLERS, { message: `must be one of ${SAMPLERS.join(', ')}` }),
    SAMPLERS.map((name) => `\`${name}\``).join(', '),
    { default: 'parentbased_always_on', operations: true },
  ),
  OTEL_TRACES_SAMPLER_ARG: variable(
    z.coerce.number().min(0).max(1),
    'the ratio (0–1) of the `traceidratio` samplers',
    { shown: '`1`', operations: true },
  ),
} satisfies Record<string, Variable>;

type Variables = typeof VARIABLES;
/** The parsed environment: each variable's schema output, `undefined` when it is unset and has no default. */
type Environment = {
  [K in keyof Variables]: Variables[K] extends { default: string }
    ? z.output<Variables[K]['schema']>
    : z.output<Variables[K]['schema']> | undefined;
};

/** Every environment variable r3 reads (deployment files set no other: test/ops checks). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(VARIABLES);

/**
 * The variable table of README.md (`readme`) or docs/operations.md (`operations`), rendered from the
 * declarations: `| variable | default | meaning |` rows.
 */
export function configTable(doc: 'readme' | 'operations'): string {
  const rows = Object.entries(VARIABLES as Record<string, Variable>)
    .filter(([, v]) => (v.operations === true) === (doc === 'operations'))
    .map(([name, v]) => {
      const shown =
        v.shown ?? (v.default === undefined ? 'unset' : v.default === '' ? 'empty' : `\`${v.default}\``);
      return `| \`${name}\` | ${shown} | ${v.doc} |`;
    });
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** Parses each variable present in `env` (or its default) with its schema; the issues, named. */
function parseEnvironment(env: Record<string, string | undefined>): Environment {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(VARIABLES as Record<string, Variable>)) {
    const given = env[name];
    const text = given === undefined || given === '' ? v.default : given;
    if (text === undefined) continue;
    const parsed = v.schema.safeParse(text);
    if (parsed.success) {
      out[name] = parsed.data;
      continue;
    }
    const shown =
      given === undefined || given === ''
        ? ''
        : ` (got ${JSON.stringify(given.length > 60 ? `${given.slice(0, 60)}…` : given)})`;
    for (const issue of parsed.error.issues) problems.push(`${name}: ${issue.message}${shown}`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out as Environment;
}

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
  /**
   * The deployment's floor and quota of `schedule` triggers (docs/api.md "Workflow triggers"): the
   * shortest time between two firings of one trigger (R3_SCHEDULE_MIN_INTERVAL; 0: none) and the open
   * review items one trigger's runs may have (R3_SCHEDULE_MAX_OPEN_REVIEWS; 0: no cap). An org's own
   * (`r3 org schedules`) replaces them.
   */
  schedules: { minIntervalMs: number; maxOpenReviews: number };
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
  /**
   * MCP: authoring tools over HTTP (R3_MCP_HTTP_AUTHORING), browser origins allowed on /api/mcp, and
   * whether every tool result is checked against its output schema (R3_MCP_VALIDATE_OUTPUT).
   */
  mcp: { httpAuthoring: boolean; allowedOrigins: string[]; validateOutput: boolean };
  /** OAuth sign-in: Client ID Metadata Documents may be on loopback/private hosts, over http (R3_OAUTH_ALLOW_PRIVATE; tests). */
  oauth: { allowPrivate: boolean };
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
  /** `r3 work` processes `r3 serve` keeps beside itself (R3_WORKER_PROCESSES; they need NATS). */
  workerProcesses: number;
  /** The nice value `r3 work` gives itself (R3_WORKER_NICE). */
  workerNice: number;
  /** Shadow runs started per second per process while it has other jobs (R3_SHADOW_RUN_RATE). */
  shadowRunRate: number;
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
  /** Artifacts (docs/mcp.md "Built-in tools"): `maxBytes` caps one artifact's content (R3_ARTIFACT_MAX_BYTES, 10 MiB). */
  artifacts: { maxBytes: number };
  /** The built-in agent tools' settings (docs/mcp.md "Built-in tools"). */
  tools: ToolsConfig;
  /**
   * How long a skill run's tool loop may take from the run's creation, a workflow skill step's from
   * the step's start (R3_RUN_DEADLINE, 10 min): a tool call still running then is answered
   * TOOL_TIMEOUT, and a model turn past it fails the run with DEADLINE_EXCEEDED.
   */
  runDeadlineMs: number;
  /**
   * OpenTelemetry traces: exported over OTLP/HTTP to `endpoint` (the traces URL) when one is set
   * (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`), unless
   * OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none.
   */
  tracing: TracingConfig;
}

/** Settings of the built-in agent tools (docs/mcp.md "Built-in tools"). */
export interface ToolsConfig {
  /** `fetch_url`/`crawl_site` may reach loopback/private/reserved addresses (R3_TOOLS_ALLOW_PRIVATE; tests). */
  allowPrivate: boolean;
  /**
   * `run_code`'s sandbox pool: `workers` (R3_RUN_CODE_WORKERS), scripts of one org at once
   * (`perOrg`, R3_RUN_CODE_ORG_CONCURRENCY) and waiting (`queuePerOrg`, R3_RUN_CODE_ORG_QUEUE).
   */
  runCode: { workers: number; perOrg: number; queuePerOrg: number };
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
  const e = parseEnvironment(env);
  if (e.R3_RATE_LIMIT_PER_MIN > 0 && e.R3_RATE_LIMIT_BURST === 0) {
    throw new ConfigError(['R3_RATE_LIMIT_BURST: must be at least 1 when R3_RATE_LIMIT_PER_MIN is set']);
  }
  if (e.R3_WORKER_PROCESSES > 0 && e.NATS_URL === undefined) {
    throw new ConfigError([
      'R3_WORKER_PROCESSES: needs NATS_URL (worker processes reach the serving one over the shared bus)',
    ]);
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
    schedules: { minIntervalMs: e.R3_SCHEDULE_MIN_INTERVAL, maxOpenReviews: e.R3_SCHEDULE_MAX_OPEN_REVIEWS },
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
      validateOutput: e.R3_MCP_VALIDATE_OUTPUT,
      allowedOrigins: e.R3_MCP_ALLOWED_ORIGINS.split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    },
    oauth: { allowPrivate: e.R3_OAUTH_ALLOW_PRIVATE },
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
    workerProcesses: e.R3_WORKER_PROCESSES,
    workerNice: e.R3_WORKER_NICE,
    shadowRunRate: e.R3_SHADOW_RUN_RATE,
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
      runCode: {
        workers: e.R3_RUN_CODE_WORKERS,
        perOrg: e.R3_RUN_CODE_ORG_CONCURRENCY,
        queuePerOrg: e.R3_RUN_CODE_ORG_QUEUE,
      },
      webSearch: webSearchConfig(e.R3_WEB_SEARCH, e.R3_BRAVE_API_KEY),
      imageModel: e.R3_IMAGE_MODEL,
    },
    runDeadlineMs: e.R3_RUN_DEADLINE,
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

/**
 * Freezes a configuration, deeply, once start-up is over (`startApp` after it listens, since PORT=0
 * settles `baseUrl` then; `openApp` for the other roles): from then on no module can change what
 * another reads.
 */
export function freezeConfig(config: Config): Readonly<Config> {
  const freeze = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
    Object.freeze(value);
    for (const inner of Object.values(value)) freeze(inner);
  };
  freeze(config);
  return config;
}
