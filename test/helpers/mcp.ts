/**
 * MCP clients for tests: the official SDK client over streamable HTTP (with a Bearer token) and over
 * stdio (spawning `r3 mcp --org <slug>`), and a call helper that checks the result's two copies of its
 * JSON agree (docs/mcp.md) and hands back the JSON. Each client lists the tools once it connects, so
 * the SDK checks every successful result of every test against its tool's `outputSchema` (a result
 * outside it, or one without `structuredContent`, fails the call); the server checks them too
 * (`R3_MCP_VALIDATE_OUTPUT`, on by default), for tests that post JSON-RPC themselves.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { R3_BIN, TEST_SECRET_KEY } from './process.js';

/** What a tool call answered: whether it is an error result, its JSON, and the resources it links. */
export interface ToolAnswer<T = any> {
  isError: boolean;
  body: T;
  /** The `resource_link` items after the text (what the call made: artifacts). */
  links: Array<{ type: 'resource_link'; uri: string; name: string; mimeType?: string; size?: number }>;
}

/** An SDK client connected to `baseUrl`'s `/api/mcp` with `token`. */
export async function connectHttp(baseUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: 'r3-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  await client.listTools();
  return client;
}

/** An SDK client of a `r3 mcp --org <org>` child on `databaseUrl`; its stderr is collected. */
export async function connectStdio(
  org: string,
  env: Record<string, string>,
): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [R3_BIN, 'mcp', '--org', org],
    cwd: path.dirname(path.dirname(R3_BIN)),
    env: { PATH: process.env.PATH ?? '', R3_LOG_LEVEL: 'warn', R3_SECRET_KEY: TEST_SECRET_KEY, ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'r3-tests', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools();
  return { client, transport, stderr: () => stderr };
}

/**
 * Calls `name`; asserts a result's text item and `structuredContent` carry the same JSON, that only
 * `resource_link` items follow the text, and that an error's text is its only content.
 */
export async function call<T = any>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolAnswer<T>> {
  const result = await client.callTool({ name, arguments: args });
  const [first, ...rest] = result.content as Array<{ type: string; text?: string }>;
  expect(first?.type).toBe('text');
  const body = JSON.parse(first?.text ?? 'null') as T;
  if (result.isError) {
    expect(result.structuredContent).toBeUndefined();
    expect(rest).toEqual([]);
  } else expect(result.structuredContent).toEqual(body);
  for (const item of rest) expect(item.type).toBe('resource_link');
  return { isError: result.isError === true, body, links: rest as ToolAnswer['links'] };
}

/** Calls `name` and expects success; returns the JSON. */
export async function ok<T = any>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const answer = await call<T>(client, name, args);
  expect(answer.isError, JSON.stringify(answer.body)).toBe(false);
  return answer.body;
}

/** Calls `name` and expects an error result with `code`; returns the error object. */
export async function fails(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  code: string,
): Promise<{ code: string; message: string; details: any }> {
  const answer = await call<{ error: { code: string; message: string; details: any } }>(client, name, args);
  expect(answer.isError, JSON.stringify(answer.body)).toBe(true);
  expect(answer.body.error.code, JSON.stringify(answer.body)).toBe(code);
  return answer.body.error;
}

/** The JSON-RPC error `request` was refused with (resources, prompts, tasks: not tool results). */
export async function refusal(request: Promise<unknown>): Promise<McpError> {
  const error = await request.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}
