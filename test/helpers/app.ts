/**
 * An r3 process started in-process for one test file, on its own database, a free port and a
 * manual clock; plus a small HTTP client that goes through the real socket.
 */
import { randomBytes } from 'node:crypto';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { CreatedToken } from '../../src/features/tokens/service.js';
import { type App, startApp } from '../../src/main.js';
import type { Role, Scope } from '../../src/platform/auth/principal.js';
import { loadConfig } from '../../src/platform/config.js';
import { createLogger, type Logger } from '../../src/platform/log.js';
import { ManualClock } from '../../src/platform/util/clock.js';
import { createTestDatabase, type TestDatabase } from './db.js';
import { openApiChecker } from './openapi-check.js';
import { TEST_SECRET_KEY } from './process.js';

export interface HttpAnswer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as is (no JSON encoding). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface TestApp {
  app: App;
  clock: ManualClock;
  url: string;
  database: TestDatabase;
  /** Issues a token (creating org and user as needed). Defaults: org `acme`, role owner, default scopes. */
  token(options?: {
    org?: string;
    user?: string;
    role?: Role;
    scopes?: Scope[];
    expiresAt?: Date | null;
  }): Promise<CreatedToken>;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<HttpAnswer<T>>;
  close(): Promise<void>;
}

/** Every scope: for tests that are not about scopes. */
export const ALL_SCOPES: Scope[] = ['read:all', 'write:resources', 'run:invoke', 'run:approve'];

export function randomPrefix(): string {
  return `t${randomBytes(5).toString('hex')}`;
}

/** Starts r3 for a test file. `env` overrides the test defaults (same variables as production). */
export async function startTestApp(
  env: Record<string, string> = {},
  options: {
    database?: TestDatabase /** The manual clock's first reading (default: now). */;
    now?: number;
    /** Traces into this exporter (an `InMemorySpanExporter`), whatever the OTEL_* variables say. */
    spanExporter?: SpanExporter;
    /** The app's logger (default: stderr at R3_LOG_LEVEL). */
    log?: Logger;
  } = {},
): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    R3_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    R3_BUS_PREFIX: randomPrefix(),
    R3_RATE_LIMIT_PER_MIN: '100000',
    R3_RATE_LIMIT_BURST: '100000',
    R3_DB_POOL_SIZE: '5',
    R3_SHUTDOWN_TIMEOUT: '2s',
    R3_SECRET_KEY: TEST_SECRET_KEY,
    // R3_HTTP_ENGINE=node npm test runs the whole suite on the node:http engine.
    ...(process.env.R3_HTTP_ENGINE ? { R3_HTTP_ENGINE: process.env.R3_HTTP_ENGINE } : {}),
    ...env,
  });
  const clock = new ManualClock(options.now);
  const app = await startApp(config, {
    clock,
    log: options.log ?? createLogger(config.logLevel, 2),
    ...(options.spanExporter ? { spanExporter: options.spanExporter } : {}),
  });
  const url = app.url;
  const check = openApiChecker(app);
  let counter = 0;
  return {
    app,
    clock,
    url,
    database,
    token(o = {}) {
      counter++;
      return app.tokens.create({
        org: o.org ?? 'acme',
        userId: o.user ?? `user-${o.role ?? 'owner'}-${counter}`,
        role: o.role ?? 'owner',
        name: `test token ${counter}`,
        scopes: o.scopes ?? ['read:all', 'run:invoke'],
        expiresAt: o.expiresAt ?? null,
      });
    },
    async request(method, path, o) {
      const answer = await request(url, method, path, o);
      check(method, path, answer.status, answer.headers.get('content-type') ?? '', answer.body);
      return answer;
    },
    async close() {
      await app.close();
      if (!options.database) await database.drop();
    },
  };
}

/** One HTTP exchange against `baseUrl` through a real socket. */
export async function request<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<HttpAnswer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | Buffer | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}
