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
 * - holding: work that already holds a connection (inside a transaction or session of `sqlOver`)
 *   and asks for another is never held back by the share — it would wait for itself.
 *
 * Why: 32 worker slots sharing 10 connections kept every statement waiting behind up to 31 others,
 * and 10 transactions at once on a 2-core machine made each of them slower (docs/performance.md,
 * Missions): a task's hand-over waited behind new missions' planners at every step.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ConnectionSource } from './sql.js';

export type Lane = 'urgent' | 'normal';

interface Context {
  lane?: Lane;
  holding?: boolean;
}

const context = new AsyncLocalStorage<Context>();

/** Runs `fn` (a job worker's work) with its statements, and those of work it starts, in `lane`. */
export function inLane<T>(lane: Lane, fn: () => T): T {
  return context.run({ ...context.getStore(), lane }, fn);
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
 * Only work in a lane is held back, so only there is a context entered. The first context a process
 * enters turns on Node's promise hooks for the rest of its life (Node 20 and 22; every later promise
 * pays, ~10% of a request's CPU: test/features/tokens/token-writes.test.ts): requests, the relay and
 * anything else outside the job workers never enter one here. A process that runs jobs does, at its
 * first job (`inLane`).
 */
export function holding<T>(fn: () => T): T {
  const now = context.getStore();
  if (now?.lane === undefined) return fn();
  return context.run({ ...now, holding: true }, fn);
}

type Class = Lane | 'request';

/**
 * `source` with at most `size` connections lent at once (the pool's size: the pool itself then never
 * queues a borrower of this source), handed out as the file comment says.
 */
export function laned(source: ConnectionSource, size: number): ConnectionSource {
  const share = Math.ceil(size / 2);
  let free = size;
  let jobs = 0;
  const waiting: Record<Class, Array<() => void>> = { urgent: [], request: [], normal: [] };

  function grant(): void {
    while (free > 0) {
      const next =
        (jobs < share ? waiting.urgent.shift() : undefined) ??
        waiting.request.shift() ??
        (jobs < share ? waiting.normal.shift() : undefined);
      if (!next) return;
      next();
    }
  }

  const borrowers = new WeakMap<object, boolean>();

  return {
    async acquire() {
      const now = context.getStore();
      const job = now?.lane !== undefined && now.holding !== true;
      const cls: Class = job ? (now?.lane as Lane) : 'request';
      if (free > 0 && (!job || jobs < share)) {
        free--;
        if (job) jobs++;
      } else {
        await new Promise<void>((resolve) =>
          waiting[cls].push(() => {
            free--;
            if (job) jobs++;
            resolve();
          }),
        );
      }
      try {
        const client = await source.acquire();
        borrowers.set(client, job);
        return client;
      } catch (error) {
        free++;
        if (job) jobs--;
        grant();
        throw error;
      }
    },
    release(client) {
      const job = borrowers.get(client) === true;
      borrowers.delete(client);
      source.release(client);
      free++;
      if (job) jobs--;
      grant();
    },
  };
}
