/**
 * Authored content that could hold the event loop, through the real API: JSON Schema patterns run in
 * linear time (RE2) or are refused, schemas are capped in size and depth, and `{{` followed by a sea
 * of spaces in a workflow or prompt is stored and rendered without backtracking — while /healthz keeps
 * answering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  token = (await t.token({ scopes: ALL_SCOPES })).token;
});
afterAll(async () => {
  await t.close();
});

const issuesOf = (body: any) => JSON.stringify(body?.error?.details?.issues ?? []);

describe('JSON Schema patterns', () => {
  it('a catastrophic pattern is accepted and matched in linear time', async () => {
    const created = await t.request('POST', '/api/v1/skills', {
      token,
      body: {
        manifest: {
          slug: 'evil-pattern',
          name: 'Evil',
          inputSchema: {
            type: 'object',
            properties: { s: { type: 'string', pattern: '^(a+)+$' } },
            patternProperties: { '^(x+x+)+y$': { type: 'number' } },
          },
        },
        promptMd: 'Echo {{input.s}}',
      },
    });
    expect(created.status, created.text).toBe(201);
    // 50,000 a's then b: a backtracking engine would take longer than the universe has left.
    const run = await t.request('POST', '/api/v1/skills/evil-pattern/runs', {
      token,
      body: { input: { s: `${'a'.repeat(50_000)}b`, [`${'x'.repeat(30_000)}`]: 'no' } },
    });
    expect(run.status, run.text).toBe(400);
    expect(issuesOf(run.body)).toContain('body.input.s');
    const ok = await t.request('POST', '/api/v1/skills/evil-pattern/runs', {
      token,
      body: { input: { s: 'aaaa' } },
    });
    expect(ok.status, ok.text).toBe(202);
    expect((await t.request('GET', '/healthz')).status).toBe(200);
  });

  it('a pattern RE2 cannot run in linear time (backreference, lookahead) is refused with 400', async () => {
    for (const pattern of ['^(a)\\1$', '^(?=a)a$', '(?<!x)y']) {
      const res = await t.request('POST', '/api/v1/skills', {
        token,
        body: {
          manifest: {
            slug: 'backref',
            name: 'Backref',
            inputSchema: { type: 'object', properties: { s: { type: 'string', pattern } } },
          },
          promptMd: 'x',
        },
      });
      expect(res.status, `${pattern}: ${res.text}`).toBe(400);
      expect(res.text).toContain('linear time');
    }
  });

  it('object type metadata schemas run patterns on the same engine', async () => {
    const type = await t.request('POST', '/api/v1/objects/types', {
      token,
      body: {
        slug: 'ticket',
        name: 'Ticket',
        schema: { type: 'object', properties: { code: { type: 'string', pattern: '^(a|aa)+$' } } },
      },
    });
    expect(type.status, type.text).toBe(201);
    const res = await t.request('POST', '/api/v1/objects/ticket/instances', {
      token,
      body: { title: 't', content: 'b', metadata: { code: `${'a'.repeat(40_000)}!` } },
    });
    expect(res.status, res.text).toBe(400);
    expect(issuesOf(res.body)).toContain('body.metadata.code');
  });
});

describe('JSON Schema size and depth', () => {
  it('refuses a schema nested deeper than 32 levels or larger than 64 KiB, naming the field', async () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 20; i++) deep = { type: 'object', properties: { a: deep } };
    const tooDeep = await t.request('POST', '/api/v1/skills', {
      token,
      body: { manifest: { slug: 'deep-schema', name: 'Deep', inputSchema: deep }, promptMd: 'x' },
    });
    expect(tooDeep.status, tooDeep.text).toBe(400);
    expect(issuesOf(tooDeep.body)).toContain('body.manifest.inputSchema');
    expect(tooDeep.text).toContain('32 levels');
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 3_000; i++) properties[`field_${i}`] = { type: 'string', description: 'padding' };
    const tooBig = await t.request('POST', '/api/v1/skills', {
      token,
      body: {
        manifest: { slug: 'big-schema', name: 'Big', inputSchema: { type: 'object', properties } },
        promptMd: 'x',
      },
    });
    expect(tooBig.status, tooBig.text).toBe(400);
    expect(tooBig.text).toContain('characters of JSON');
    expect((await t.request('GET', '/api/v1/skills/deep-schema', { token })).status).toBe(404);
  });
});

describe('templates', () => {
  it('`{{` and 90 KB of spaces in a prompt and a workflow step are stored, checked and run without stalling', async () => {
    const sea = `{{${' '.repeat(90_000)}`;
    const skill = await t.request('POST', '/api/v1/skills', {
      token,
      body: { manifest: { slug: 'sea', name: 'Sea' }, promptMd: `Hello ${sea} {{input.x}}` },
    });
    expect(skill.status, skill.text).toBe(201);
    const workflow = await t.request('POST', '/api/v1/workflows', {
      token,
      body: {
        slug: 'sea-flow',
        name: 'Sea flow',
        steps: [
          {
            name: 'one',
            type: 'skill',
            skill: 'sea',
            input: { x: sea, y: `{{ input.x ${' '.repeat(50_000)}` },
          },
        ],
      },
    });
    expect(workflow.status, workflow.text).toBe(201);
    const run = await t.request('POST', '/api/v1/workflows/sea-flow/runs', { token, body: { input: {} } });
    expect(run.status, run.text).toBe(202);
    await t.app.jobs.drain();
    const done = await t.request('GET', `/api/v1/runs/${run.body.runId}`, { token });
    expect(done.body.status).toBe('completed');
    expect((await t.request('GET', '/healthz')).status).toBe(200);
  });
});
