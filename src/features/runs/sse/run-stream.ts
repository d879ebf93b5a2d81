/**
 * One client's event stream of one run.
 *
 * Terminology:
 * - cursor (`lastSent`): the sequence of the last event written; starts at the client's
 *   `Last-Event-ID` (0 without one). Events are written in sequence order, each exactly once.
 * - catch-up: reading `run_events` after the cursor from the database, a page at a time. The stream
 *   starts with one (the replay) and runs another whenever a live event skips ahead of the cursor
 *   (a gap: a message this process never got).
 * - live: events from the run's bus subscription, opened BEFORE the replay reads, so an event is
 *   either in the replay or arrives live (or both: duplicates are dropped by sequence).
 * - blocked: the socket's buffer is full (a write returned false) until uWS reports it drained;
 *   nothing more is written meanwhile. Live events that arrive while blocked wait in a bounded
 *   queue; one more than `queueLimit` closes the stream (the client resumes with Last-Event-ID).
 * - terminal: the run's last event; the stream ends right after writing it.
 */
import type { Db } from '../../../platform/db/sql.js';
import type { ResponseStream } from '../../../platform/http/reply.js';
import type { Logger } from '../../../platform/log.js';
import { isTerminalRunEvent } from '../run-event-payload.js';
import { eventFrame, HEARTBEAT_FRAME } from './frames.js';
import type { LiveRunEvent, RunEventHub } from './run-event-hub.js';

/** The run a stream follows, as read when the request came in. */
export interface StreamedRun {
  id: number;
  orgId: number;
  kind: 'skill' | 'workflow';
  /** The run had recorded its terminal event already: no subscription is needed. */
  final: boolean;
}

export interface RunStreamOptions {
  db: Db;
  hub: RunEventHub;
  log: Logger;
  run: StreamedRun;
  /** Sequence the client has seen (Last-Event-ID), 0 for none. */
  after: number;
  /** Live events held for a blocked client before it is closed. */
  queueLimit: number;
  /** Events read per catch-up query. */
  pageSize?: number;
}

interface EventRow {
  seq: number;
  event: string;
  status: string;
  step: string | null;
  output: string | null;
  at: Date;
}

const CATCH_UP = `
  select seq, event, status, step, output::text as output, at
    from run_events
   where run_id = $1 and org_id = $2 and seq > $3
   order by seq
   limit $4`;

/** Why a stream ended early (for logs). */
export type CloseReason = 'terminal' | 'client' | 'slow_client' | 'error' | 'shutdown';

export class RunEventStream {
  private lastSent: number;
  private readonly pending = new Map<number, LiveRunEvent>();
  private blocked = false;
  private drained: Promise<void> | null = null;
  private heldWhileBlocked = 0;
  private pumping: Promise<void> | null = null;
  private again = false;
  private catchUp = true;
  private done = false;
  private unsubscribe: (() => void) | null = null;
  private readonly pageSize: number;

  constructor(
    private readonly stream: ResponseStream,
    private readonly options: RunStreamOptions,
  ) {
    this.lastSent = options.after;
    this.pageSize = options.pageSize ?? 200;
    stream.onClose(() => this.dispose());
  }

  /** Subscribes (unless the run is over), then replays and streams until the terminal event. */
  async start(): Promise<void> {
    const { run, hub } = this.options;
    if (!run.final) {
      const unsubscribe = await hub.subscribe(run.orgId, run.id, (event) => this.onLive(event));
      if (this.done) {
        unsubscribe();
        return;
      }
      this.unsubscribe = unsubscribe;
    }
    await this.pump();
    // A finished run whose terminal event the client has already seen (or that never wrote one).
    if (run.final && !this.done) this.close('terminal');
  }

  /** Writes a heartbeat comment unless the socket is backed up (then the writes say enough). */
  heartbeat(): void {
    if (!this.done && !this.blocked) this.stream.write(HEARTBEAT_FRAME);
  }

  /** Ends the stream (idempotent). */
  close(reason: CloseReason): void {
    if (this.done) return;
    if (reason === 'slow_client' || reason === 'error') {
      this.options.log.info(
        { runId: this.options.run.id, reason, lastSent: this.lastSent },
        'event stream closed',
      );
    }
    this.dispose();
    this.stream.end();
  }

  get closed(): boolean {
    return this.done;
  }

  private dispose(): void {
    if (this.done) return;
    this.done = true;
    this.pending.clear();
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  private onLive(event: LiveRunEvent): void {
    if (this.done || event.seq <= this.lastSent || this.pending.has(event.seq)) return;
    if (this.blocked && ++this.heldWhileBlocked > this.options.queueLimit) {
      this.close('slow_client');
      return;
    }
    this.pending.set(event.seq, event);
    void this.pump();
  }

  /** Single-flight: one loop writes; a call while it runs makes it look again before it stops. */
  private pump(): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return this.pumping;
    }
    this.pumping = this.loop()
      .catch((error) => {
        this.options.log.error({ err: error, runId: this.options.run.id }, 'event stream failed');
        this.close('error');
      })
      .finally(() => {
        this.pumping = null;
      });
    return this.pumping;
  }

  private async loop(): Promise<void> {
    let gapChecked = false;
    for (;;) {
      this.again = false;
      if (this.done) return;
      if (this.catchUp) {
        const rows = await this.read();
        for (const row of rows) {
          if (this.done) return;
          if (row.seq <= this.lastSent) continue;
          await this.write(this.frameOf(row), row.seq, isTerminalRunEvent(row.event, this.options.run.kind));
        }
        if (rows.length < this.pageSize) this.catchUp = false;
        continue;
      }
      const next = this.pending.get(this.lastSent + 1);
      if (next) {
        gapChecked = false;
        await this.write(next.frame, next.seq, next.terminal);
        continue;
      }
      if (this.pending.size > 0) {
        const first = Math.min(...this.pending.keys());
        if (!gapChecked) {
          // A live event skipped ahead: what lies between is in the database.
          gapChecked = true;
          this.catchUp = true;
          continue;
        }
        // Not in the database either (it cannot be, in practice): go on from the next one held.
        this.lastSent = first - 1;
        continue;
      }
      if (!this.again) return;
    }
  }

  private async read(): Promise<EventRow[]> {
    const { db, run } = this.options;
    return db.prepared<EventRow>('sse_catch_up', CATCH_UP, [run.id, run.orgId, this.lastSent, this.pageSize]);
  }

  private frameOf(row: EventRow): string {
    return eventFrame({
      runId: this.options.run.id,
      seq: row.seq,
      event: row.event,
      status: row.status,
      step: row.step,
      outputJson: row.output ?? 'null',
      at: row.at.toISOString(),
    });
  }

  /** Writes one event (after waiting out a full socket); ends the stream after a terminal one. */
  private async write(frame: string, seq: number, terminal: boolean): Promise<void> {
    while (this.blocked && this.drained && !this.done) await this.drained;
    if (this.done) return;
    const accepted = this.stream.write(frame);
    this.lastSent = seq;
    for (const held of this.pending.keys()) if (held <= seq) this.pending.delete(held);
    if (terminal) {
      this.close('terminal');
      return;
    }
    if (!accepted) this.block();
  }

  private block(): void {
    this.blocked = true;
    this.heldWhileBlocked = this.pending.size;
    this.drained = new Promise<void>((resolve) => {
      this.stream.onDrain(() => {
        this.blocked = false;
        this.heldWhileBlocked = 0;
        this.drained = null;
        resolve();
      });
      this.stream.onClose(resolve);
    });
  }
}
