/**
 * Server-sent-event frames of a run's event stream: `id:` the run's event sequence, `event:` the
 * event's name, `data:` one line of JSON `{runId, seq, event, status, step, output, at}`
 * (docs/api.md#run-event-stream-sse). JSON text never contains a raw newline, so a frame's data is always a
 * single `data:` line.
 */

/** What a frame carries; `outputJson` is the output already as JSON text (`null` for none). */
export interface FrameFields {
  runId: number;
  seq: number;
  event: string;
  status: string;
  step: string | null;
  outputJson: string;
  at: string;
}

/** One event frame. Keys are written in a fixed order, the output's JSON is embedded as given. */
export function eventFrame(f: FrameFields): string {
  const data =
    `{"runId":${f.runId},"seq":${f.seq},"event":${JSON.stringify(f.event)},"status":${JSON.stringify(f.status)},` +
    `"step":${f.step === null ? 'null' : JSON.stringify(f.step)},"output":${f.outputJson},"at":${JSON.stringify(f.at)}}`;
  return `id: ${f.seq}\nevent: ${f.event}\ndata: ${data}\n\n`;
}

/** The keep-alive comment (ignored by clients; keeps proxies from timing the connection out). */
export const HEARTBEAT_FRAME = ': heartbeat\n\n';
