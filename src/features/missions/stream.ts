/**
 * `GET /mission-runs/:id/stream`: a mission run's events as server-sent events (docs/api.md#missions:
 * `planned`, `task_started`, `task_completed`, `awaiting_review`, `approved`, `completed`, `failed`,
 * `cancelled`). As a run's stream (docs/api.md#run-event-stream-sse): each frame has `id:` (the run's event
 * sequence),
 * `event:` and `data:` JSON `{missionRunId, seq, event, status, task, output, at}`; the recorded
 * events are replayed after `Last-Event-ID`, then live ones follow (subscribed before the replay
 * reads, deduplicated by sequence, a gap read from the database) until a terminal event
 * (`completed`, `failed`, `cancelled`). A run that is over and whose end the client saw answers 204.
 */
import { FINAL_MISSION_RUN_STATUSES } from '../../../machines/index.js';
import type { Principal } from '../../platform/auth/principal.js';
import type { Bus } from '../../platform/bus/bus.js';
import { missionEventsPattern } from '../../platform/bus/subjects.js';
import { type Db, sqlStrings } from '../../platform/db/sql.js';
import { notFound } from '../../platform/errors.js';
import type { Reply, ResponseStream } from '../../platform/http/reply.js';
import type { Logger } from '../../platform/log.js';

/** The events that end a mission run's stream: entering a final status records the event of its name. */
const TERMINAL: ReadonlySet<string> = new Set(FINAL_MISSION_RUN_STATUSES);
const TERMINAL_IN = sqlStrings(FINAL_MISSION_RUN_STATUSES);

interface EventRow {
  seq: number;
  event: string;
  status: string;
  task: string | null;
  output: string;
  at: string;
}

const CATCH_UP = `
  select seq, event, status, step as task, coalesce(output::text, 'null') as output,
         to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at
    from mission_run_events
   where run_id = $1 and org_id = $2 and seq > $3
   order by seq`;

function frame(missionRunId: number, e: EventRow): string {
  const data =
    `{"missionRunId":${missionRunId},"seq":${e.seq},"event":${JSON.stringify(e.event)},` +
    `"status":${JSON.stringify(e.status)},"task":${e.task === null ? 'null' : JSON.stringify(e.task)},` +
    `"output":${e.output},"at":${JSON.stringify(e.at)}}`;
  return `id: ${e.seq}\nevent: ${e.event}\ndata: ${data}\n\n`;
}

const STREAM_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store, no-transform',
  'X-Accel-Buffering': 'no',
};

export interface MissionStreamDeps {
  db: Db;
  bus: Bus;
  log: Logger;
  heartbeatMs: number;
}

/** Opens the stream of mission run `id` for `principal` after event `after`. */
export async function openMissionStream(
  deps: MissionStreamDeps,
  principal: Principal,
  id: number,
  after: number,
): Promise<Reply> {
  const { db, bus, log } = deps;
  const row = await db.maybeOne<{ terminal: number | null }>(
    `select (select min(e.seq) from mission_run_events e
              where e.run_id = m.id and e.org_id = m.org_id and e.event in (${TERMINAL_IN}))
              as terminal
       from mission_runs m where m.id = $1 and m.org_id = $2`,
    [id, principal.orgId],
  );
  if (!row) throw notFound('mission run', id);
  if (row.terminal !== null && after >= row.terminal) {
    return { kind: 'raw', status: 204, body: '', contentType: 'text/event-stream' };
  }
  const orgId = principal.orgId;
  return {
    kind: 'stream',
    status: 200,
    headers: STREAM_HEADERS,
    start: (stream: ResponseStream) => {
      let lastSent = after;
      let done = false;
      let catchingUp: Promise<void> | null = null;
      let unsubscribe: (() => void) | null = null;
      const heartbeat = setInterval(
        () => {
          if (!stream.closed) stream.write(': heartbeat\n\n');
        },
        Math.max(10, deps.heartbeatMs),
      );
      heartbeat.unref();
      const finish = () => {
        if (done) return;
        done = true;
        clearInterval(heartbeat);
        unsubscribe?.();
        if (!stream.closed) stream.end();
      };
      stream.onClose(finish);
      const write = (e: EventRow) => {
        if (done || e.seq <= lastSent) return;
        lastSent = e.seq;
        stream.write(frame(id, e));
        if (TERMINAL.has(e.event)) finish();
      };
      // One read at a time; a live event that skipped ahead meanwhile asks for one more.
      let again = false;
      const catchUp = (): Promise<void> => {
        if (catchingUp) {
          again = true;
          return catchingUp;
        }
        catchingUp = (async () => {
          do {
            again = false;
            const rows = await db.query<EventRow>(CATCH_UP, [id, orgId, lastSent]);
            for (const e of rows) write(e);
          } while (again && !done);
        })().finally(() => {
          catchingUp = null;
        });
        return catchingUp;
      };
      const live = (payload: {
        seq?: number;
        event?: string;
        status?: string;
        task?: string | null;
        output?: unknown;
        at?: string;
      }) => {
        if (done || typeof payload.seq !== 'number' || payload.seq === 0) return;
        if (payload.seq !== lastSent + 1 || catchingUp) {
          void catchUp().catch((error) =>
            log.warn({ err: error, missionRunId: id }, 'mission stream catch-up failed'),
          );
          return;
        }
        write({
          seq: payload.seq,
          event: String(payload.event),
          status: String(payload.status),
          task: payload.task ?? null,
          output: JSON.stringify(payload.output ?? null),
          at: String(payload.at),
        });
      };
      void (async () => {
        if (row.terminal === null) {
          const subscription = await bus.subscribe(missionEventsPattern(String(orgId), id), (msg) => {
            try {
              live(JSON.parse(Buffer.from(msg.data).toString('utf8')));
            } catch (error) {
              log.warn({ err: error, subject: msg.subject }, 'unreadable mission event');
            }
          });
          unsubscribe = () => subscription.unsubscribe();
          if (done) unsubscribe();
        }
        await catchUp();
      })().catch((error) => {
        log.error({ err: error, missionRunId: id }, 'mission event stream could not start');
        finish();
      });
    },
  };
}
