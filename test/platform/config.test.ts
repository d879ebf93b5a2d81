import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config.js';

describe('configuration', () => {
  it('has the defaults of README "Configuration"', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      baseUrl: 'http://127.0.0.1:8080',
      databaseUrl: undefined,
      natsUrl: undefined,
      env: 'test',
      rateLimit: { perMinute: 60, burst: 120 },
      webhooks: {
        backoffMs: [1000, 30_000, 300_000, 3_600_000, 21_600_000, 86_400_000],
        maxAttempts: 6,
        timeoutMs: 30_000,
        oldSecretWindowMs: 600_000,
        allowPrivate: false,
      },
      mcp: { httpAuthoring: false },
      model: { provider: 'echo' },
    });
    expect(c.dataDir.endsWith('.r3')).toBe(true);
  });

  it('parses durations with ms/s/m/h suffixes and booleans', () => {
    const c = loadConfig({
      R3_WEBHOOK_BACKOFF: '10ms,20ms, 1s',
      R3_WEBHOOK_TIMEOUT: '250ms',
      R3_WEBHOOK_OLD_SECRET_WINDOW: '2m',
      R3_WEBHOOK_ALLOW_PRIVATE: 'true',
      BASE_URL: 'https://r3.example.com/',
      PORT: '0',
    });
    expect(c.webhooks).toMatchObject({
      backoffMs: [10, 20, 1000],
      timeoutMs: 250,
      oldSecretWindowMs: 120_000,
      allowPrivate: true,
    });
    expect(c.baseUrl).toBe('https://r3.example.com');
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['R3_ENV', 'prod'],
    ['R3_RATE_LIMIT_PER_MIN', '-1'],
    ['R3_WEBHOOK_BACKOFF', '1s,,2s'],
    ['R3_WEBHOOK_TIMEOUT', '30 seconds'],
    ['R3_WEBHOOK_ALLOW_PRIVATE', 'maybe'],
    ['DATABASE_URL', 'mysql://x'],
    ['BASE_URL', 'not a url'],
    ['R3_MODEL_PROVIDER', 'anthropic'],
    ['R3_HTTP_ENGINE', 'uws'],
    ['R3_WEB_SEARCH', 'google'],
    ['R3_WEB_SEARCH', 'searxng:'],
    ['R3_TOOLS_ALLOW_PRIVATE', 'maybe'],
    ['R3_WORKER_PROCESSES', '-1'],
    ['R3_WORKER_PROCESSES', '65'],
    ['R3_WORKER_NICE', '20'],
    ['R3_WORKER_NICE', 'low'],
  ])('stops on a bad %s naming the variable', (name, value) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.join('\n')).toContain(name);
    expect((error as ConfigError).message).toContain(name);
  });

  it('keeps the jobs in the serving process by default; worker processes need NATS', () => {
    expect(loadConfig({})).toMatchObject({ workerProcesses: 0, workerNice: 10 });
    expect(
      loadConfig({ R3_WORKER_PROCESSES: '2', R3_WORKER_NICE: '0', NATS_URL: 'nats://127.0.0.1:4222' }),
    ).toMatchObject({ workerProcesses: 2, workerNice: 0 });
    expect(() => loadConfig({ R3_WORKER_PROCESSES: '1' })).toThrow(/R3_WORKER_PROCESSES: needs NATS_URL/);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', PORT: '' }).port).toBe(8080);
  });

  it("reads the agent tools settings: private targets, run_code's pool, the web_search backend, the image model", () => {
    expect(loadConfig({}).tools).toEqual({
      allowPrivate: false,
      runCode: { workers: 2, perOrg: 1, queuePerOrg: 32 },
      webSearch: undefined,
      imageModel: undefined,
    });
    expect(
      loadConfig({ R3_RUN_CODE_WORKERS: '4', R3_RUN_CODE_ORG_CONCURRENCY: '2', R3_RUN_CODE_ORG_QUEUE: '5' })
        .tools.runCode,
    ).toEqual({ workers: 4, perOrg: 2, queuePerOrg: 5 });
    expect(() => loadConfig({ R3_RUN_CODE_WORKERS: '0' })).toThrow(/R3_RUN_CODE_WORKERS/);
    expect(loadConfig({ R3_IMAGE_MODEL: 'gpt-image-1' }).tools.imageModel).toBe('gpt-image-1');
    expect(loadConfig({ R3_TOOLS_ALLOW_PRIVATE: 'true' }).tools.allowPrivate).toBe(true);
    expect(loadConfig({ R3_WEB_SEARCH: 'searxng:http://searx.internal:8888/' }).tools.webSearch).toEqual({
      backend: 'searxng',
      baseUrl: 'http://searx.internal:8888',
    });
    expect(loadConfig({ R3_WEB_SEARCH: 'brave', R3_BRAVE_API_KEY: 'k1' }).tools.webSearch).toEqual({
      backend: 'brave',
      baseUrl: 'https://api.search.brave.com/res/v1',
      apiKey: 'k1',
    });
    expect(
      loadConfig({ R3_WEB_SEARCH: 'brave:http://127.0.0.1:9/res/v1', R3_BRAVE_API_KEY: 'k1' }).tools
        .webSearch,
    ).toEqual({ backend: 'brave', baseUrl: 'http://127.0.0.1:9/res/v1', apiKey: 'k1' });
    expect(() => loadConfig({ R3_WEB_SEARCH: 'brave' })).toThrow(/R3_BRAVE_API_KEY/);
  });
});
