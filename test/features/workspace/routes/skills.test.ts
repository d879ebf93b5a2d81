/** `/api/v1/skills` through HTTP: list filters and paging, detail with promptMd, create, patch. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Callers, callers, fields, orgIdOf, skillBody } from '../../../helpers/api.js';
import { startTestApp, type TestApp } from '../../../helpers/app.js';

let t: TestApp;
let c: Callers;

beforeAll(async () => {
  t = await startTestApp();
  c = await callers(t, 'skills-org');
});
afterAll(() => t.close());

describe('POST /skills', () => {
  it('creates a prompt skill from {manifest, promptMd}: 201 with the detail and defaults filled', async () => {
    const res = await t.request('POST', '/api/v1/skills', {
      token: c.writer,
      body: skillBody('summarize', {
        category: 'writing',
        requiresApproval: true,
        inputSchema: { type: 'object', properties: { text: { type: 'string' }, lang: { type: 'string' } } },
      }),
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      slug: 'summarize',
      name: 'Skill summarize',
      description: '',
      category: 'writing',
      status: 'active',
      form: 'prompt',
      requiresApproval: true,
      promptMd: 'Do summarize with {{input.text}}.',
    });
    // A JSON Schema keeps its key order (a form's field order).
    expect(Object.keys(res.body.inputSchema.properties)).toEqual(['text', 'lang']);
  });

  it('409 on an existing slug', async () => {
    const res = await t.request('POST', '/api/v1/skills', { token: c.writer, body: skillBody('summarize') });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('CONFLICT');
  });

  it.each([
    ['no promptMd', { manifest: { slug: 'x', name: 'x' } }, ['body.promptMd']],
    ['bad status', skillBody('x', { status: 'live' }), ['body.manifest.status']],
    ['not a prompt form', skillBody('x', { form: 'code' }), ['body.manifest.form']],
    ['unknown manifest field', skillBody('x', { colour: 'red' }), ['body.manifest']],
    [
      'input schema that is not JSON Schema',
      skillBody('x', { inputSchema: { type: 'object', requierd: ['a'] } }),
      ['body.manifest.inputSchema'],
    ],
    [
      'input schema that is not an object',
      skillBody('x', { inputSchema: { type: 'string' } }),
      ['body.manifest.inputSchema.type'],
    ],
    [
      'model temperature out of range',
      skillBody('x', { model: { provider: 'echo', temperature: 5 } }),
      ['body.manifest.model.temperature'],
    ],
  ])('400 VALIDATION_FAILED: %s', async (_name, body, expected) => {
    const res = await t.request('POST', '/api/v1/skills', { token: c.writer, body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(fields(res.body)).toEqual(expected);
    expect((await t.request('GET', '/api/v1/skills/x', { token: c.reader })).status).toBe(404);
  });

  it('403 without write:resources', async () => {
    for (const token of [c.reader, c.skillsReader, c.invoker]) {
      expect((await t.request('POST', '/api/v1/skills', { token, body: skillBody('y') })).status).toBe(403);
    }
  });
});

describe('GET /skills', () => {
  beforeAll(async () => {
    await t.request('POST', '/api/v1/skills', {
      token: c.writer,
      body: skillBody('draft-one', { status: 'draft' }),
    });
    await t.request('POST', '/api/v1/skills', {
      token: c.writer,
      body: skillBody('draft-two', { status: 'draft', category: 'writing' }),
    });
    await t.request('POST', '/api/v1/skills', {
      token: c.writer,
      body: skillBody('old', { status: 'archived' }),
    });
  });

  it('filters by status and category, pages with a cursor', async () => {
    const drafts = await t.request('GET', '/api/v1/skills?status=draft', { token: c.skillsReader });
    expect(drafts.body.skills.map((s: { slug: string }) => s.slug)).toEqual(['draft-one', 'draft-two']);
    expect(drafts.body.skills[0].promptMd).toBeUndefined();
    const writing = await t.request('GET', '/api/v1/skills?category=writing', { token: c.reader });
    expect(writing.body.skills.map((s: { slug: string }) => s.slug)).toEqual(['draft-two', 'summarize']);
    const both = await t.request('GET', '/api/v1/skills?status=draft&category=writing', { token: c.reader });
    expect(both.body.skills.map((s: { slug: string }) => s.slug)).toEqual(['draft-two']);

    const first = await t.request('GET', '/api/v1/skills?limit=3', { token: c.reader });
    expect(first.body.skills.map((s: { slug: string }) => s.slug)).toEqual(['draft-one', 'draft-two', 'old']);
    const second = await t.request('GET', `/api/v1/skills?limit=3&cursor=${first.body.nextCursor}`, {
      token: c.reader,
    });
    expect(second.body).toMatchObject({ nextCursor: null });
    expect(second.body.skills.map((s: { slug: string }) => s.slug)).toEqual(['summarize']);
  });

  it('400 on an unknown status value', async () => {
    const res = await t.request('GET', '/api/v1/skills?status=live', { token: c.reader });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(['query.status']);
  });

  it('detail has promptMd; 404 unknown and foreign; 403 without a read scope', async () => {
    const res = await t.request('GET', '/api/v1/skills/summarize', { token: c.skillsReader });
    expect(res.status).toBe(200);
    expect(res.body.promptMd).toBe('Do summarize with {{input.text}}.');
    expect((await t.request('GET', '/api/v1/skills/ghost', { token: c.reader })).status).toBe(404);
    expect((await t.request('GET', '/api/v1/skills/summarize', { token: c.stranger })).status).toBe(404);
    expect((await t.request('GET', '/api/v1/skills', { token: c.stranger })).body.skills).toEqual([]);
    expect((await t.request('GET', '/api/v1/skills/summarize', { token: c.invoker })).status).toBe(403);
  });
});

describe('PATCH /skills/:slug', () => {
  it('updates manifest fields and the prompt; a version per write, none when nothing changes', async () => {
    const orgId = await orgIdOf(t, 'skills-org');
    const before = (await t.app.workspace.history(orgId)).length;
    const res = await t.request('PATCH', '/api/v1/skills/summarize', {
      token: c.writer,
      body: {
        manifest: { description: 'Sums up', requiresApproval: false },
        promptMd: 'New: {{input.text}}',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      description: 'Sums up',
      requiresApproval: false,
      promptMd: 'New: {{input.text}}',
      category: 'writing',
    });
    const prompt = await t.request('PATCH', '/api/v1/skills/summarize', {
      token: c.writer,
      body: { promptMd: 'Only the prompt' },
    });
    expect(prompt.body.promptMd).toBe('Only the prompt');
    expect(prompt.body.description).toBe('Sums up');
    const same = await t.request('PATCH', '/api/v1/skills/summarize', {
      token: c.writer,
      body: { promptMd: 'Only the prompt' },
    });
    expect(same.status).toBe(200);
    expect((await t.app.workspace.history(orgId)).length).toBe(before + 2);
  });

  it('null removes an optional field', async () => {
    const res = await t.request('PATCH', '/api/v1/skills/summarize', {
      token: c.writer,
      body: { manifest: { inputSchema: null } },
    });
    expect(res.status).toBe(200);
    expect(res.body.inputSchema).toBeUndefined();
  });

  it('400 on bad fields, 404 unknown and foreign, 403 without the scope', async () => {
    const bad = await t.request('PATCH', '/api/v1/skills/summarize', {
      token: c.writer,
      body: { manifest: { status: 'live' } },
    });
    expect(fields(bad.body)).toEqual(['body.manifest.status']);
    const extra = await t.request('PATCH', '/api/v1/skills/summarize', {
      token: c.writer,
      body: { prompt: 'x' },
    });
    expect(extra.status).toBe(400);
    expect(
      (await t.request('PATCH', '/api/v1/skills/ghost', { token: c.writer, body: { promptMd: 'x' } })).status,
    ).toBe(404);
    expect(
      (await t.request('PATCH', '/api/v1/skills/summarize', { token: c.stranger, body: { promptMd: 'x' } }))
        .status,
    ).toBe(404);
    expect(
      (
        await t.request('PATCH', '/api/v1/skills/summarize', {
          token: c.skillsReader,
          body: { promptMd: 'x' },
        })
      ).status,
    ).toBe(403);
  });
});
