/** `/api/v1/workflows` through HTTP: list, detail with steps and inputSchema, create, patch. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Callers, callers, fields, skillBody } from '../../../helpers/api.js';
import { startTestApp, type TestApp } from '../../../helpers/app.js';

let t: TestApp;
let c: Callers;

beforeAll(async () => {
  t = await startTestApp();
  c = await callers(t, 'wf-org');
  await t.request('POST', '/api/v1/skills', { token: c.writer, body: skillBody('summarize') });
  await t.request('POST', '/api/v1/objects/types', { token: c.writer, body: { slug: 'deal', name: 'Deal' } });
});
afterAll(() => t.close());

const workflow = (slug: string, extra: Record<string, unknown> = {}) => ({
  slug,
  name: `Workflow ${slug}`,
  inputSchema: { type: 'object', properties: { notes: { type: 'string' } }, additionalProperties: false },
  steps: [
    { name: 'summary', type: 'skill', skill: 'summarize', input: { text: '{{input.notes}}' } },
    { name: 'check', type: 'approve', title: 'Check it' },
  ],
  ...extra,
});

describe('POST /workflows', () => {
  it('creates: 201 with the full manifest', async () => {
    const res = await t.request('POST', '/api/v1/workflows', {
      token: c.writer,
      body: workflow('follow-up', { trigger: { type: 'object.created', objectType: 'deal' } }),
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      slug: 'follow-up',
      trigger: { type: 'object.created', objectType: 'deal' },
      inputSchema: { type: 'object', properties: { notes: { type: 'string' } }, additionalProperties: false },
      steps: [
        { name: 'summary', type: 'skill', skill: 'summarize', input: { text: '{{input.notes}}' } },
        { name: 'check', type: 'approve', title: 'Check it' },
      ],
    });
  });

  it('409 on an existing slug; 403 without write:resources', async () => {
    expect(
      (await t.request('POST', '/api/v1/workflows', { token: c.writer, body: workflow('follow-up') })).status,
    ).toBe(409);
    expect(
      (await t.request('POST', '/api/v1/workflows', { token: c.reader, body: workflow('w2') })).status,
    ).toBe(403);
  });

  it.each([
    ['no steps', workflow('x', { steps: [] }), ['body.steps']],
    ['unknown step type', workflow('x', { steps: [{ name: 'a', type: 'code' }] }), ['body.steps.0.type']],
    [
      'unknown skill',
      workflow('x', { steps: [{ name: 'a', type: 'skill', skill: 'ghost' }] }),
      ['body.steps.0.skill'],
    ],
    [
      'template naming a later step',
      workflow('x', {
        steps: [
          { name: 'a', type: 'skill', skill: 'summarize', input: { text: '{{steps.b.output.text}}' } },
          { name: 'b', type: 'skill', skill: 'summarize' },
        ],
      }),
      ['body.steps.0.input.text'],
    ],
    ['bad cron', workflow('x', { trigger: { type: 'schedule', cron: '61 * * * *' } }), ['body.trigger.cron']],
    [
      'trigger on an unknown type',
      workflow('x', { trigger: { type: 'object.created', objectType: 'ghost' } }),
      ['body.trigger.objectType'],
    ],
    [
      'input schema not compiling',
      workflow('x', { inputSchema: { type: 'object', properties: { a: { type: 'strin' } } } }),
      ['body.inputSchema.properties.a.type'],
    ],
    [
      'a schedule whose input schema refuses {} (its runs have no input)',
      workflow('x', {
        trigger: { type: 'schedule', cron: '0 9 * * *' },
        inputSchema: { type: 'object', required: ['notes'] },
      }),
      ['body.inputSchema'],
    ],
  ])('400 VALIDATION_FAILED: %s', async (_name, body, expected) => {
    const res = await t.request('POST', '/api/v1/workflows', { token: c.writer, body });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(expected);
  });
});

describe('GET /workflows', () => {
  it('lists summaries; detail has steps and inputSchema; read:skills is not enough', async () => {
    const list = await t.request('GET', '/api/v1/workflows', { token: c.reader });
    expect(list.body).toEqual({
      workflows: [
        expect.objectContaining({
          slug: 'follow-up',
          trigger: { type: 'object.created', objectType: 'deal' },
        }),
      ],
      nextCursor: null,
    });
    expect(list.body.workflows[0].steps).toBeUndefined();
    const detail = await t.request('GET', '/api/v1/workflows/follow-up', { token: c.reader });
    expect(detail.body.steps).toHaveLength(2);
    expect((await t.request('GET', '/api/v1/workflows', { token: c.skillsReader })).status).toBe(403);
    expect((await t.request('GET', '/api/v1/workflows/follow-up', { token: c.skillsReader })).status).toBe(
      403,
    );
  });

  it('404 unknown and cross-tenant', async () => {
    expect((await t.request('GET', '/api/v1/workflows/ghost', { token: c.reader })).status).toBe(404);
    expect((await t.request('GET', '/api/v1/workflows/follow-up', { token: c.stranger })).status).toBe(404);
  });
});

describe('PATCH /workflows/:slug', () => {
  it('updates trigger, steps or input schema', async () => {
    const res = await t.request('PATCH', '/api/v1/workflows/follow-up', {
      token: c.writer,
      body: {
        trigger: { type: 'schedule', cron: '0 9 * * MON' },
        steps: [{ name: 'only', type: 'approve' }],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.trigger).toEqual({ type: 'schedule', cron: '0 9 * * MON' });
    expect(res.body.steps).toEqual([{ name: 'only', type: 'approve' }]);
    expect(res.body.inputSchema.additionalProperties).toBe(false);
  });

  it('400, 404, 403', async () => {
    const bad = await t.request('PATCH', '/api/v1/workflows/follow-up', {
      token: c.writer,
      body: { steps: 'none' },
    });
    expect(fields(bad.body)).toEqual(['body.steps']);
    expect(
      (await t.request('PATCH', '/api/v1/workflows/ghost', { token: c.writer, body: { name: 'x' } })).status,
    ).toBe(404);
    expect(
      (await t.request('PATCH', '/api/v1/workflows/follow-up', { token: c.stranger, body: { name: 'x' } }))
        .status,
    ).toBe(404);
    expect(
      (await t.request('PATCH', '/api/v1/workflows/follow-up', { token: c.invoker, body: { name: 'x' } }))
        .status,
    ).toBe(403);
  });
});
