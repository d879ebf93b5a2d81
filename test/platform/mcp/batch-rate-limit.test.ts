/**
 * An MCP batch pays for each of its calls: one POST of 10 `tools/call` by a token whose bucket holds
 * 6 units runs 6 (the request's own unit and 5 more) and refuses the other 4 with RATE_LIMITED tool
 * errors — no more runs are created than the bucket paid for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { createSkill } from '../../helpers/resources.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({
    R3_RATE_LIMIT_PER_MIN: '1',
    R3_RATE_LIMIT_BURST: '6',
  });
  const admin = await t.token({ scopes: ALL_SCOPES });
  await createSkill(t, admin.token, { slug: 'plain' });
});
afterAll(async () => {
  await t.close();
});

const runsOf = async (tokenId: string) =>
  (
    await t.app.db.sql.one<{ n: number }>(`select count(*)::int as n from runs where api_token_id = $1`, [
      tokenId,
    ])
  ).n;

describe('an MCP batch and the rate limit', () => {
  it('charges every call: 6 of 10 run, 4 are refused with RATE_LIMITED, 6 runs exist', async () => {
    const caller = await t.token({ scopes: ALL_SCOPES });
    const batch = Array.from({ length: 10 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: { name: 'runtime_run_skill', arguments: { slug: 'plain', input: { text: `n${i}` } } },
    }));
    const res = await t.request('POST', '/api/mcp', {
      token: caller.token,
      headers: { accept: 'application/json, text/event-stream' },
      body: batch,
    });
    expect(res.status, res.text).toBe(200);
    const outcomes = (
      res.body as Array<{ id: number; result: { isError?: boolean; content: Array<{ text: string }> } }>
    )
      .sort((a, b) => a.id - b.id)
      .map((m) => (m.result.isError ? JSON.parse(m.result.content[0]?.text ?? '{}').error.code : 'ok'));
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(6);
    expect(outcomes.filter((o) => o === 'RATE_LIMITED')).toHaveLength(4);
    expect(await runsOf(caller.id)).toBe(6);
    // The bucket is empty: the next request is refused at the door.
    const next = await t.request('GET', '/api/v1/skills', { token: caller.token });
    expect(next.status).toBe(429);
  });

  it("reports the bucket after the batch's calls in X-RateLimit-Remaining, not before them", async () => {
    const caller = await t.token({ scopes: ALL_SCOPES });
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'workspace_list' },
    });
    // Four calls of a bucket of 6: the request's own unit and three more; 2 are left.
    const batch = await t.request('POST', '/api/mcp', {
      token: caller.token,
      headers: { accept: 'application/json, text/event-stream' },
      body: [call(1), call(2), call(3), call(4)],
    });
    expect(batch.status, batch.text).toBe(200);
    expect(batch.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(batch.headers.get('ratelimit')).toMatch(/\br=2\b/);
    // The next request reads what the batch said (one less: its own unit).
    const next = await t.request('GET', '/api/v1/skills', { token: caller.token });
    expect(next.headers.get('x-ratelimit-remaining')).toBe('1');
  });

  it('a single call per request costs what any request costs (one unit)', async () => {
    const caller = await t.token({ scopes: ALL_SCOPES });
    for (let i = 0; i < 6; i++) {
      const res = await t.request('POST', '/api/mcp', {
        token: caller.token,
        headers: { accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'workspace_list' } },
      });
      expect(res.status).toBe(200);
      expect(res.body.result.isError).toBeUndefined();
    }
    const seventh = await t.request('POST', '/api/mcp', {
      token: caller.token,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'workspace_list' } },
    });
    expect(seventh.status).toBe(429);
  });
});
