/**
 * Traces through a real socket, exported to an in-memory exporter: the HTTP server span continues
 * an incoming `traceparent` and the run created joins its trace; the run's step and its model call
 * are spans of that trace, and the model request carries the model span's `traceparent`; MCP tool
 * calls are children of their HTTP request; a webhook attempt is a client span whose POST carries it.
 * And the OTEL_* variables r3 reads: a bad value stops start-up naming it.
 */

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../../../fakes/openai-server.js';
import { type Receiver, startReceiver } from '../../../fakes/webhook-receiver.js';
import { createHttpClient } from '../../../src/features/connectors/http-client.js';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { ConfigError, loadConfig } from '../../../src/platform/config.js';
import { createTracing } from '../../../src/platform/tracing/tracing.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { connectHttp, ok } from '../../helpers/mcp.js';
import { createSkill } from '../../helpers/resources.js';
import { webhookedOrg } from '../../helpers/webhooks.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';

describe('the OTEL_* variables', () => {
  const problems = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env);
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
    return [];
  };

  it('stop start-up naming the variable on a value r3 does not know', () => {
    expect(problems({ OTEL_TRACES_SAMPLER: 'bogus' })).toEqual([
      expect.stringMatching(/^OTEL_TRACES_SAMPLER: must be one of always_on, .* \(got "bogus"\)$/),
    ]);
    expect(problems({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })[0]).toMatch(
      /^OTEL_EXPORTER_OTLP_PROTOCOL: must be http\/protobuf or http\/json/,
    );
    expect(problems({ OTEL_TRACES_EXPORTER: 'zipkin' })[0]).toMatch(/^OTEL_TRACES_EXPORTER:/);
    expect(problems({ OTEL_TRACES_SAMPLER_ARG: '2' })[0]).toMatch(/^OTEL_TRACES_SAMPLER_ARG:/);
    expect(problems({ OTEL_EXPORTER_OTLP_HEADERS: 'novalue' })[0]).toMatch(/^OTEL_EXPORTER_OTLP_HEADERS:/);
    expect(problems({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })[0]).toMatch(
      /^OTEL_EXPORTER_OTLP_ENDPOINT:/,
    );
  });

  it('turn export on with an endpoint (traces at /v1/traces), off without one or when disabled', () => {
    expect(loadConfig({}).tracing.endpoint).toBeUndefined();
    const on = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=a%20b,tenant=t1',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    }).tracing;
    expect(on).toMatchObject({
      endpoint: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: { 'x-api-key': 'a b', tenant: 't1' },
      serviceName: 'r3',
      sampler: 'parentbased_traceidratio',
      samplerArg: 0.25,
    });
    expect(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/custom',
      }).tracing.endpoint,
    ).toBe('http://traces:4318/custom');
    const off = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(loadConfig({ ...off, OTEL_SDK_DISABLED: 'true' }).tracing.endpoint).toBeUndefined();
    expect(loadConfig({ ...off, OTEL_TRACES_EXPORTER: 'none' }).tracing.endpoint).toBeUndefined();
  });
});

describe('OTLP/HTTP export', () => {
  it.each([
    ['http/json', 'application/json'],
    ['http/protobuf', 'application/x-protobuf'],
  ] as const)('posts the spans to the endpoint over %s', async (protocol, contentType) => {
    const got: Array<{ path: string; type: string; body: Buffer; auth: string | undefined }> = [];
    const collector = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push({
          path: req.url ?? '',
          type: req.headers['content-type'] ?? '',
          body: Buffer.concat(chunks),
          auth: req.headers['x-api-key'] as string | undefined,
        });
        res.writeHead(200, { 'content-type': contentType }).end();
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = collector.address() as AddressInfo;
      const config = loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=k1',
      });
      const tracing = await createTracing(config.tracing);
      expect(tracing.enabled).toBe(true);
      await tracing.inSpan('exported span', {}, async () => undefined);
      await tracing.shutdown();
      expect(got).toHaveLength(1);
      expect(got[0]).toMatchObject({ path: '/v1/traces', auth: 'k1' });
      expect(got[0]?.type).toContain(contentType);
      expect(got[0]?.body.includes('exported span')).toBe(true);
    } finally {
      collector.close();
    }
  });
});

describe('spans', () => {
  const exporter = new InMemorySpanExporter();
  let t: TestApp;
  let fake: FakeOpenAI;
  let receiver: Receiver;
  let admin: CreatedToken;

  beforeAll(async () => {
    // A skill that lists run_code is asked for one call, then answers.
    fake = await startFakeOpenAI({
      assistant: (body) => {
        if (!body.tools) return undefined;
        if (body.messages.some((m) => m.role === 'tool')) return { content: 'computed' };
        return {
          toolCalls: [{ id: 'c1', name: 'run_code', arguments: '{"language":"javascript","code":"1+1"}' }],
        };
      },
    });
    receiver = await startReceiver();
    t = await startTestApp(
      {
        R3_WORKER_CONCURRENCY: '0',
        R3_MODEL_PROVIDER: 'openai',
        OPENAI_BASE_URL: fake.baseUrl,
        R3_WEBHOOK_ALLOW_PRIVATE: 'true',
      },
      { spanExporter: exporter },
    );
    admin = await t.token({ scopes: ALL_SCOPES });
    await createSkill(t, admin.token, { slug: 'sum' }, 'Summarize {{input.text}}');
    await createSkill(t, admin.token, { slug: 'calc', tools: ['run_code'] }, 'Compute {{input.text}}');
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
    await receiver?.close();
  });

  const spans = () => exporter.getFinishedSpans();
  const named = (name: string): ReadableSpan[] => spans().filter((s) => s.name === name);
  const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

  it("continue an incoming traceparent; the run joins the request's trace, its step and model call too", async () => {
    const res = await t.request('POST', '/api/v1/skills/sum/runs', {
      token: admin.token,
      body: { input: { text: 'otters' } },
      headers: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01` },
    });
    expect(res.status, res.text).toBe(202);
    const [server] = named('POST /api/v1/skills/:slug/runs');
    expect(server?.spanContext().traceId).toBe(TRACE_ID);
    expect(parentOf(server as ReadableSpan)).toBe(PARENT_SPAN);
    expect(server?.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/api/v1/skills/:slug/runs',
      'http.response.status_code': 202,
    });
    const run = await t.request('GET', `/api/v1/runs/${res.body.runId}`, { token: admin.token });
    expect(run.body.traceId).toBe(TRACE_ID);

    await t.app.jobs.drain();
    const [step] = named('run step sum');
    expect(step?.spanContext().traceId).toBe(TRACE_ID);
    expect(step?.attributes).toMatchObject({ 'r3.run.id': res.body.runId, 'r3.run.step': 'sum' });
    const [model] = named('model openai');
    expect(model?.spanContext().traceId).toBe(TRACE_ID);
    expect(parentOf(model as ReadableSpan)).toBe(step?.spanContext().spanId);
    expect(model?.attributes['gen_ai.system']).toBe('openai');
    const sent = fake.requests.at(-1);
    expect(sent?.headers.traceparent).toBe(`00-${TRACE_ID}-${model?.spanContext().spanId}-01`);
  });

  it("show each tool call of a run's tool loop in the run's trace, under its step", async () => {
    const res = await t.request('POST', '/api/v1/skills/calc/runs', {
      token: admin.token,
      body: { input: { text: 'x' } },
      headers: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01` },
    });
    expect(res.status, res.text).toBe(202);
    await t.app.jobs.drain();
    const [step] = named('run step calc');
    const [tool] = named('tool run_code');
    expect(tool?.spanContext().traceId).toBe(TRACE_ID);
    expect(parentOf(tool as ReadableSpan)).toBe(step?.spanContext().spanId);
    expect(tool?.attributes).toMatchObject({ 'r3.tool.name': 'run_code', 'r3.tool.call_id': 'c1' });
    expect(named('model openai').filter((m) => parentOf(m) === step?.spanContext().spanId)).toHaveLength(2);
  });

  it('leave probes and scrapes out', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      expect((await t.request('GET', path)).status).toBe(200);
    }
    expect(spans().filter((s) => /^GET \/(healthz|readyz|metrics)$/.test(s.name))).toEqual([]);
  });

  it('start a new trace without a traceparent, and the run takes its id', async () => {
    const res = await t.request('POST', '/api/v1/skills/sum/runs', {
      token: admin.token,
      body: { input: { text: 'rivers' } },
    });
    const server = named('POST /api/v1/skills/:slug/runs').at(-1) as ReadableSpan;
    expect(server.parentSpanContext).toBeUndefined();
    const run = await t.request('GET', `/api/v1/runs/${res.body.runId}`, { token: admin.token });
    expect(run.body.traceId).toBe(server.spanContext().traceId);
    await t.app.jobs.drain();
  });

  it('trace MCP tool calls inside their HTTP request', async () => {
    const client = await connectHttp(t.url, admin.token);
    try {
      await ok(client, 'runtime_list_runs', {});
    } finally {
      await client.close();
    }
    const [tool] = named('tool runtime_list_runs');
    const request = spans().find((s) => s.spanContext().spanId === parentOf(tool as ReadableSpan));
    expect(request?.name).toBe('POST /api/mcp');
    expect(tool?.attributes).toMatchObject({ 'mcp.tool.name': 'runtime_list_runs', 'mcp.transport': 'http' });
  });

  it("make each webhook attempt a client span whose POST carries that span's traceparent", async () => {
    const org = await webhookedOrg(t, 'hooks', `${receiver.url}/in`);
    receiver.respondWith(500);
    await org.created('first');
    const [attempt] = named('webhook attempt');
    expect(attempt?.attributes).toMatchObject({
      'r3.webhook.event': 'object.created',
      'r3.webhook.attempt': 1,
      'http.response.status_code': 500,
    });
    expect(attempt?.status.code).toBe(2);
    const [received] = await receiver.received.untilCount(1, 'the attempt');
    expect(received?.headers.traceparent).toBe(
      `00-${attempt?.spanContext().traceId}-${attempt?.spanContext().spanId}-01`,
    );
  });
});

describe('without tracing', () => {
  it("still gives a run created with a traceparent that trace's id", async () => {
    const t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
    try {
      expect(t.app.tracing.enabled).toBe(false);
      const admin = await t.token({ scopes: ALL_SCOPES });
      await createSkill(t, admin.token, { slug: 'sum' });
      const res = await t.request('POST', '/api/v1/skills/sum/runs', {
        token: admin.token,
        body: { input: {} },
        headers: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01` },
      });
      const run = await t.request('GET', `/api/v1/runs/${res.body.runId}`, { token: admin.token });
      expect(run.body.traceId).toBe(TRACE_ID);
      const invalid = await t.request('POST', '/api/v1/skills/sum/runs', {
        token: admin.token,
        body: { input: {} },
        headers: { traceparent: `00-${'0'.repeat(32)}-${PARENT_SPAN}-01` },
      });
      const fresh = await t.request('GET', `/api/v1/runs/${invalid.body.runId}`, { token: admin.token });
      expect(fresh.body.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(fresh.body.traceId).not.toBe('0'.repeat(32));
    } finally {
      await t.close();
    }
  });
});

describe("connectors' upstream requests", () => {
  it('carry the traceparent of the span they are made in, and none outside a span', async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = await createTracing(loadConfig({}).tracing, { exporter });
    const seen: Array<string | undefined> = [];
    const client = createHttpClient({
      name: 'Upstream',
      baseUrl: 'https://api.example.com',
      authorization: 'Bearer t',
      fetch: async (_url, init) => {
        seen.push((init?.headers as Record<string, string> | undefined)?.traceparent);
        return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    await tracing.inSpan('tool crm_action', {}, () => client.json({ path: '/x' }));
    await client.json({ path: '/y' });
    const [span] = exporter.getFinishedSpans();
    expect(seen).toEqual([`00-${span?.spanContext().traceId}-${span?.spanContext().spanId}-01`, undefined]);
    await tracing.shutdown();
  });
});
