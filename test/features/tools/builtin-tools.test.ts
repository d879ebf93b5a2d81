/**
 * The built-in tools over MCP with the official SDK client (docs/mcp.md "Built-in tools"): `create_artifact` stores an
 * artifact under the caller's principal (attributed `token:<id>`, readable through REST, capped) and
 * `run_code` runs JavaScript in the QuickJS sandbox, where the escapes people try — globalThis,
 * process, require, import(), an endless loop, a 1 GB string, endless output — find nothing of the
 * host or end in the §10 error, and the process keeps serving.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { connectHttp, fails, ok } from '../../helpers/mcp.js';
import { waitFor } from '../../helpers/wait.js';

let t: TestApp;
let owner: CreatedToken;
let mcp: Client;

beforeAll(async () => {
  t = await startTestApp({ R3_ARTIFACT_MAX_BYTES: '2048' });
  owner = await t.token({ org: 'acme', scopes: ['read:all', 'run:invoke'] });
  mcp = await connectHttp(t.url, owner.token);
});
afterAll(async () => {
  await mcp?.close();
  await t.close();
});

describe('create_artifact', () => {
  it('stores text as an artifact attributed to the token, served by REST', async () => {
    const body = await ok(mcp, 'create_artifact', {
      name: 'notes.md',
      mediaType: 'text/markdown',
      text: '# Hi ✓',
    });
    const bytes = Buffer.from('# Hi ✓');
    expect(body).toEqual({
      artifactId: expect.any(Number),
      url: `${t.app.url}/api/v1/artifacts/${body.artifactId}/content`,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      bytes: bytes.byteLength,
    });
    const meta = await t.request('GET', `/api/v1/artifacts/${body.artifactId}`, { token: owner.token });
    expect(meta.body).toMatchObject({
      createdBy: `token:${owner.id}`,
      runId: null,
      mediaType: 'text/markdown',
    });
    const content = await t.request('GET', `/api/v1/artifacts/${body.artifactId}/content`, {
      token: owner.token,
    });
    expect(content.text).toBe('# Hi ✓');
    const audit = await t.app.db.sql.one<{ actor: string; api_token_id: string }>(
      `select actor, api_token_id from audit_log where action = 'artifact.create' and target_id = $1`,
      [String(body.artifactId)],
    );
    expect(audit).toEqual({ actor: `token:${owner.id}`, api_token_id: owner.id });
  });

  it('stores base64 bytes', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    const body = await ok(mcp, 'create_artifact', {
      name: 'p.png',
      mediaType: 'image/png',
      base64: png.toString('base64'),
    });
    expect(body.bytes).toBe(8);
    const res = await fetch(body.url, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(Buffer.from(await res.arrayBuffer())).toEqual(png);
    expect(res.headers.get('content-disposition')).toMatch(/^inline;/);
  });

  it('refuses bad arguments and content over the cap with VALIDATION_FAILED, storing nothing', async () => {
    const count = async () =>
      (await t.app.db.sql.one<{ n: number }>('select count(*)::int as n from artifacts')).n;
    const before = await count();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'a.txt', mediaType: 'text/plain' }, 'arguments.text'],
      [{ name: 'a.txt', mediaType: 'text/plain', text: 'x', base64: 'eA==' }, 'arguments.text'],
      [{ name: 'a.txt', mediaType: 'text plain', text: 'x' }, 'arguments.mediaType'],
      [{ name: 'a/b.txt', mediaType: 'text/plain', text: 'x' }, 'arguments.name'],
      [{ name: 'a.bin', mediaType: 'application/octet-stream', base64: 'not base64!' }, 'arguments.base64'],
      [{ name: 'a.txt', mediaType: 'text/plain', text: 'x', extra: 1 }, 'arguments'],
      [{ name: 'big.txt', mediaType: 'text/plain', text: 'x'.repeat(2049) }, 'arguments.text'],
      [
        {
          name: 'big.bin',
          mediaType: 'application/octet-stream',
          base64: Buffer.alloc(2049).toString('base64'),
        },
        'arguments.base64',
      ],
    ];
    for (const [args, field] of cases) {
      const error = await fails(mcp, 'create_artifact', args, 'VALIDATION_FAILED');
      expect(error.details.issues[0].field, JSON.stringify(error)).toBe(field);
    }
    const big = await fails(
      mcp,
      'create_artifact',
      { name: 'b', mediaType: 'text/plain', text: 'é'.repeat(1025) },
      'VALIDATION_FAILED',
    );
    expect(big.details).toMatchObject({ limitBytes: 2048, bytes: 2050 });
    expect(await count()).toBe(before);
  });

  it('needs run:invoke', async () => {
    const reader = await connectHttp(t.url, (await t.token({ org: 'acme', scopes: ['read:all'] })).token);
    const error = await fails(
      reader,
      'create_artifact',
      { name: 'a', mediaType: 'text/plain', text: 'x' },
      'FORBIDDEN',
    );
    expect(error.details.requiredScope).toEqual(['run:invoke']);
    await fails(reader, 'run_code', { language: 'javascript', code: '1' }, 'FORBIDDEN');
    await reader.close();
  });
});

describe('run_code', () => {
  const run = (code: string, input?: unknown) =>
    ok(mcp, 'run_code', { language: 'javascript', code, ...(input === undefined ? {} : { input }) });

  it('answers the completion value, what console printed, and the input it was given', async () => {
    expect(
      await run('console.log("sum", input.a + input.b); ({ product: input.a * input.b })', { a: 6, b: 7 }),
    ).toEqual({
      result: { product: 42 },
      stdout: 'sum 13\n',
      error: null,
    });
    expect(await run('(async () => { await null; return [1, 2].map((x) => x * 2) })()')).toEqual({
      result: [2, 4],
      stdout: '',
      error: null,
    });
    expect(await run('let x = 1')).toEqual({ result: null, stdout: '', error: null });
  });

  it('reports a script error in `error`', async () => {
    expect(await run('console.log("before"); throw new TypeError("boom")')).toEqual({
      result: null,
      stdout: 'before\n',
      error: 'TypeError: boom',
    });
    expect((await run('function f() { return f() } f()')).error).toMatch(/stack overflow|RangeError/i);
  });

  it('has nothing of the host: globalThis, process, require, import(), fetch, timers', async () => {
    const globals = (await run('Object.getOwnPropertyNames(globalThis)')).result as string[];
    for (const name of [
      'process',
      'require',
      'module',
      'Buffer',
      'fetch',
      'setTimeout',
      'WebAssembly',
      'std',
      'os',
    ]) {
      expect(globals).not.toContain(name);
    }
    expect(globals).toEqual(expect.arrayContaining(['console', 'input', 'JSON', 'Math']));
    expect((await run('process.exit(1)')).error).toBe("ReferenceError: 'process' is not defined");
    expect((await run('require("fs").readFileSync("/etc/passwd", "utf8")')).error).toBe(
      "ReferenceError: 'require' is not defined",
    );
    const imported = await run('import("fs")');
    expect(imported.result).toBeNull();
    expect(imported.error).toMatch(/could not load module|not supported|SyntaxError/i);
    expect((await run('globalThis.constructor.constructor("return this")().process')).result).toBeNull();
    expect((await run('typeof fetch + typeof setTimeout + typeof XMLHttpRequest')).result).toBe(
      'undefinedundefinedundefined',
    );
    // A script cannot change the input another part of it, or the next script, sees.
    expect((await run('input.a = 5; input.a', { a: 1 })).result).toBe(1);
    expect((await run('globalThis.leak = 1; 0')).result).toBe(0);
    expect((await run('typeof leak')).result).toBe('undefined');
  });

  it('stops an endless loop with TOOL_TIMEOUT, and the server keeps serving meanwhile', async () => {
    const started = Date.now();
    const looping = fails(
      mcp,
      'run_code',
      { language: 'javascript', code: 'while (true) {}' },
      'TOOL_TIMEOUT',
    );
    // The loop runs in a worker thread: HTTP answers while it spins.
    const health = await t.request('GET', '/healthz');
    expect(health.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2_000);
    const error = await looping;
    expect(error.details).toEqual({ limit: 'time', limitMs: 5000 });
    expect(Date.now() - started).toBeLessThan(8_000);
    const caught = await fails(
      mcp,
      'run_code',
      { language: 'javascript', code: 'for (;;) { try { while (true) {} } catch (e) {} }' },
      'TOOL_TIMEOUT',
    );
    expect(caught.details.limit).toBe('time');
  });

  it('stops a thrown or rejected value whose reading never ends with TOOL_TIMEOUT, not a success', async () => {
    const looping = 'new Proxy({}, { get() { while (true) {} } })';
    for (const code of [
      `throw ${looping}`,
      `Promise.reject(${looping})`,
      'throw { get message() { while (true) {} } }',
    ]) {
      const error = await fails(mcp, 'run_code', { language: 'javascript', code }, 'TOOL_TIMEOUT');
      expect(error.details, code).toEqual({ limit: 'time', limitMs: 5000 });
    }
  });

  it('stops a 1 GB string and unbounded allocation with TOOL_FAILED (memory)', async () => {
    for (const code of [
      '"x".repeat(1024 * 1024 * 1024 - 1)',
      // Buffers of doubling size kept alive: the 64 MiB limit is reached in seven steps. (Many equal
      // steps up to the limit take QuickJS seconds on their last allocations, past the 5 s limit on
      // a slow machine: the time limit still stops such a script, but reported as TOOL_TIMEOUT.)
      'const a = []; for (let n = 1 << 20; ; n *= 2) a.push(new ArrayBuffer(n))',
      // Many allocations each far under the limit, kept alive together (1 GB asked for): typed
      // arrays, strings, arrays.
      'let a = []; for (let i = 0; i < 1000; i++) a.push(new Uint8Array(1e6)); a.length',
      'let a = []; for (let i = 0; i < 1000; i++) a.push("x".repeat(4e6) + i); a.length',
      'let a = []; for (let i = 0; i < 1000; i++) a.push(new Array(1e6).fill(i)); a.length',
    ]) {
      const error = await fails(mcp, 'run_code', { language: 'javascript', code }, 'TOOL_FAILED');
      expect(error.details).toEqual({ limit: 'memory', limitBytes: 64 * 1024 * 1024 });
    }
    // A string longer than QuickJS can hold at all is the script's own RangeError.
    expect((await run('"x".repeat(2 ** 30)')).error).toMatch(/RangeError/);
  });

  it("shares the sandbox fairly: an org flooding it with endless loops does not hold up another org's call", async () => {
    const other = await connectHttp(
      t.url,
      (await t.token({ org: 'umbrella', scopes: ['run:invoke'] })).token,
    );
    let floodSettled = false;
    const flood = Array.from({ length: 4 }, () =>
      fails(mcp, 'run_code', { language: 'javascript', code: 'while (true) {}' }, 'TOOL_TIMEOUT'),
    );
    void Promise.all(flood).then(() => {
      floodSettled = true;
    });
    // Every loop has reached the sandbox: running, or waiting for a worker.
    const { sandbox } = t.app;
    await waitFor(() => sandbox.workers.busy + sandbox.waiting === 4, 'the flood in the sandbox');
    for (let n = 0; n < 3; n++) {
      expect(await ok(other, 'run_code', { language: 'javascript', code: `${n} + 1` })).toMatchObject({
        result: n + 1,
      });
    }
    // Answered while the flood's first loop still ran (each runs 5 s, one at a time for its org).
    expect(floodSettled).toBe(false);
    await Promise.all(flood);
    await other.close();
  });

  it('stops output past 1 MiB with TOOL_FAILED (output), even when the script catches the error', async () => {
    // Lines of 4 KiB: the output limit is reached in a few hundred calls, long before the time
    // limit, however slow the machine (a line of four bytes took 200,000 calls, over 5 s in a busy CI).
    for (const code of [
      'const line = "spam".repeat(1024); for (;;) console.log(line)',
      'const line = "spam".repeat(1024); for (;;) { try { console.log(line) } catch {} }',
      '"z".repeat(1024 * 1024 + 1)',
    ]) {
      const error = await fails(mcp, 'run_code', { language: 'javascript', code }, 'TOOL_FAILED');
      expect(error.details).toEqual({ limit: 'output', limitBytes: 1024 * 1024 });
    }
  });

  it('refuses another language or missing code with VALIDATION_FAILED', async () => {
    await fails(mcp, 'run_code', { language: 'python', code: 'print(1)' }, 'VALIDATION_FAILED');
    await fails(mcp, 'run_code', { language: 'javascript' }, 'VALIDATION_FAILED');
  });

  it('keeps working after every limit: a fresh sandbox per script', async () => {
    expect(await run('"still " + "here"')).toEqual({ result: 'still here', stdout: '', error: null });
  });
});

describe('the agent-tool registry', () => {
  it('lists every agent tool in docs/mcp.md, and every one usable over MCP is an MCP tool', async () => {
    const docs = readFileSync(new URL('../../../docs/mcp.md', import.meta.url), 'utf8');
    const listed = (await mcp.listTools()).tools.map((tool) => tool.name);
    expect(t.app.agentTools.all.length).toBeGreaterThanOrEqual(2);
    for (const tool of t.app.agentTools.all) {
      expect(docs, tool.name).toContain(`| \`${tool.name}\` |`);
      if (tool.uses.includes('mcp')) expect(listed).toContain(tool.name);
    }
  });
});
