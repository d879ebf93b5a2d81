/**
 * A run's events over server-sent events (`GET /api/v1/runs/{id}/stream`), as an async iterator that
 * resumes: when the connection ends before the run did, it reconnects with `Last-Event-ID` set to the
 * last event seen, so no event is lost or repeated. It stops after a terminal event (`completed`,
 * `failed`, `cancelled`), or when r3 answers 204 (nothing after the resume point: the run has ended,
 * as with a skill run's `approved` or `rejected`).
 */

/** One event of a run (`data:` of a frame, docs/api.md "Run event stream"). */
export interface RunEvent {
  runId: number;
  seq: number;
  event: string;
  status: string;
  step: string | null;
  output: unknown;
  at: string;
}

export interface RunEventsOptions {
  baseUrl: string;
  token: string;
  runId: number;
  /** Resume after this sequence (events up to it are skipped). */
  lastEventId?: number;
  /** Stops the iteration (and the open request). */
  signal?: AbortSignal;
  /** Wait before reconnecting, in ms (default 500; r3's `retry:` is not used). */
  retryMs?: number;
  /** Reconnections allowed in a row without a new event (default 10). */
  maxRetries?: number;
  fetch?: typeof globalThis.fetch;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** The run's events from `lastEventId` on, across reconnections, until the run ends. */
export async function* runEvents(options: RunEventsOptions): AsyncGenerator<RunEvent> {
  const doFetch = options.fetch ?? globalThis.fetch;
  const url = `${options.baseUrl.replace(/\/+$/, '')}/api/v1/runs/${options.runId}/stream`;
  let last = options.lastEventId;
  let failures = 0;
  for (;;) {
    const headers: Record<string, string> = {
      accept: 'text/event-stream',
      authorization: `Bearer ${options.token}`,
    };
    if (last !== undefined) headers['last-event-id'] = String(last);
    let response: Response;
    try {
      response = await doFetch(url, { headers, ...(options.signal ? { signal: options.signal } : {}) });
    } catch (error) {
      if (options.signal?.aborted) return;
      if (++failures > (options.maxRetries ?? 10)) throw error;
      await pause(options.retryMs ?? 500, options.signal);
      continue;
    }
    if (response.status === 204) return;
    if (response.status !== 200 || !response.body) {
      const text = await response.text();
      throw new Error(`GET ${url}: ${response.status} ${text}`);
    }
    let ended = false;
    try {
      for await (const event of frames(response.body)) {
        failures = 0;
        last = event.seq;
        yield event;
        if (TERMINAL.has(event.event)) {
          ended = true;
          return;
        }
      }
    } catch (error) {
      if (options.signal?.aborted) return;
      if (++failures > (options.maxRetries ?? 10)) throw error;
    } finally {
      if (ended) await response.body.cancel().catch(() => undefined);
    }
    if (options.signal?.aborted) return;
    await pause(options.retryMs ?? 500, options.signal);
  }
}

/** Parses an event stream's frames; comments (heartbeats) and frames without data are skipped. */
async function* frames(body: ReadableStream<Uint8Array>): AsyncGenerator<RunEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data !== '') yield JSON.parse(data) as RunEvent;
      end = buffer.indexOf('\n\n');
    }
  }
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
