/**
 * MCP requests answered on the direct path (src/platform/mcp/http-routes.ts `directRequest`): one JSON-RPC
 * request with headers the SDK's transport accepts is handed to a reused protocol server ("lane")
 * without the transport, and `runtime_get_run` reads its run with the caller's authentication.
 * Concurrent callers must never see each other's answers; everything the direct path leaves to the
 * transport must get the transport's own answer.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { twoOrgsWithRuns } from '../../helpers/runs.js';

let t: TestApp;
let red: CreatedToken;
let blue: CreatedToken;
let redRun: number;
let blueRun: number;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  ({ red, blue, redRun, blueRun } = await twoOrgsWithRuns(t));
});
afterAll(() => t.close());
afterEach(() => vi.restoreAllMocks());

const HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

/** POSTs a JSON-RPC body to /api/mcp as `token`. */
async function post(token: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.url}/api/mcp`, {
    method: 'POST',
    headers: { ...HEADERS, authorization: `Bearer ${token}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const getRun = (runId: unknown, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'runtime_get_run', arguments: { runId } },
});

describe('the direct path', () => {
  it('answers runtime_get_run with exactly the run GET /runs/:id answers, and NOT_FOUND across orgs', async () => {
    const rest = await t.request('GET', `/api/v1/runs/${redRun}`, { token: red.token });
    const own = await post(red.token, getRun(redRun));
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ jsonrpc: '2.0', id: 1 });
    expect(own.body.result.isError).not.toBe(true);
    expect(own.body.result.structuredContent).toEqual(rest.body);
    expect(JSON.parse(own.body.result.content[0].text)).toEqual(rest.body);
    const other = await post(blue.token, getRun(redRun));
    expect(other.body.result).toMatchObject({ isError: true });
    expect(other.body.result.structuredContent).toBeUndefined();
    expect(JSON.parse(other.body.result.content[0].text)).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('keeps concurrent callers apart: same JSON-RPC ids, two orgs, every answer its own caller’s', async () => {
    // Two waves: the second is served by lanes the first left idle.
    for (let wave = 0; wave < 2; wave++) {
      const calls = Array.from({ length: 40 }, (_, i) => {
        const mine = i % 2 === 0 ? { token: red.token, run: redRun } : { token: blue.token, run: blueRun };
        const list = i % 4 < 2;
        const body = list
          ? {
              jsonrpc: '2.0',
              id: 7,
              method: 'tools/call',
              params: { name: 'runtime_list_runs', arguments: {} },
            }
          : getRun(mine.run, 7);
        return post(mine.token, body).then((answer) => ({ answer, mine, list }));
      });
      for (const { answer, mine, list } of await Promise.all(calls)) {
        expect(answer.body.id).toBe(7);
        const content = answer.body.result.structuredContent;
        if (list) expect(content.runs.map((r: { id: number }) => r.id)).toEqual([mine.run]);
        else expect(content.id).toBe(mine.run);
      }
    }
  });

  it('does not go through the transport for a plain request, and does for initialize', async () => {
    const handled = vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest');
    expect((await post(red.token, getRun(redRun))).body.result.structuredContent.id).toBe(redRun);
    expect(handled).not.toHaveBeenCalled();
    const init = await post(red.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      },
    });
    expect(init.body.result.serverInfo.name).toBe('r3');
    expect(handled).toHaveBeenCalledTimes(1);
  });
});

describe('what the direct path leaves to the transport', () => {
  it('gets the transport’s answers: protocol version, media types, invalid JSON-RPC, notifications', async () => {
    const version = await post(red.token, getRun(redRun), { 'mcp-protocol-version': '1999-01-01' });
    expect(version.status).toBe(400);
    expect(version.body.error.message).toContain('Unsupported protocol version');
    const accept = await post(red.token, getRun(redRun), { accept: 'application/json' });
    expect(accept.status).toBe(406);
    const media = await post(red.token, getRun(redRun), { 'content-type': 'text/plain' });
    expect(media.status).toBe(415);
    const extraKey = await post(red.token, { ...getRun(redRun), extra: true });
    expect(extraKey.status).toBe(400);
    expect(extraKey.body.error.code).toBe(-32700);
    const notification = await fetch(`${t.url}/api/mcp`, {
      method: 'POST',
      headers: { ...HEADERS, authorization: `Bearer ${red.token}` },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(notification.status).toBe(202);
  });

  it('answers a supported protocol version header on the direct path', async () => {
    const answer = await post(red.token, getRun(redRun), { 'mcp-protocol-version': LATEST_PROTOCOL_VERSION });
    expect(answer.body.result.structuredContent.id).toBe(redRun);
  });
});
