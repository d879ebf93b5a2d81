/**
 * Bridging r3's uWS pipeline to Web-standard handlers (`(Request) => Promise<Response>`), such as
 * the MCP SDK's streamable HTTP transport. The request is rebuilt from what the pipeline already
 * read (headers, body bytes); the Response comes back as a raw reply when it has a finite body,
 * or as a stream reply when it is a server-sent-event stream.
 */

import type { Reply } from './reply.js';
import type { RequestContext } from './server.js';

/** A Web-standard `Request` for the current exchange (`baseUrl` is scheme + host). */
export function toWebRequest(ctx: RequestContext, baseUrl: string, query = ''): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.headers)) headers.set(name, value);
  const hasBody = ctx.method !== 'GET' && ctx.method !== 'HEAD' && ctx.rawBody.length > 0;
  return new Request(`${baseUrl}${ctx.path}${query ? `?${query}` : ''}`, {
    method: ctx.method,
    headers,
    body: hasBody ? new Uint8Array(ctx.rawBody) : null,
    signal: ctx.signal,
  });
}

/** Response headers r3's server sets itself (or that uWS computes). */
const OWN_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'date']);

/** Turns a Web `Response` into a reply; event streams stay streams, anything else is buffered. */
export async function fromWebResponse(response: Response): Promise<Reply> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!OWN_HEADERS.has(name)) headers[name] = value;
  });
  const contentType = response.headers.get('content-type') ?? 'application/octet-stream';
  if (contentType.startsWith('text/event-stream') && response.body) {
    const body = response.body;
    return {
      kind: 'stream',
      status: response.status,
      headers,
      start(stream) {
        const reader = body.getReader();
        const decoder = new TextDecoder();
        stream.onClose(() => void reader.cancel().catch(() => undefined));
        const pump = async (): Promise<void> => {
          for (;;) {
            const { done, value } = await reader.read();
            if (done || stream.closed) break;
            if (!stream.write(decoder.decode(value, { stream: true }))) {
              await new Promise<void>((resolve) => stream.onDrain(resolve));
            }
          }
          stream.end();
        };
        void pump().catch(() => stream.end());
      },
    };
  }
  const body = Buffer.from(await response.arrayBuffer());
  delete headers['content-type'];
  return { kind: 'raw', status: response.status, body, contentType, headers };
}
