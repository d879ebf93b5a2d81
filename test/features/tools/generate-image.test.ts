/**
 * `generate_image` (docs/mcp.md "Built-in tools") over MCP with the official SDK client, against the fake
 * OpenAI-compatible server's images endpoint on a real socket: the request the official `openai` SDK
 * makes (model R3_IMAGE_MODEL, b64_json, the provider's key), the image stored as an artifact
 * attributed to the caller and served by REST, keyed calls answered once, upstream failures
 * TOOL_FAILED, unconfigured TOOL_UNAVAILABLE, bad arguments VALIDATION_FAILED.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, ONE_PIXEL_PNG, startFakeOpenAI } from '../../../fakes/openai-server.js';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { executeTool } from '../../../src/platform/tools/registry.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { call, connectHttp, fails, ok } from '../../helpers/mcp.js';

let openai: FakeOpenAI;
let t: TestApp;
let owner: CreatedToken;
let mcp: Client;

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1]);
const imagesRequests = () => openai.requests.filter((r) => r.path === '/v1/images/generations');
const artifactCount = async () =>
  (await t.app.db.sql.one<{ n: number }>('select count(*)::int as n from artifacts')).n;

beforeAll(async () => {
  openai = await startFakeOpenAI({ apiKey: 'sk-images' });
  t = await startTestApp({
    OPENAI_BASE_URL: openai.baseUrl,
    OPENAI_API_KEY: 'sk-images',
    R3_IMAGE_MODEL: 'gpt-image-1',
    R3_ARTIFACT_MAX_BYTES: '4096',
  });
  owner = await t.token({ org: 'acme', scopes: ['read:all', 'run:invoke'] });
  mcp = await connectHttp(t.url, owner.token);
});
afterAll(async () => {
  await mcp?.close();
  await t?.close();
  await openai?.close();
});

describe('generate_image', () => {
  it('asks the images API with R3_IMAGE_MODEL (a GPT image model: base64 without asking) and stores the image as an artifact', async () => {
    const answer = await call(mcp, 'generate_image', { prompt: 'A red fox in the snow', size: '1024x1024' });
    const body = answer.body;
    expect(answer.links).toEqual([
      {
        type: 'resource_link',
        uri: `r3://artifacts/${body.artifactId}`,
        name: `image-${body.artifactId}`,
        mimeType: 'image/png',
      },
    ]);
    expect(body).toEqual({
      artifactId: expect.any(Number),
      url: `${t.app.url}/api/v1/artifacts/${body.artifactId}/content`,
      mediaType: 'image/png',
    });
    const request = imagesRequests().at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.headers.authorization).toBe('Bearer sk-images');
    expect(request?.body).toEqual({
      model: 'gpt-image-1',
      prompt: 'A red fox in the snow',
      n: 1,
      size: '1024x1024',
    });
    const meta = await t.request('GET', `/api/v1/artifacts/${body.artifactId}`, { token: owner.token });
    expect(meta.body).toMatchObject({
      name: 'a-red-fox-in-the-snow.png',
      mediaType: 'image/png',
      bytes: ONE_PIXEL_PNG.byteLength,
      createdBy: `token:${owner.id}`,
      runId: null,
    });
    const res = await fetch(body.url, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await res.arrayBuffer())).toEqual(ONE_PIXEL_PNG);
  });

  it('names the media type by the bytes answered (JPEG), without a size when none is given', async () => {
    openai.enqueue({ body: { created: 1, data: [{ b64_json: JPEG.toString('base64') }] } });
    const body = await ok(mcp, 'generate_image', { prompt: '!!!' });
    expect(body.mediaType).toBe('image/jpeg');
    expect(imagesRequests().at(-1)?.body).not.toHaveProperty('size');
    const meta = await t.request('GET', `/api/v1/artifacts/${body.artifactId}`, { token: owner.token });
    expect(meta.body.name).toBe('image.jpg');
  });

  it('answers a keyed call (a run id + call id) once: a repeat returns the first image, asking nothing', async () => {
    const first = await ok(mcp, 'generate_image', { prompt: 'key probe' });
    const orgId = (
      await t.app.db.sql.one<{ org_id: number }>('select org_id from artifacts where id = $1', [
        first.artifactId,
      ])
    ).org_id;
    const tool = t.app.agentTools.get('generate_image');
    if (!tool) throw new Error('generate_image is not registered');
    expect(tool.idempotency).toBe('keyed');
    const call = {
      use: 'run' as const,
      orgId,
      actor: 'user:alice',
      agentSlug: null,
      apiTokenId: null,
      runId: null,
      missionRunId: null,
      callId: 'call_1',
      idempotencyKey: 'run:4242:call_1',
      requestId: null,
      signal: undefined,
    };
    const asked = imagesRequests().length;
    const once = (await executeTool(tool, { prompt: 'a lighthouse' }, call)) as { artifactId: number };
    const again = (await executeTool(tool, { prompt: 'a lighthouse' }, call)) as { artifactId: number };
    expect(again).toEqual(once);
    expect(imagesRequests().length).toBe(asked + 1);
    const row = await t.app.db.sql.one<{ created_by: string }>(
      'select created_by from artifacts where id = $1',
      [once.artifactId],
    );
    expect(row.created_by).toBe('user:alice');
  });

  it('answers TOOL_FAILED when the API refuses, fails, or answers no image; stores nothing', async () => {
    const before = await artifactCount();
    openai.enqueue({
      status: 400,
      body: {
        error: { message: 'Your request was rejected by the safety system.', type: 'invalid_request_error' },
      },
    });
    const refused = await fails(mcp, 'generate_image', { prompt: 'something refused' }, 'TOOL_FAILED');
    expect(refused.details).toEqual({ reason: 'upstream', status: 400 });
    expect(refused.message).toContain('rejected by the safety system');

    // 5xx is retried (twice) before it fails.
    const asked = imagesRequests().length;
    openai.enqueue({ status: 500, body: { error: { message: 'boom' } } });
    openai.enqueue({ status: 500, body: { error: { message: 'boom' } } });
    openai.enqueue({ status: 500, body: { error: { message: 'boom' } } });
    const down = await fails(mcp, 'generate_image', { prompt: 'server down' }, 'TOOL_FAILED');
    expect(down.details).toEqual({ reason: 'upstream', status: 500 });
    expect(imagesRequests().length).toBe(asked + 3);

    openai.enqueue({
      body: { created: 1, data: [{ b64_json: Buffer.from('<svg onload=alert(1)>').toString('base64') }] },
    });
    const notImage = await fails(mcp, 'generate_image', { prompt: 'not an image' }, 'TOOL_FAILED');
    expect(notImage.details).toEqual({ reason: 'bad_response' });
    openai.enqueue({ body: { created: 1, data: [{ url: 'https://images.example/x.png' }] } });
    const noData = await fails(mcp, 'generate_image', { prompt: 'url only' }, 'TOOL_FAILED');
    expect(noData.details).toEqual({ reason: 'bad_response' });

    const big = Buffer.concat([ONE_PIXEL_PNG, Buffer.alloc(5000)]);
    openai.enqueue({ body: { created: 1, data: [{ b64_json: big.toString('base64') }] } });
    const tooLarge = await fails(mcp, 'generate_image', { prompt: 'too large' }, 'TOOL_FAILED');
    expect(tooLarge.details).toEqual({
      reason: 'artifact_too_large',
      limitBytes: 4096,
      bytes: big.byteLength,
    });
    expect(await artifactCount()).toBe(before);
  });

  it('refuses bad arguments with VALIDATION_FAILED, asking nothing', async () => {
    const asked = imagesRequests().length;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'arguments.prompt'],
      [{ prompt: '  ' }, 'arguments.prompt'],
      [{ prompt: 'x'.repeat(4001) }, 'arguments.prompt'],
      [{ prompt: 'fox', size: '999x999' }, 'arguments.size'],
      [{ prompt: 'fox', n: 4 }, 'arguments'],
    ];
    for (const [args, field] of cases) {
      const error = await fails(mcp, 'generate_image', args, 'VALIDATION_FAILED');
      expect(error.details.issues[0].field, JSON.stringify(args)).toBe(field);
    }
    expect(imagesRequests().length).toBe(asked);
  });

  it('needs run:invoke', async () => {
    const reader = await connectHttp(t.url, (await t.token({ org: 'acme', scopes: ['read:all'] })).token);
    const error = await fails(reader, 'generate_image', { prompt: 'fox' }, 'FORBIDDEN');
    expect(error.details.requiredScope).toEqual(['run:invoke']);
    await reader.close();
  });
});

describe('generate_image unconfigured', () => {
  it('answers TOOL_UNAVAILABLE naming R3_IMAGE_MODEL', async () => {
    const bare = await startTestApp({ OPENAI_BASE_URL: openai.baseUrl });
    const client = await connectHttp(bare.url, (await bare.token({ org: 'acme' })).token);
    const asked = imagesRequests().length;
    const error = await fails(client, 'generate_image', { prompt: 'fox' }, 'TOOL_UNAVAILABLE');
    expect(error.details).toEqual({ setting: 'R3_IMAGE_MODEL' });
    expect(imagesRequests().length).toBe(asked);
    await client.close();
    await bare.close();
  });
});
