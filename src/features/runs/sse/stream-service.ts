/**
 * Per-run server-sent-event streams (`GET /runs/:id/stream`), for this process.
 *
 * Terminology of `src/features/runs/sse/`:
 * - stream: one client following one run (run-stream.ts): replay from `run_events`, then live
 *   events, deduped and ordered by the run's event sequence, until the run's terminal event.
 * - hub: this process's live subscriptions, one per followed run (run-event-hub.ts).
 * - heartbeat: a `: heartbeat` comment to every open stream every `heartbeatMs` (one timer here).
 * - cap: open streams per token in this process; one more answers 429.
 *
 * A finished run whose terminal event the client has already seen answers 204 No Content, which
 * tells an `EventSource` to stop reconnecting.
 */
import { FINAL_RUN_STATUSES, SKILL_RUN_DECISION_EVENTS } from '../../../../machines/index.js';
import type { Principal } from '../../../platform/auth/principal.js';
import type { Bus } from '../../../platform/bus/bus.js';
import { type Db, sqlStrings } from '../../../platform/db/sql.js';
import { notFound, rateLimited } from '../../../platform/errors.js';
import type { ResponseStream } from '../../../platform/http/reply.js';
import type { Logger } from '../../../platform/log.js';
import { createRunEventHub, type RunEventHub } from './run-event-hub.js';
import { RunEventStream, type StreamedRun } from './run-stream.js';

/** How long a capped caller is told to wait before trying again. */
const CAP_RETRY_AFTER_SEC = 5;

export interface RunStreamServiceOptions {
  db: Db;
  bus: Bus;
  log: Logger;
  heartbeatMs: number;
  /** Open streams per token in this process; 0 = no cap. */
  maxStreamsPerToken: number;
  /** Live events held for a client whose socket is full before it is closed. */
  queueLimit: number;
}

interface RunRow {
  id: number;
  kind: 'skill' | 'workflow';
  terminal_seq: number | null;
}

// The run (org in the WHERE) and the sequence of its terminal event, if it has one (isTerminalRunEvent's rule).
const LOAD_RUN = `
  select r.id, r.kind,
         (select min(e.seq) from run_events e
           where e.run_id = r.id and e.org_id = r.org_id
             and (e.event in (${sqlStrings(FINAL_RUN_STATUSES)})
                  or (r.kind = 'skill' and e.event in (${sqlStrings(SKILL_RUN_DECISION_EVENTS)})))) as terminal_seq
    from runs r
   where r.id = $1 and r.org_id = $2`;

/**
 * What `open` answers: the run is over and the client has seen its end (`ended`), or a stream of
 * its events to attach to the response's sink (`live`). The route turns it into an HTTP reply.
 */
export type OpenedStream = { kind: 'ended' } | { kind: 'live'; attach(stream: ResponseStream): void };

export class RunStreamService {
  readonly hub: RunEventHub;
  private readonly active = new Set<RunEventStream>();
  private readonly perToken = new Map<string, number>();
  private readonly ticker: NodeJS.Timeout;

  constructor(private readonly options: RunStreamServiceOptions) {
    this.hub = createRunEventHub(options.bus, options.log);
    this.ticker = setInterval(
      () => {
        for (const stream of this.active) stream.heartbeat();
      },
      Math.max(10, options.heartbeatMs),
    );
    this.ticker.unref();
  }

  /** Streams open in this process. */
  get size(): number {
    return this.active.size;
  }

  /**
   * Opens run `runId`'s events after `after` for `principal`: NOT_FOUND for an unknown or foreign
   * run, RATE_LIMITED past the token's cap, `ended` when the run is over and the client has seen its
   * end, else a live stream. `signal` is the request's (aborted when the client leaves before the
   * stream starts).
   */
  async open(principal: Principal, runId: number, after: number, signal: AbortSignal): Promise<OpenedStream> {
    const { db } = this.options;
    const row = await db.maybeOne<RunRow>(LOAD_RUN, [runId, principal.orgId]);
    if (!row) throw notFound('run', runId);
    if (row.terminal_seq !== null && after >= row.terminal_seq) {
      return { kind: 'ended' };
    }
    const release = this.reserve(principal);
    signal.addEventListener('abort', release, { once: true });
    const run: StreamedRun = {
      id: row.id,
      orgId: principal.orgId,
      kind: row.kind,
      final: row.terminal_seq !== null,
    };
    return {
      kind: 'live',
      attach: (stream) => {
        const client = new RunEventStream(stream, {
          db,
          hub: this.hub,
          log: this.options.log,
          run,
          after,
          queueLimit: this.options.queueLimit,
        });
        this.active.add(client);
        stream.onClose(() => {
          this.active.delete(client);
          release();
        });
        void client.start().catch((error) => {
          this.options.log.error({ err: error, runId }, 'event stream could not start');
          client.close('error');
        });
      },
    };
  }

  /** Stops the heartbeat timer (the HTTP server ends the streams themselves). */
  close(): void {
    clearInterval(this.ticker);
    for (const stream of [...this.active]) stream.close('shutdown');
  }

  /** Counts a stream against the caller's token; the returned release is idempotent. */
  private reserve(principal: Principal): () => void {
    const cap = this.options.maxStreamsPerToken;
    const key = principal.tokenId ?? principal.actor;
    const current = this.perToken.get(key) ?? 0;
    if (cap > 0 && current >= cap) {
      throw rateLimited(
        CAP_RETRY_AFTER_SEC,
        `This token already has ${current} open event streams, the most allowed; close one or retry later.`,
        { limit: cap, open: current },
      );
    }
    this.perToken.set(key, current + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.perToken.get(key) ?? 1) - 1;
      if (left <= 0) this.perToken.delete(key);
      else this.perToken.set(key, left);
    };
  }
}
