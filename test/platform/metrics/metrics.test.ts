/**
 * `GET /metrics` through the socket: who may read it (R3_METRICS_TOKEN, else loopback only), and
 * that its values move with what the process does (requests, runs, jobs, tool calls, webhook
 * attempts, open streams, publishes; NATS consumer lag on a NATS bus).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../../../fakes/webhook-receiver.js';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { ALL_SCOPES, randomPrefix, request, startTestApp, type TestApp } from '../../helpers/app.js';
import { connectHttp, ok } from '../../helpers/mcp.js';
import { deleteTestStreams, probeNats, randomTestPrefix, requireNats } from '../../helpers/nats.js';
import { createSkill } from '../../helpers/resources.js';
import { webhookedOrg } from '../../helpers/webhooks.js';
import { parseMetrics, type Samples } from './parse.js';

const TOKEN = 'metrics-token-0123456789';

async function scrape(t: TestApp, headers: Record<string, string> = {}): Promise<Samples> {
  const res = await request(t.url, 'GET', '/metrics', { headers });
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseMetrics(res.text);
}

describe('GET /metrics with R3_METRICS_TOKEN set', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ R3_METRICS_TOKEN: TOKEN });
  });
  afterAll(() => t?.close());

  it('answers 401 without the token, with another token, and with an API token', async () => {
    const api = await t.token({ scopes: ALL_SCOPES });
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${api.token}`, TOKEN]) {
      const res = await t.request('GET', '/metrics', authorization ? { headers: { authorization } } : {});
      expect(res.status, authorization).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
      expect(res.body.error.message).toContain('R3_METRICS_TOKEN');
    }
  });

  it('answers the Prometheus text with the token, from any address', async () => {
    const samples = await scrape(t, { authorization: `Bearer ${TOKEN}`, 'x-forwarded-for': '203.0.113.9' });
    expect(samples.has('process_cpu_user_seconds_total')).toBe(true);
  });
});

describe('GET /metrics without R3_METRICS_TOKEN', () => {
  let t: TestApp;
  let admin: CreatedToken;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await startTestApp({
      R3_WORKER_CONCURRENCY: '0',
      R3_WEBHOOK_ALLOW_PRIVATE: 'true',
      // One attempt: a failed one ends its delivery.
      R3_WEBHOOK_MAX_ATTEMPTS: '1',
    });
    admin = await t.token({ scopes: ALL_SCOPES });
    receiver = await startReceiver();
    await createSkill(t, admin.token, { slug: 'sum', name: 'Summarize' });
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  it('answers loopback clients; a proxied request is refused with 403 naming R3_METRICS_TOKEN', async () => {
    await scrape(t);
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
      const res = await t.request('GET', '/metrics', { headers: { [header]: '203.0.113.9' } });
      expect(res.status, header).toBe(403);
      expect(res.body.error.details).toEqual({ setting: 'R3_METRICS_TOKEN' });
    }
  });

  it('exports exactly the r3_ metrics docs/operations.md lists', async () => {
    const doc = readFileSync(new URL('../../../docs/operations.md', import.meta.url), 'utf8');
    const documented = [...doc.matchAll(/^\| `(r3_[a-z_]+)` \|/gm)].map((m) => m[1]).sort();
    const exported = (await scrape(t)).names.filter((n) => n.startsWith('r3_')).sort();
    expect(exported).toEqual(documented);
  });

  it('counts requests by method, route pattern and status, with their latency', async () => {
    const before = await scrape(t);
    const key = 'r3_http_requests_total{method="GET",route="/api/v1/runs/:id",status="404"}';
    await t.request('GET', '/api/v1/runs/999999', { token: admin.token });
    await t.request('GET', '/api/v1/runs/999998', { token: admin.token });
    await t.request('GET', '/no/such/path');
    const after = await scrape(t);
    expect(after.value(key) - before.value(key)).toBe(2);
    expect(
      after.value(
        'r3_http_request_duration_seconds_count{method="GET",route="/api/v1/runs/:id",status="404"}',
      ),
    ).toBe(after.value(key));
    // The buckets are cumulative: the last bound's holds those within 30 s, +Inf every one.
    const bucket = (le: string) =>
      after.value(
        `r3_http_request_duration_seconds_bucket{method="GET",route="/api/v1/runs/:id",status="404",le="${le}"}`,
      );
    expect(bucket('+Inf')).toBe(after.value(key));
    expect(bucket('30')).toBe(after.value(key));
    expect(bucket('0.001')).toBeLessThanOrEqual(bucket('0.0025'));
    expect(
      after.value('r3_http_request_duration_seconds_sum{method="GET",route="/api/v1/runs/:id",status="404"}'),
    ).toBeGreaterThan(0);
    // An unknown path asks for a token first: 401.
    expect(
      after.value('r3_http_requests_total{method="GET",route="unmatched",status="401"}'),
    ).toBeGreaterThan(0);
  });

  it("times the commits of the process's transactions", async () => {
    const count = 'r3_db_commit_duration_seconds_count';
    const before = await scrape(t);
    // A skill's creation commits a transaction (its workspace write).
    const res = await t.request('POST', '/api/v1/skills', {
      token: admin.token,
      body: { manifest: { slug: 'timed', name: 'Timed' }, promptMd: 'Hi' },
    });
    expect(res.status, res.text).toBe(201);
    const after = await scrape(t);
    expect(after.value(count)).toBeGreaterThan(before.value(count));
    expect(after.value('r3_db_commit_duration_seconds_sum')).toBeGreaterThan(
      before.value('r3_db_commit_duration_seconds_sum'),
    );
    expect(after.value('r3_db_commit_duration_seconds_bucket{le="+Inf"}')).toBe(after.value(count));
  });

  it('shows a queued job, then counts the run that completes by kind and status', async () => {
    const completed = 'r3_runs_total{kind="skill",status="completed"}';
    const before = await scrape(t);
    const res = await t.request('POST', '/api/v1/skills/sum/runs', {
      token: admin.token,
      body: { input: {} },
    });
    expect(res.status, res.text).toBe(202);
    const queued = await scrape(t);
    expect(queued.value('r3_jobs{kind="execute_step",state="ready"}')).toBeGreaterThanOrEqual(1);
    expect(queued.has('r3_jobs_oldest_ready_age_seconds{kind="execute_step"}')).toBe(true);
    expect(queued.value('r3_runs_total{kind="skill",status="running"}')).toBeGreaterThan(
      before.value('r3_runs_total{kind="skill",status="running"}'),
    );
    await t.app.jobs.drain();
    const after = await scrape(t);
    expect(after.value(completed) - before.value(completed)).toBe(1);
    expect(after.value('r3_jobs{kind="execute_step",state="ready"}')).toBe(0);
    // The relay's own loop may hold a claim a flush skips: wait for it to commit.
    await t.app.outbox.flush();
    await expect.poll(async () => (await scrape(t)).value('r3_outbox_pending')).toBe(0);
    const published = await scrape(t);
    expect(published.value('r3_outbox_lag_seconds')).toBe(0);
    // The org has no webhook: its events went to live subscribers only (src/platform/outbox/relay.ts).
    expect(published.value('r3_bus_published_total{result="announced"}')).toBeGreaterThan(
      before.value('r3_bus_published_total{result="announced"}'),
    );
  });

  it('counts MCP tool calls by tool and result', async () => {
    const client = await connectHttp(t.url, admin.token);
    try {
      await ok(client, 'runtime_list_runs', {});
      await client.callTool({ name: 'runtime_get_run', arguments: { runId: 'nope' } });
      await client.callTool({ name: 'no_such_tool', arguments: {} });
    } finally {
      await client.close();
    }
    const samples = await scrape(t);
    expect(samples.value('r3_mcp_tool_calls_total{tool="runtime_list_runs",result="ok"}')).toBe(1);
    expect(samples.value('r3_mcp_tool_calls_total{tool="runtime_get_run",result="VALIDATION_FAILED"}')).toBe(
      1,
    );
    expect(samples.value('r3_mcp_tool_calls_total{tool="unknown",result="NOT_FOUND"}')).toBe(1);
    expect(samples.value('r3_mcp_tool_call_duration_seconds_count{tool="runtime_list_runs"}')).toBe(1);
  });

  it('counts webhook attempts by result', async () => {
    const org = await webhookedOrg(t, 'hooks', `${receiver.url}/in`);
    receiver.respondWith(503);
    await org.created('first');
    receiver.respondWith(200);
    await org.created('second');
    const samples = await scrape(t);
    expect(samples.value('r3_webhook_attempts_total{result="http_5xx"}')).toBe(1);
    expect(samples.value('r3_webhook_attempts_total{result="success"}')).toBe(1);
    expect(samples.value('r3_webhook_attempt_duration_seconds_count{result="success"}')).toBe(1);
    expect(samples.value('r3_webhook_deliveries_total{result="failed"}')).toBe(1);
    expect(samples.value('r3_webhook_deliveries_total{result="delivered"}')).toBe(1);
  });

  it('shows the event streams open', async () => {
    const res = await t.request('POST', '/api/v1/skills/sum/runs', {
      token: admin.token,
      body: { input: {} },
    });
    const controller = new AbortController();
    const stream = await fetch(`${t.url}/api/v1/runs/${res.body.runId}/stream`, {
      headers: { authorization: `Bearer ${admin.token}` },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    expect((await scrape(t)).value('r3_sse_streams_open')).toBe(1);
    controller.abort();
    await stream.body?.cancel().catch(() => undefined);
    await expect.poll(async () => (await scrape(t)).value('r3_sse_streams_open')).toBe(0);
    await t.app.jobs.drain();
  });
});

const nats = await probeNats();

describe.skipIf(nats.skip)('GET /metrics on a NATS bus', () => {
  let t: TestApp;
  const prefix = randomTestPrefix('metrics');
  beforeAll(async () => {
    requireNats(nats);
    t = await startTestApp({ NATS_URL: nats.url, R3_BUS_PREFIX: prefix, R3_WORKER_CONCURRENCY: '0' });
  });
  afterAll(async () => {
    await t?.close();
    await deleteTestStreams(nats, [prefix]);
  });

  it("shows each durable consumer's pending and unacknowledged messages, and counts publishes", async () => {
    const admin = await t.token({ scopes: ALL_SCOPES });
    await createSkill(t, admin.token, { slug: `s${randomPrefix()}` });
    await t.app.outbox.flush();
    const samples = await scrape(t);
    const consumers = samples.keys().filter((k) => k.startsWith('r3_bus_consumer_pending{'));
    expect(consumers.length).toBeGreaterThan(0);
    expect(samples.keys().filter((k) => k.startsWith('r3_bus_consumer_ack_pending{'))).toHaveLength(
      consumers.length,
    );
    expect(samples.value('r3_metrics_collect_errors_total{metric="r3_bus_consumer_pending"}')).toBe(0);
  });
});
