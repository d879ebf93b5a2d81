/**
 * The rows one transition writes besides the actor row itself. Effect handlers fill it; the host
 * writes all of it in the transition's single statement, so either everything or nothing lands.
 * Work that needs its own statements (another actor's transition) goes into `followUp()` and runs right
 * after, in the same database transaction. Work that finishes the transition itself before it is
 * written — reads its effects need, and the events the actor is to take next from what they found —
 * goes into `settle()`: those events are applied in the same write (see `settle`).
 */
import type { ActorTx } from './tx.js';

/** Work that settles a transition before its write: the events the actor takes next, in order. */
export type Settler = (tx: ActorTx) => Promise<ReadonlyArray<{ type: string; [key: string]: unknown }>>;

/** A run event (a row of `run_events`). */
export interface RunEventRow {
  seq: number;
  event: string;
  status: string;
  step: string | null;
  output: unknown;
  at: string;
}

/** An outbox message: published to the bus after commit (with the others of its statement, as one batch row). */
export interface OutboxRow {
  subject: string;
  event_id: string;
  payload: unknown;
}

/** A job row. */
export interface JobRow {
  kind: string;
  payload: unknown;
  key: string | null;
  run_at: string;
  max_attempts: number | null;
  /** Claimed before lower priorities (the queue's `Job.priority`); 0 when absent. */
  priority?: number;
  /** Written leased to this process, which starts it after the commit (`JobQueue.lease`): its id and lease. */
  leased?: { id: number; workerId: string; lockedUntil: string };
}

/** A timer of the transitioning actor. */
export interface TimerRow {
  timer_id: string;
  event: unknown;
  due_at: string;
}

/** An audit row written with the transition (org, actor and token come from the transition). */
export interface AuditRow {
  action: string;
  target_kind: string | null;
  target_id: string | null;
  details: Record<string, unknown>;
  request_id: string | null;
}

export class TransitionWrites {
  readonly events: RunEventRow[] = [];
  readonly outbox: OutboxRow[] = [];
  readonly jobs: JobRow[] = [];
  /** Timer id → the timer to (re)schedule, or null to cancel it; the last word per id wins. */
  readonly timers = new Map<string, TimerRow | null>();
  readonly audit: AuditRow[] = [];
  readonly followUps: Array<(tx: ActorTx) => Promise<void>> = [];
  readonly settlers: Settler[] = [];

  /**
   * @param jobsQueuedAt the `run_at` of the jobs this transition enqueues (see `CreateArgs`), or undefined: now.
   * @param jobsPriority their priority (see `CreateArgs`), or undefined: 0.
   */
  constructor(
    private lastSeq: number,
    readonly jobsQueuedAt?: string,
    readonly jobsPriority?: number,
  ) {}

  /** The next run-event sequence number. */
  nextSeq(): number {
    this.lastSeq += 1;
    return this.lastSeq;
  }

  /** The run-event sequence after this transition. */
  get seq(): number {
    return this.lastSeq;
  }

  /** Work to do after the transition's statement, in the same transaction (e.g. another actor's transition). */
  followUp(work: (tx: ActorTx) => Promise<void>): void {
    this.followUps.push(work);
  }

  /**
   * Work that runs once the transition's effects are performed, before its statement: it may read
   * (in the transaction) and answers the events the actor itself takes next. The host applies them
   * one after the other as transitions of their own — each checked by the machine, its effects
   * performed into these same writes — and writes them all with this one in one statement (a
   * transition-log row each). A mission run's task start so records its tasks' run ids, which the
   * effect reads and allocates, without a second write of the row.
   */
  settle(work: Settler): void {
    this.settlers.push(work);
  }
}
