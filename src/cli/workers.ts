/**
 * The worker processes of `r3 serve` (R3_WORKER_PROCESSES): each an `r3 work` child with the same
 * environment, restarted when it exits unexpectedly, stopped with the server. The serving process
 * then runs no workers and no webhook dispatcher (`withJobs` in platform.ts): its event loop answers
 * requests only, and the children lower their CPU priority (`lowerPriority` in work.ts), so a run's
 * accept does not wait behind other runs' execution (issue 37; docs/performance.md, "Accepts while
 * workers execute").
 *
 * A child that dies is replaced after a second, or after up to 30 s when it keeps dying within ten
 * seconds of its start; its claimed jobs go back to the queue at once (worker liveness:
 * src/platform/jobs/liveness.ts). A child also stops when its parent goes, even by `kill -9`: it
 * watches the IPC channel between them and whether it has been reparented (`--parent`, work.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Logger } from '../platform/log.js';

export interface WorkerProcesses {
  /** Stops restarting, sends SIGTERM and waits; SIGKILL after `timeoutMs`. */
  stop(timeoutMs: number): Promise<void>;
}

export interface WorkerProcessOptions {
  count: number;
  log: Logger;
}

const QUICK_EXIT_MS = 10_000;
const MAX_RESTART_DELAY_MS = 30_000;

/** Starts `count` `r3 work` children of this process. */
export function startWorkerProcesses(options: WorkerProcessOptions): WorkerProcesses {
  const { count, log } = options;
  // The script that runs this CLI (`bin/r3.js`, or the installed `r3`).
  const script = process.argv[1];
  if (!script) throw new Error('worker processes: no CLI script to start them with');
  const exited = new Map<ChildProcess, Promise<void>>();
  const delays = Array.from({ length: count }, () => 1_000);
  const timers = new Set<NodeJS.Timeout>();
  let stopping = false;

  const startSlot = (slot: number) => {
    const startedAt = Date.now();
    const child = spawn(
      process.execPath,
      [...process.execArgv, script, 'work', '--parent', String(process.pid)],
      {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        env: process.env,
      },
    );
    exited.set(
      child,
      new Promise((resolve) => {
        child.once('exit', (code, signal) => {
          exited.delete(child);
          resolve();
          if (stopping) return;
          // Quick deaths back off (a bad deployment must not spin); a long life resets the delay.
          const delay = Date.now() - startedAt < QUICK_EXIT_MS ? delays[slot] : 1_000;
          delays[slot] = Math.min(MAX_RESTART_DELAY_MS, (delay ?? 1_000) * 2);
          log.error({ child: child.pid, code, signal, restartInMs: delay }, 'a worker process exited');
          const timer = setTimeout(() => {
            timers.delete(timer);
            if (!stopping) startSlot(slot);
          }, delay);
          timers.add(timer);
        });
      }),
    );
    child.once('error', (error) => log.error({ err: error }, 'a worker process could not start'));
    log.info({ child: child.pid, slot }, 'worker process started');
  };

  for (let slot = 0; slot < count; slot++) startSlot(slot);

  return {
    async stop(timeoutMs) {
      stopping = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const running = [...exited.entries()];
      for (const [child] of running) child.kill('SIGTERM');
      const kill = setTimeout(() => {
        for (const [child] of running)
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }, timeoutMs);
      await Promise.all(running.map(([, done]) => done));
      clearTimeout(kill);
    },
  };
}
