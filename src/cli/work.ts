/**
 * `r3 work`: a process that executes jobs and serves nothing (role `worker` in platform.ts): job
 * workers, timers, the outbox relay (with a shared bus) and the services that go with the jobs (the
 * webhook dispatcher). `r3 serve` starts these itself with R3_WORKER_PROCESSES; they can also run
 * on their own beside serving processes started with R3_WORKER_CONCURRENCY=0.
 *
 * It lowers its own CPU priority first (R3_WORKER_NICE), so that on a machine it shares with a
 * serving process the requests go first and the jobs take the CPU they leave (issue 37: accepts
 * that stay fast while workers run). Started by `r3 serve` (`--parent`), it also stops when that
 * process goes, whatever ended it (`stopSignal`).
 */
import { readdirSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { openApp } from '../main.js';
import { type CliCommand, type CliContext, UsageError } from '../platform/cli.js';
import { createLogger, type Logger } from '../platform/log.js';
import { systemClock } from '../platform/util/clock.js';

export const workCommand: CliCommand = {
  name: 'work',
  usage:
    '  r3 work [--parent <pid>]      execute jobs, fire timers, relay events, dispatch webhooks; no HTTP (beside r3 serve, on NATS);\n' +
    '                                with --parent, stop when that process ends',
  run: work,
};

async function work(args: string[], { config, out }: CliContext): Promise<number> {
  let parent: number | undefined;
  try {
    const { values } = parseArgs({ args, strict: true, options: { parent: { type: 'string' } } });
    parent = values.parent === undefined ? undefined : Number(values.parent);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parent !== undefined && !(Number.isInteger(parent) && parent > 0)) {
    throw new UsageError('--parent: a process id');
  }
  const stopped = stopSignal(parent);
  const log = createLogger(config.logLevel);
  const nice = lowerPriority(config.workerNice, log);
  if (!config.natsUrl) {
    log.warn(
      'r3 work without NATS_URL: the events of the jobs executed here wait for a serving process to relay them (its poll)',
    );
  }
  const { platform } = await openApp(config, { role: 'worker', clock: systemClock, log });
  try {
    await platform.start();
    out(`r3 working (pid ${process.pid}, ${config.workerConcurrency} workers, nice ${nice})`);
    const why = await stopped;
    log.info({ reason: why }, 'r3 work stopping');
    await platform.stop();
    await new Promise<void>((resolve) => log.flush(() => resolve()));
    process.exit(0);
  } finally {
    await platform.stop();
  }
}

/** How often a child looks whether its parent is still there. */
const PARENT_CHECK_MS = 500;

/**
 * Resolves with the reason to stop: SIGTERM, SIGINT, or — with `parent` (`r3 serve`'s pid) — that
 * process's end, whatever ended it. Listened for from the start, so one that comes during start-up
 * stops the process as soon as it has started. The parent's end is seen twice over: the IPC channel
 * closing, and this process no longer being the parent's child (reparented). The second is what a
 * child started just before its parent was killed sees: Node does not report a channel that closed
 * before the child's code ran.
 */
function stopSignal(parent: number | undefined): Promise<string> {
  return new Promise((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
    if (parent === undefined) return;
    const gone = () => {
      clearInterval(check);
      resolve('the serving process is gone');
    };
    const check = setInterval(() => {
      if (process.ppid !== parent) gone();
    }, PARENT_CHECK_MS);
    check.unref();
    if (process.ppid !== parent) gone();
    if (process.channel) process.once('disconnect', gone);
  });
}

/**
 * Adds `by` to the nice value of every thread of this process (capped at 19) and returns the main
 * thread's new value. On Linux a thread's nice value is its own (setpriority on a thread id) and a
 * thread inherits its starter's, so the threads running now are each lowered (V8's, libuv's), and
 * those started later (the thread pool starts on first use) take the main thread's. Elsewhere the
 * process's priority is set.
 */
function lowerPriority(by: number, log: Logger): number {
  const current = os.getPriority();
  const target = Math.min(19, current + by);
  if (target === current) return current;
  let threads: number[] = [];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    // Not Linux: the process as a whole.
  }
  try {
    if (threads.length === 0) os.setPriority(target);
    for (const tid of threads) os.setPriority(tid, Math.max(target, os.getPriority(tid)));
  } catch (error) {
    log.warn({ err: error, nice: target }, 'could not lower the CPU priority of r3 work');
  }
  return os.getPriority();
}
