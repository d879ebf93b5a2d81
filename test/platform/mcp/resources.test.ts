/**
 * MCP resources and prompts over streamable HTTP with the official SDK client (docs/mcp.md#resources,
 * #prompts): the capabilities initialize advertises; the authored resources, artifacts (text and
 * binary) and the run template; `resource_link` items in results that make artifacts; paging; and
 * the refusals — another org's resource or an unknown one (resource-not-found), a missing scope, a
 * cursor r3 never gave, an unknown or inactive prompt and a missing required argument (invalid params).
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, ReadResourceResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { serializeManifest } from '../../../src/features/workspace/files.js';
import { RESOURCE_NOT_FOUND } from '../../../src/platform/mcp/protocol-errors.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { call, connectHttp, ok, refusal } from '../../helpers/mcp.js';
import { createMission, createTeam } from '../../helpers/missions.js';
import { createSkill, createWorkflow } from '../../helpers/resources.js';
import { orgIdOf } from '../../helpers/runs.js';
import { createObjectType } from '../../helpers/webhooks.js';

let t: TestApp;
let admin: CreatedToken;
let foreign: CreatedToken;
let mcp: Client;
let other: Client;
const clients: Client[] = [];

/** The org's authored resources, in the order resources/list gives them. */
const AUTHORED = [
  'r3://skills/draft',
  'r3://skills/drafty',
  'r3://skills/loose',
  'r3://skills/sum',
  'r3://agents/writer',
  'r3://workflows/flow',
  'r3://missions/launch',
  'r3://object-types/ticket',
];

const SUMMARY_INPUT = {
  type: 'object',
  properties: {
    text: { type: 'string', description: 'What to summarize' },
    tone: { type: 'string', title: 'The tone' },
  },
  required: ['text'],
};

async function client(token: string): Promise<Client> {
  const c = await connectHttp(t.url, token);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  t = await startTestApp();
  admin = await t.token({ org: 'acme', scopes: ALL_SCOPES });
  foreign = await t.token({ org: 'other', scopes: ALL_SCOPES });
  await createSkill(
    t,
    admin.token,
    { slug: 'sum', name: 'Summarize', description: 'Sums up', inputSchema: SUMMARY_INPUT },
    'Summarize in a {{input.tone}} tone: {{input.text}}',
  );
  await createSkill(
    t,
    admin.token,
    { slug: 'loose', name: 'Loose' },
    'Tell {{input.who}} about {{input.what}}.',
  );
  await createSkill(t, admin.token, { slug: 'drafty', name: 'Drafty', status: 'draft' });
  await createWorkflow(t, admin.token, {
    slug: 'flow',
    steps: [{ name: 'first', type: 'skill', skill: 'sum', input: { text: '{{input.text}}' } }],
  });
  await createTeam(t, admin.token, ['writer']);
  await createMission(t, admin.token, 'launch', ['writer']);
  await createObjectType(t, admin.token, 'ticket');
  await createSkill(t, foreign.token, { slug: 'secret', name: 'Foreign secret' }, 'Foreign {{input.x}}');
  mcp = await client(admin.token);
  other = await client(foreign.token);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.close();
});

describe('initialize', () => {
  it('advertises resources and prompts beside tools', () => {
    const capabilities = mcp.getServerCapabilities();
    expect(capabilities?.resources).toEqual({ listChanged: false, subscribe: false });
    expect(capabilities?.prompts).toEqual({ listChanged: false });
    expect(capabilities?.tools).toEqual({ listChanged: false });
  });
});

describe('resources/list and resources/read of authored resources', () => {
  it('lists the org’s skills, agents, workflows, missions and object types (no other org’s)', async () => {
    const { resources, nextCursor } = await mcp.listResources();
    expect(nextCursor).toBeUndefined();
    const uris = resources.map((r) => r.uri);
    expect(uris).toEqual(AUTHORED);
    expect(resources.find((r) => r.uri === 'r3://skills/sum')).toEqual({
      uri: 'r3://skills/sum',
      name: 'sum',
      title: 'Summarize',
      description: 'Sums up',
      mimeType: 'application/yaml',
    });
    const theirs = await other.listResources();
    expect(theirs.resources.map((r) => r.uri)).toEqual(['r3://skills/secret']);
  });

  it('reads a prompt skill as its manifest (YAML) and its prompt template (Markdown)', async () => {
    const { contents } = await mcp.readResource({ uri: 'r3://skills/sum' });
    expect(contents).toHaveLength(2);
    expect(contents[0]).toMatchObject({ uri: 'r3://skills/sum', mimeType: 'application/yaml' });
    const yaml = (contents[0] as { text: string }).text;
    expect(yaml).toContain('slug: sum\n');
    expect(yaml).toContain('form: prompt\n');
    // The bytes of its workspace file (skills/sum/manifest.yaml).
    expect(yaml).toBe(
      serializeManifest('skill', {
        slug: 'sum',
        name: 'Summarize',
        description: 'Sums up',
        inputSchema: SUMMARY_INPUT,
      } as never),
    );
    expect(contents[1]).toEqual({
      uri: 'r3://skills/sum/prompt.md',
      mimeType: 'text/markdown',
      text: 'Summarize in a {{input.tone}} tone: {{input.text}}',
    });
    const prompt = await mcp.readResource({ uri: 'r3://skills/sum/prompt.md' });
    expect(prompt.contents).toEqual([contents[1]]);
  });

  it('reads an agent, a workflow, a mission and an object type as their manifests', async () => {
    for (const [uri, line] of [
      ['r3://agents/writer', 'systemPrompt: You are writer.\n'],
      ['r3://workflows/flow', 'slug: flow\n'],
      ['r3://missions/launch', 'goal: Launch note for {{input.product}}\n'],
      ['r3://object-types/ticket', 'slug: ticket\n'],
    ] as const) {
      const { contents } = await mcp.readResource({ uri });
      expect(contents).toHaveLength(1);
      expect(contents[0]?.uri).toBe(uri);
      expect(contents[0]?.mimeType).toBe('application/yaml');
      expect((contents[0] as { text: string }).text).toContain(line);
    }
  });

  it('answers resource-not-found for another org’s resource, an unknown one and a malformed URI', async () => {
    for (const uri of [
      'r3://skills/secret',
      'r3://skills/nope',
      'r3://skills/Not_A_Slug',
      'r3://unknown/x',
      'r3://skills/',
      'https://example.com/x',
      'r3://artifacts/abc',
      'r3://runs/0',
    ]) {
      const error = await refusal(mcp.readResource({ uri }));
      expect(error.code, uri).toBe(RESOURCE_NOT_FOUND);
      expect(error.data).toEqual({ uri });
    }
    // The other org reads its own.
    const { contents } = await other.readResource({ uri: 'r3://skills/secret' });
    expect((contents[1] as { text: string }).text).toBe('Foreign {{input.x}}');
  });

  it('refuses a request without a uri (invalid params)', async () => {
    const error = await refusal(
      mcp.request({ method: 'resources/read', params: {} as never }, ReadResourceResultSchema),
    );
    expect(error.code).toBe(ErrorCode.InvalidParams);
  });
});

describe('artifacts as resources', () => {
  it('links the artifact create_artifact made, and reads it back as text', async () => {
    const made = await call(mcp, 'create_artifact', {
      name: 'notes.md',
      mediaType: 'text/markdown',
      text: '# Notes ✓',
    });
    expect(made.isError).toBe(false);
    expect(made.links).toEqual([
      {
        type: 'resource_link',
        uri: `r3://artifacts/${made.body.artifactId}`,
        name: 'notes.md',
        mimeType: 'text/markdown',
        size: Buffer.byteLength('# Notes ✓'),
      },
    ]);
    const { contents } = await mcp.readResource({ uri: made.links[0]?.uri as string });
    expect(contents).toEqual([
      { uri: `r3://artifacts/${made.body.artifactId}`, mimeType: 'text/markdown', text: '# Notes ✓' },
    ]);
    const { resources } = await mcp.listResources();
    expect(resources.at(-1)).toEqual({
      uri: `r3://artifacts/${made.body.artifactId}`,
      name: 'notes.md',
      description: `Artifact ${made.body.artifactId}, made by token:${admin.id}.`,
      mimeType: 'text/markdown',
      size: Buffer.byteLength('# Notes ✓'),
    });
  });

  it('reads a binary artifact as a base64 blob with its media type; another org cannot', async () => {
    // Longer than one line of PostgreSQL's base64 (57 bytes): the blob has no line breaks.
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255, 254, ...randomBytes(300)]);
    const made = await ok(mcp, 'create_artifact', {
      name: 'p.png',
      mediaType: 'image/png',
      base64: bytes.toString('base64'),
    });
    const uri = `r3://artifacts/${made.artifactId}`;
    const { contents } = await mcp.readResource({ uri });
    expect(contents).toEqual([{ uri, mimeType: 'image/png', blob: bytes.toString('base64') }]);
    expect((await refusal(other.readResource({ uri }))).code).toBe(RESOURCE_NOT_FOUND);
    expect((await other.listResources()).resources.map((r) => r.uri)).not.toContain(uri);
  });

  it('pages a long list with a cursor, each resource once, in order', async () => {
    const orgId = await orgIdOf(t.app, 'acme');
    await t.app.db.sql.query(
      `insert into artifacts (org_id, name, media_type, bytes, sha256, content, created_by, created_at)
       select $1, 'bulk-' || n || '.txt', 'text/plain', 1, encode(sha256('x'::bytea), 'hex'), 'x'::bytea, 'test', now()
         from generate_series(1, 150) n`,
      [orgId],
    );
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await mcp.listResources(cursor ? { cursor } : {});
      expect(page.resources.length).toBeLessThanOrEqual(100);
      seen.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(2);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((uri) => uri.startsWith('r3://artifacts/'))).toHaveLength(152);
    expect(seen.slice(0, AUTHORED.length)).toEqual(AUTHORED);
  });

  it('refuses a cursor it never gave (invalid params)', async () => {
    for (const cursor of [
      'nonsense',
      Buffer.from('[99]').toString('base64url'),
      Buffer.from('{"a":1}').toString('base64url'),
    ]) {
      expect((await refusal(mcp.listResources({ cursor }))).code).toBe(ErrorCode.InvalidParams);
    }
  });
});

describe('the run template', () => {
  it('lists r3://runs/{id} and reads a run as GET /runs/:id answers it; another org’s is not found', async () => {
    const { resourceTemplates } = await mcp.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      {
        uriTemplate: 'r3://runs/{id}',
        name: 'run',
        title: 'A run',
        description: 'A skill or workflow run, as GET /api/v1/runs/:id answers it (JSON).',
        mimeType: 'application/json',
      },
    ]);
    const started = await t.request('POST', '/api/v1/skills/sum/runs', {
      token: admin.token,
      body: { input: { text: 'hello' } },
    });
    expect(started.status).toBe(202);
    const runId = started.body.runId as number;
    await expect
      .poll(async () => (await t.request('GET', `/api/v1/runs/${runId}`, { token: admin.token })).body.status)
      .toBe('completed');
    const { contents } = await mcp.readResource({ uri: `r3://runs/${runId}` });
    const rest = await t.request('GET', `/api/v1/runs/${runId}`, { token: admin.token });
    expect(contents).toHaveLength(1);
    expect(contents[0]?.mimeType).toBe('application/json');
    expect(JSON.parse((contents[0] as { text: string }).text)).toEqual(rest.body);
    expect((await refusal(other.readResource({ uri: `r3://runs/${runId}` }))).code).toBe(RESOURCE_NOT_FOUND);
  });
});

describe('scopes', () => {
  it('a read:skills token sees skills and agents only, and reading a workflow is refused', async () => {
    const narrow = await t.token({ org: 'acme', user: 'narrow', scopes: ['read:skills'] });
    const c = await client(narrow.token);
    const uris = (await c.listResources()).resources.map((r) => r.uri);
    expect(uris).toEqual(AUTHORED.slice(0, 5));
    expect((await c.listResourceTemplates()).resourceTemplates).toEqual([]);
    const error = await refusal(c.readResource({ uri: 'r3://workflows/flow' }));
    expect(error.code).toBe(ErrorCode.InvalidRequest);
    expect(error.data).toMatchObject({ code: 'FORBIDDEN' });
    expect((await c.readResource({ uri: 'r3://skills/sum' })).contents).toHaveLength(2);
    expect((await c.listPrompts()).prompts.map((p) => p.name)).toContain('sum');
  });

  it('a token without read scopes lists no resources and no prompts', async () => {
    const invoker = await t.token({ org: 'acme', user: 'invoker', scopes: ['run:invoke'] });
    const c = await client(invoker.token);
    expect((await c.listResources()).resources).toEqual([]);
    expect((await c.listPrompts()).prompts).toEqual([]);
    expect((await refusal(c.getPrompt({ name: 'sum', arguments: { text: 'x' } }))).code).toBe(
      ErrorCode.InvalidParams,
    );
  });
});

describe('prompts', () => {
  it('lists every active prompt skill with arguments from its input schema, else from its template', async () => {
    const { prompts } = await mcp.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['draft', 'loose', 'sum']);
    expect(prompts.find((p) => p.name === 'sum')).toEqual({
      name: 'sum',
      title: 'Summarize',
      description: 'Sums up',
      arguments: [
        { name: 'text', description: 'What to summarize', required: true },
        { name: 'tone', description: 'The tone', required: false },
      ],
    });
    expect(prompts.find((p) => p.name === 'loose')?.arguments).toEqual([
      { name: 'who', required: false },
      { name: 'what', required: false },
    ]);
    expect((await other.listPrompts()).prompts.map((p) => p.name)).toEqual(['secret']);
  });

  it('renders a prompt with the given arguments', async () => {
    const got = await mcp.getPrompt({ name: 'sum', arguments: { text: 'the minutes', tone: 'dry' } });
    expect(got).toEqual({
      description: 'Sums up',
      messages: [{ role: 'user', content: { type: 'text', text: 'Summarize in a dry tone: the minutes' } }],
    });
    const loose = await mcp.getPrompt({ name: 'loose', arguments: { who: 'Ada' } });
    expect(loose.messages[0]?.content).toEqual({ type: 'text', text: 'Tell Ada about .' });
  });

  it('refuses a missing required argument, an unknown, inactive or foreign prompt (invalid params)', async () => {
    const missing = await refusal(mcp.getPrompt({ name: 'sum', arguments: { tone: 'dry' } }));
    expect(missing.code).toBe(ErrorCode.InvalidParams);
    expect(missing.data).toEqual({ name: 'sum', missing: ['text'] });
    for (const name of ['nope', 'drafty', 'secret', 'Bad Name']) {
      const error = await refusal(mcp.getPrompt({ name, arguments: {} }));
      expect(error.code, name).toBe(ErrorCode.InvalidParams);
      expect(error.data).toEqual({ name });
    }
  });
});
