/**
 * Who gets the pool's next free connection, and how many the job workers may hold.
 *
 * Terminology:
 * - lane: the job workers' work runs in one (`inLane`; the async context carries it to every
 *   statement the work sends): `urgent` for what other work waits on and is short — a job the queue
 *   was told goes first (`Job.priority`: a mission's task whose dependencies just finished), a
 *   mission child's report (its mission's next tasks start in it) — and `normal` for the rest of the
 *   jobs (planners, webhook deliveries, …). Work in no lane (requests, the outbox relay, timers, the
 *   queue's claims: ready jobs wait for them, `outsideLanes`) is a *request*.
 * - the jobs' share: the workers' statements hold at most half the pool's connections at once
 *   (rounded up); requests may take all of it. A freed connection goes to the longest waiter of the
 *   urgent lane (within the share), else to a request, else to the normal lane (within the share).
 * - focus: while urgent work is under way — work of the urgent lane holds or waits for a
 *   connection, or gave one back within the last `focusWindowMs` (250) — the share is a fifth of the
 *   pool (rounded down, at least one): the urgent lane's and the normal lane's together, a freed
 *   connection to the urgent lane first. A waiter is served before a newcomer of its lane, also when
 *   the share grows back.
 * - held: a serving process whose writes queue (its requests wait for its statements: a batch of
 *   several of them formed) tells the processes that run jobs to step back (`holdJobs`, from the
 *   bus signal `sig.jobs.hold`: src/platform/jobs/hold.ts). For `ms` after the last such signal the
 *   jobs' share is one connection: the normal lane gets one only while no job work holds any; the
 *   urgent lane keeps its focused share.
 * - holding: work that already holds a connection (inside a transaction or session of `sqlOver`)
 *   and asks for another is never held back by the share — it would wait for itself.
 * - lane work under way: the contexts `inLane` and `holding` entered that have not yet ended. The
 *   lanes' AsyncLocalStorage is on only while there is some: on Node 20 and 22 an enabled storage
 *   runs Node's promise hooks on every promise of the process, requests' too (a noticeable share of
 *   an authenticated read's CPU: docs/performance.md, "GET /runs/:id"); once the last lane work ends
 *   the storage is disabled, and the next `inLane` turns it on again.
 *
 * Why: 32 worker slots sharing 10 connections kept every statement waiting behind up to 31 others,
 * and 10 transactions at once on a 2-core machine made each of them slower (docs/performance.md,
 * Missions): a task's hand-over waited behind new missions' planners at every step. Focus: with five
 * connections of job work at once, hand-overs (two round trips each) waited on each other and on the
 * normal lane's transactions for PostgreSQL's and r3's CPU; two at a time, first in line, they go
 * through sooner at the same throughput (measured: performance.md, Missions). Only
 * while there is urgent work: a pool of echo runs (no urgent lane) keeps its half. Held: a worker
 * process's jobs and a serving process's accepts share PostgreSQL and the machine's CPU, and a lower
 * CPU priority for either side's backends does not help (a backend at low priority that holds a WAL
 * or buffer lock holds up the others); with one connection of job work while the accepts queue, the
 * accepts went faster and the workers still completed runs (docs/performance.md, "Workers that step
 * back while accepts queue", and the hold's later sections).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ConnectionSource } from './sql.js';

export type Lane = 'urgent' | 'normal';

interface Context {
  lane?: Lane;
  holding?: boolean;
}

const context = new AsyncLocalStorage<Context>();

/** Contexts entered by `inLane` and `holding` that have not ended yet (see "lane work under way"). */
let underWay = 0;

/**
 * Runs `fn` in `store`, counted as lane work under way until it returns or, when it returns a
 * promise, until that settles; the storage is disabled when the last such work ends. The count goes
 * down in a callback registered outside `store`, so disabling never runs in a lane's own context.
 */
function enter<T>(store: Context, fn: () => T): T {
  underWay++;
  let result: T;
  try {
    result = context.run(store, fn);
  } catch (error) {
    ended();
    throw error;
  }
  if (result instanceof Promise) return result.finally(ended) as T;
  ended();
  return result;
}

function ended(): void {
  underWay--;
  if (underWay === 0) context.disable();
}

/** Runs `fn` (a job worker's work) with its statements, and those of work it starts, in `lane`. */
export function inLane<T>(lane: Lane, fn: () => T): T {
  return enter({ ...context.getStore(), lane }, fn);
}

/**
 * Runs `fn` in no lane (as a request), wherever it was started from. Work in no lane already runs
 * `fn` as it is: entering a context costs every later promise of the process (see below).
 */
export function outsideLanes<T>(fn: () => T): T {
  const now = context.getStore();
  if (now?.lane === undefined && now?.holding !== true) return fn();
  return context.run({}, fn);
}

/**
 * Runs `fn`, which holds a connection: its own requests for more are never held back by the share.
 * Only work in a lane is held back, so only there is a context entered: an entered context turns on
 * Node's promise hooks (Node 20 and 22; every promise pays while they are on), so requests, the relay
 * and anything else outside the job workers never enter one here. A process that runs jobs does,
 * while lane work is under way (see the file comment).
 */
export function holding<T>(fn: () => T): T {
  const now = context.getStore();
  if (now?.lane === undefined) return fn();
  return enter({ ...now, holding: true }, fn);
}

type Class = Lane | 'request';

/** How long the share stays focused after the last urgent statement's connection (ms). */
const FOCUS_WINDOW_MS = 250;

/** A source of connections handed out by lanes, whose job work can be held back. */
export interface LanedSource extends ConnectionSource {
  /** Holds the jobs' share to one connection for `ms` from now (see "held" above). */
  holdJobs(ms: number): void;
}

/**
 * `source` with at most `size` connections lent at once (the pool's size: the pool itself then never
 * queues a borrower of this source), handed out as the file comment says.
 */
export function laned(
  source: ConnectionSource,
  size: number,
  options: { focusWindowMs?: number } = {},
): LanedSource {
  const share = Math.ceil(size / 2);
  const focus = Math.max(1, Math.floor(size / 5));
  const focusWindowMs = options.focusWindowMs ?? FOCUS_WINDOW_MS;
  let free = size;
  let jobs = 0;
  let urgent = 0;
  // When a statement of the urgent lane last took or gave back a connection (performance.now()).
  let urgentSeen = Number.NEGATIVE_INFINITY;
  const waiting: Record<Class, Array<() => void>> = { urgent: [], request: [], normal: [] };
  // Until when the jobs' share is held to one connection (performance.now()).
  let heldUntil = Number.NEGATIVE_INFINITY;

  /**
   * The connections job work may hold now: `focus` while urgent work is under way, else `share`;
   * one while held.
   */
  function jobsMay(): number {
    const now = performance.now();
    if (now < heldUntil) return 1;
    const underWay = urgent > 0 || waiting.urgent.length > 0 || now - urgentSeen < focusWindowMs;
    return underWay ? focus : share;
  }

  function grant(): void {
    while (free > 0) {
      const next =
        (jobs < focus ? waiting.urgent.shift() : undefined) ??
        waiting.request.shift() ??
        (jobs < jobsMay() ? waiting.normal.shift() : undefined);
      if (!next) return;
      next();
    }
  }

  const borrowers = new WeakMap<object, Class>();

  return {
    async acquire() {
      const now = context.getStore();
      const job = now?.lane !== undefined && now.holding !== true;
      const cls: Class = job ? (now?.lane as Lane) : 'request';
      const take = () => {
        free--;
        if (job) jobs++;
        if (cls === 'urgent') {
          urgent++;
          urgentSeen = performance.now();
        }
      };
      // Waiters first: the share may have grown since they queued (the focus window passed).
      grant();
      // Urgent work is under way as soon as it asks: it waits for the focused share.
      const limit = cls === 'urgent' ? focus : jobsMay();
      if (free > 0 && waiting[cls].length === 0 && (!job || jobs < limit)) {
        take();
      } else {
        await new Promise<void>((resolve) =>
          waiting[cls].push(() => {
            take();
            resolve();
          }),
        );
      }
      try {
        const client = await source.acquire();
        borrowers.set(client, cls);
        return client;
      } catch (error) {
        giveBack(cls);
        throw error;
      }
    },
    release(client, failure) {
      const cls = borrowers.get(client) ?? 'request';
      borrowers.delete(client);
      source.release(client, failure);
      giveBack(cls);
    },
    holdJobs(ms) {
      heldUntil = Math.max(heldUntil, performance.now() + ms);
    },
  };

  function giveBack(cls: Class): void {
    free++;
    if (cls !== 'request') jobs--;
    if (cls === 'urgent') {
      urgent--;
      urgentSeen = performance.now();
    }
    grant();
  }
}
