/**
 * run_code's sandbox on the host side: a small pool of worker threads, each with the QuickJS
 * WebAssembly module loaded (sandbox-worker.ts), so a script never blocks the event loop that serves
 * HTTP, and a fresh QuickJS runtime per script makes the cold start of a call a runtime, not a module
 * (nor a worker: a spare is kept ready, see `Sandbox`). The module is compiled once per process and
 * handed to each new worker, which only instantiates it.
 *
 * Limits (docs/mcp.md#built-in-tools): memory (QuickJS's allocator limit), time (QuickJS's interrupt handler
 * at the deadline, and a watchdog that terminates the worker if a single native operation overruns it by a
 * second), output (`console.*` plus the result's JSON). A worker that hit a limit or failed is
 * replaced, so nothing a script did survives into the next one.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
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

/** What a script did: its JSON result, what it printed, its uncaught error; or the limit it hit. */
export type SandboxOutcome =
  | { kind: 'ok'; resultJson: string; stdout: string; error: string | null }
  | { kind: 'limit'; limit: 'time' | 'memory' | 'output'; stdout: string }
  | { kind: 'crash'; message: string };

interface Job {
  id: number;
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
 * worker bootstrap alone is 55–100 ms). A script waits only for a *ready* worker: a burst beyond the
 * spares queues for whichever comes first, a worker finishing its script or a new one becoming ready.
 * Workers are reused, a fresh QuickJS runtime per script; one that hit a limit or crashed is replaced.
 * A worker keeps the process alive only while it runs a script or one is waiting for it.
 */
export class Sandbox {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  /** Set by `warm` or the first call: from then on `spares` idle workers are kept ready. */
  private keepSpares = false;

  constructor(
    readonly limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS,
    private readonly size = 2,
    private readonly spares = 1,
  ) {}

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

  /** Runs `code` with `input` bound to a frozen copy of `inputJson`. Never rejects. */
  run(code: string, inputJson: string): Promise<SandboxOutcome> {
    if (this.closed) return Promise.resolve({ kind: 'crash', message: 'the sandbox is closed' });
    this.keepSpares = true;
    return new Promise((resolve) => {
      this.queue.push({ id: this.nextId++, code, inputJson, resolve });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.resolve({ kind: 'crash', message: 'the sandbox is closed' });
    await Promise.all(this.slots.splice(0).map((slot) => this.retire(slot, 'the sandbox is closed')));
  }

  /** Hands queued scripts to idle workers, then starts the workers the queue and the spares need. */
  private pump(): void {
    for (const slot of this.slots) {
      const job = slot.state === 'idle' ? this.queue.shift() : undefined;
      if (job) this.start(slot, job);
    }
    this.replenish();
    // Only running scripts and the workers that waiting ones will get keep the process alive.
    for (const slot of this.slots) {
      if (slot.state === 'busy' || (slot.state === 'booting' && this.queue.length > 0)) slot.worker.ref();
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
    // A worker started for a waiting script skips the primer (the script does the same).
    for (let missing = this.queue.length - booting; missing > 0 && this.slots.length < this.size; missing--) {
      this.slots.push(this.spawn(false));
    }
    const spareWanted = this.keepSpares && this.queue.length === 0 && booting === 0 && idle < this.spares;
    if (spareWanted && this.slots.length < this.size) this.slots.push(this.spawn(true));
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

  private finish(slot: Slot, outcome: SandboxOutcome, recycle: boolean): void {
    const job = slot.job;
    if (!job) return;
    slot.job = null;
    slot.state = 'idle';
    if (slot.watchdog) clearTimeout(slot.watchdog);
    slot.watchdog = null;
    job.resolve(outcome);
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
    const worker = new Worker(SANDBOX_WORKER_SOURCE, {
      eval: true,
      workerData: { ...PATHS, wasmModule: module, moduleFollows: module === null, prime },
      // The worker's own heap (the WebAssembly memory is outside it and bounded by QuickJS's limit).
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
      const job = slot.job ?? (booting ? this.queue.shift() : undefined);
      slot.job = null;
      if (booting) this.keepSpares = false;
      void this.retire(slot, null);
      job?.resolve({ kind: 'crash', message: String(error) });
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
