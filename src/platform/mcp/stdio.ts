/**
 * MCP over stdio (`r3 mcp --org <slug>`): one organization, one session for the life of the process,
 * the operator's own local process. Its principal is the org's `mcp` principal: role `owner` with every
 * scope (so authoring and the approve capability), no token (`api_token_id` null), attributed `mcp` on
 * runs, reviews, workspace versions and audit rows.
 */
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { type Principal, SCOPES } from '../auth/principal.js';
import { createMcpServer } from './server.js';
import type { Toolset } from './toolset.js';

/** The principal of stdio MCP for org `org`. */
export function stdioPrincipal(org: { id: number; slug: string }): Principal {
  return {
    orgId: org.id,
    orgSlug: org.slug,
    userId: 'mcp',
    role: 'owner',
    scopes: new Set(SCOPES),
    tokenId: null,
    actor: 'mcp',
    rateLimit: { perMinute: null, burst: null },
  };
}

/** A running stdio session. */
export interface StdioSession {
  /** Resolves when the client closes stdin (or the transport fails). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** Serves `toolset` to `principal` over `stdin`/`stdout` (default: the process's). */
export async function serveStdio(
  toolset: Toolset,
  principal: Principal,
  io: { stdin?: Readable; stdout?: Writable } = {},
): Promise<StdioSession> {
  const stdin = io.stdin ?? process.stdin;
  const server = createMcpServer(toolset, { principal, transport: 'stdio' });
  const transport = new StdioServerTransport(stdin, io.stdout ?? process.stdout);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  server.onclose = () => resolveClosed();
  // The transport does not watch for the end of its input; the client closing stdin ends the session.
  const onEnd = () => void server.close().finally(resolveClosed);
  stdin.once('end', onEnd);
  stdin.once('close', onEnd);
  await server.connect(transport);
  return {
    closed,
    async close() {
      stdin.off('end', onEnd);
      stdin.off('close', onEnd);
      await server.close();
      resolveClosed();
    },
  };
}
