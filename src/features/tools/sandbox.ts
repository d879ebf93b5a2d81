/**
 * run_code's sandbox on the host side: a small pool of worker threads, each with the QuickJS
 * WebAssembly module loaded (sandbox-worker.ts), so a script never blocks the event loop that serves
 * HTTP, and a fresh QuickJS runtime per script makes the cold start of a call a runtime, not a module
 * (nor a worker: a spare is kept ready, see `Sandbox`). The module is compiled once per process and
 * handed to each new worker, which only instantiates it.
 *
 * Limits (docs/mcp.md#built-in-tools): memory (the worker's WebAssembly memory cannot grow past the
 * limit, whatever allocates it — see sandbox-worker.ts), time (QuickJS's interrupt handler at the
 * deadline, and a watchdog that terminates the worker if a single native operation overruns it by a
 * second), output (`console.*`, the uncaught error and the result's JSON). A worker that hit a limit,
 * failed, or whose memory grew is replaced, so nothing a script did survives into the next one and
 * the process's memory returns to its level.
 *
 * The pool is shared fairly between owners (orgs, see fair-queue.ts): a queue per owner, at most
 * `perOwner` scripts of one owner at once, round-robin across owners, and the last idle worker kept
 * for an owner running nothing.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { FairQueue, type FairShare } from './fair-queue.js';
import { SANDBOX_WORKER_SOURCE } from './sandbox-worker.js';

const require = createRequire(import.meta.url);
const PATHS = {
  corePath: require.resolve('quickjs-emscripten-core'),
  variantPath: require.resolve('@jitl/quickjs-wasmfile-release-sync'),
};

/** A compiled WebAssembly module, opaque here (the project's TypeScript libs do not declare WebAssembly's values). */
type WasmModule = object;
const { WebAssembly: wasm } = globalThis as unknown as {
  WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> };
};

/**
 * The QuickJS WebAssembly module, compiled once per process and handed to every worker, which then
 * only instantiates it: a new worker does not read and compile 0.5 MB of WebAssembly again. Null if it
 * could not be compiled here (each worker then loads it itself).
 */
let compiled: Promise<WasmModule | null> | null = null;
/** The module once compiled (a worker started after that gets it with its start-up data). */
let compiledModule: WasmModule | null = null;

function quickjsModule(): Promise<WasmModule | null> {
  compiled ??= readFile(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm'))
    .then((bytes) => wasm.compile(bytes))
    .then(
      (module) => {
        compiledModule = module;
        return module;
      },
      () => null,
    );
  return compiled;
}

export interface SandboxLimits {
  memoryBytes: number;
  timeoutMs: number;
  outputBytes: number;
  stackBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  memoryBytes: 64 * 1024 * 1024,
  timeoutMs: 5_000,
  outputBytes: 1024 * 1024,
  stackBytes: 1024 * 1024,
};

/**
 * What a script did: its JSON result, what it printed, its uncaught error; or the limit it hit; or
 * `busy` when its owner already had `queuePerOwner` scripts waiting (it did not run).
 */
export type SandboxOutcome =
  | { kind: 'ok'; resultJson: string; stdout: string; error: string | null }
  | { kind: 'limit'; limit: 'time' | 'memory' | 'output'; stdout: string }
  | { kind: 'busy'; queued: number }
  | { kind: 'crash'; message: string };

/** The pool: its workers, the idle ones kept ready, and how owners share it. */
export interface SandboxPool extends FairShare {
  /** Workers at most. */
  size: number;
  /** Idle workers kept ready (once warmed or used). */
  spares: number;
}

export const DEFAULT_SANDBOX_POOL: SandboxPool = { size: 2, spares: 1, perOwner: 1, queuePerOwner: 32 };

interface Job {
  id: number;
  owner: string;
  code: string;
  inputJson: string;
  resolve(outcome: SandboxOutcome): void;
}

interface Slot {
  worker: Worker;
  /** booting: loading the module and running the primer; idle: ready for a script; busy: running one. */
  state: 'booting' | 'idle' | 'busy';
  /** Resolves once the worker is ready or failed to start. */
  ready: Promise<void>;
  job: Job | null;
  watchdog: NodeJS.Timeout | null;
}

const WATCHDOG_GRACE_MS = 1_000;

/**
 * A pool of at most `size` sandbox workers that keeps `spares` of them idle and ready (module loaded,
 * primed) once warmed or first used: a call is served by a ready worker, and taking the last spare
 * starts another in the background, so the next call does not wait for a worker to start (Node's
 * worker bootstrap alone is long: docs/performance.md, "Choices in the code"). A script waits only for a *ready* worker: a burst beyond the
 * spares queues for whichever comes first, a worker finishing its script or a new one becoming ready.
 * Workers are reused, a fresh QuickJS runtime per script; one that hit a limit, crashed or whose memory
 * grew is replaced. A worker keeps the process alive only while it runs a script or one is waiting for it.
 *
 * Fair shares (`FairQueue`): scripts wait in their owner's queue and start round-robin across owners,
 * at most `perOwner` of one owner at once. The last `spares` idle workers (fewer when the pool is that
 * small) go only to an owner running nothing with nothing else waiting: an owner that floods the pool
 * waits for a worker to free or start, while another owner's script starts at once on the spare.
 */
export class Sandbox {
  private readonly slots: Slot[] = [];
  private readonly queue: FairQueue<Job>;
  private nextId = 1;
  private spawned = 0;
  private closed = false;
  /** Set by `warm` or the first call: from then on `spares` idle workers are kept ready. */
  private keepSpares = false;
  /** Idle workers only an owner running nothing may take. */
  private readonly reserve: number;
  readonly limits: SandboxLimits;
  readonly pool: SandboxPool;

  constructor(options: { limits?: SandboxLimits; pool?: Partial<SandboxPool> } = {}) {
    this.limits = options.limits ?? DEFAULT_SANDBOX_LIMITS;
    this.pool = { ...DEFAULT_SANDBOX_POOL, ...options.pool };
    this.queue = new FairQueue(this.pool);
    this.reserve = Math.min(this.pool.spares, this.pool.size - 1);
  }

  /** Workers started so far (replacements included). */
  get started(): number {
    return this.spawned;
  }

  /** Scripts waiting for a worker, all owners together. */
  get waiting(): number {
    return this.queue.size;
  }

  /** How many workers are starting, idle and running a script. */
  get workers(): { booting: number; idle: number; busy: number } {
    const count = (state: Slot['state']) => this.slots.filter((slot) => slot.state === state).length;
    return { booting: count('booting'), idle: count('idle'), busy: count('busy') };
  }

  /** Starts the spare workers (what a first call would otherwise wait for); resolves once they are ready. */
  async warm(): Promise<void> {
    if (this.closed) return;
    this.keepSpares = true;
    this.replenish();
    await Promise.all(this.slots.map((slot) => slot.ready));
  }

  /**
   * Runs `code` for `owner` (an org: see the class) with `input` bound to a frozen copy of
   * `inputJson`. Never rejects.
   */
  run(code: string, inputJson: string, owner = ''): Promise<SandboxOutcome> {
    if (this.closed) return Promise.resolve({ kind: 'crash', message: 'the sandbox is closed' });
    this.keepSpares = true;
    return new Promise((resolve) => {
      if (!this.queue.push(owner, { id: this.nextId++, owner, code, inputJson, resolve })) {
        resolve({ kind: 'busy', queued: this.pool.queuePerOwner });
        return;
      }
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.drain()) job.resolve({ kind: 'crash', message: 'the sandbox is closed' });
    await Promise.all(this.slots.splice(0).map((slot) => this.retire(slot, 'the sandbox is closed')));
  }

  /** Hands queued scripts to idle workers, then starts the workers the queue and the spares need. */
  private pump(): void {
    let idle = this.slots.filter((slot) => slot.state === 'idle').length;
    for (const slot of this.slots) {
      if (slot.state !== 'idle') continue;
      // Beyond the reserve any owner below its share may start; the reserve only an owner that runs
      // nothing and has nothing else waiting.
      const free = idle;
      const job = this.queue.take(
        ({ running, waiting }) => free > this.reserve || (running === 0 && waiting === 1),
      );
      if (!job) break;
      idle--;
      this.start(slot, job);
    }
    this.replenish();
    // Only running scripts and the workers that waiting ones will get keep the process alive.
    const waiting = this.queue.size > 0;
    for (const slot of this.slots) {
      if (slot.state === 'busy' || (slot.state === 'booting' && waiting)) slot.worker.ref();
      else slot.worker.unref();
    }
  }

  /**
   * Starts workers, up to `size`: one for each waiting script no starting worker will take, and,
   * with nothing waiting, a spare when fewer than `spares` are idle — one at a time, so a spare's start
   * does not slow another's (the next one starts when it is ready).
   */
  private replenish(): void {
    if (this.closed) return;
    const { booting, idle } = this.workers;
    const startable = this.queue.startable;
    const { size, spares } = this.pool;
    // A worker started for a waiting script skips the primer (the script does the same).
    for (let missing = startable - booting; missing > 0 && this.slots.length < size; missing--) {
      this.slots.push(this.spawn(false));
    }
    const spareWanted = this.keepSpares && booting === 0 && idle < spares;
    if (spareWanted && this.slots.length < size) this.slots.push(this.spawn(true));
  }

  private start(slot: Slot, job: Job): void {
    slot.state = 'busy';
    slot.job = job;
    slot.watchdog = setTimeout(() => {
      // One native operation ran past the deadline without reaching an interrupt check.
      this.finish(slot, { kind: 'limit', limit: 'time', stdout: '' }, true);
    }, this.limits.timeoutMs + WATCHDOG_GRACE_MS);
    slot.watchdog.unref();
    slot.worker.postMessage({
      id: job.id,
      code: job.code,
      inputJson: job.inputJson,
      memoryBytes: this.limits.memoryBytes,
      stackBytes: this.limits.stackBytes,
      timeoutMs: this.limits.timeoutMs,
      outputBytes: this.limits.outputBytes,
    });
  }

  /** Answers a job that was taken from the queue: its owner may start another. */
  private settle(job: Job, outcome: SandboxOutcome): void {
    this.queue.finished(job.owner);
    job.resolve(outcome);
  }

  private finish(slot: Slot, outcome: SandboxOutcome, recycle: boolean): void {
    const job = slot.job;
    if (!job) return;
    slot.job = null;
    slot.state = 'idle';
    if (slot.watchdog) clearTimeout(slot.watchdog);
    slot.watchdog = null;
    this.settle(job, outcome);
    if (recycle || outcome.kind !== 'ok') {
      // Nothing a script did survives it: the worker goes, and pump starts a replacement.
      this.remove(slot);
      void this.retire(slot, null);
    }
    this.pump();
  }

  private remove(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
  }

  private spawn(prime: boolean): Slot {
    // The compiled module goes with the start-up data when there is one already, else in a message
    // once compiled (the worker starts meanwhile).
    const module = compiledModule;
    this.spawned++;
    const worker = new Worker(SANDBOX_WORKER_SOURCE, {
      eval: true,
      workerData: {
        ...PATHS,
        wasmModule: module,
        moduleFollows: module === null,
        prime,
        memoryBytes: this.limits.memoryBytes,
      },
      // The worker's own heap (the WebAssembly memory is outside it, bounded by the worker itself).
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
      stdout: true,
      stderr: true,
    });
    worker.unref();
    let markReady: () => void = () => undefined;
    const slot: Slot = {
      worker,
      state: 'booting',
      job: null,
      watchdog: null,
      ready: new Promise<void>((resolve) => {
        markReady = resolve;
      }),
    };
    const fail = (error: unknown) => {
      markReady();
      if (!this.slots.includes(slot)) return;
      this.remove(slot);
      const booting = slot.state === 'booting';
      // The script it ran fails; a worker that could not start fails the first script waiting (the
      // others get another worker) and stops the spares until a call asks again, so a module that
      // cannot load is not restarted in a loop.
      const job = slot.job ?? (booting ? this.queue.take() : undefined);
      slot.job = null;
      if (booting) this.keepSpares = false;
      void this.retire(slot, null);
      if (job) this.settle(job, { kind: 'crash', message: String(error) });
      this.pump();
    };
    worker.on(
      'message',
      (message: { ready?: boolean; message?: string; id?: number; recycle?: boolean } & SandboxOutcome) => {
        if (message.ready !== undefined) {
          if (!message.ready) return fail(new Error(`sandbox worker did not start: ${message.message}`));
          markReady();
          if (slot.state === 'booting') slot.state = 'idle';
          this.pump();
          return;
        }
        if (slot.job && message.id === slot.job.id) {
          const { id: _id, recycle, ...outcome } = message;
          this.finish(slot, outcome as SandboxOutcome, recycle === true);
        }
      },
    );
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`sandbox worker exited (${code})`)));
    if (module === null) void quickjsModule().then((wasmModule) => worker.postMessage({ wasmModule }));
    return slot;
  }

  private async retire(slot: Slot, reason: string | null): Promise<void> {
    if (slot.watchdog) clearTimeout(slot.watchdog);
    if (slot.job && reason) slot.job.resolve({ kind: 'crash', message: reason });
    slot.job = null;
    slot.worker.removeAllListeners('exit');
    slot.worker.removeAllListeners('error');
    slot.worker.removeAllListeners('message');
    slot.worker.on('error', () => undefined);
    await slot.worker.terminate();
  }
}
