/**
 * run_code's sandbox on the host side: a small pool of worker threads, each with the QuickJS
 * WebAssembly module loaded (sandbox-worker.ts), so a script never blocks the event loop that serves
 * HTTP, and a fresh QuickJS runtime per script makes the cold start of a call a runtime, not a module.
 * The module is compiled once per process and handed to each new worker, which only instantiates it.
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
  ready: Promise<void>;
  job: Job | null;
  watchdog: NodeJS.Timeout | null;
}

const WATCHDOG_GRACE_MS = 1_000;

/** A pool of `size` sandbox workers. */
export class Sandbox {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  /** How many workers `warm` asked for: a retired one is replaced at once up to this many. */
  private keepWarm = 0;

  constructor(
    readonly limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS,
    private readonly size = 2,
  ) {}

  /** Starts `count` workers and loads the module in each (what a first call would otherwise wait for). */
  async warm(count = this.size): Promise<void> {
    this.keepWarm = Math.min(count, this.size);
    while (this.slots.length < Math.min(count, this.size)) this.slots.push(this.spawn());
    await Promise.all(this.slots.map((slot) => slot.ready));
  }

  /** Runs `code` with `input` bound to a frozen copy of `inputJson`. Never rejects. */
  run(code: string, inputJson: string): Promise<SandboxOutcome> {
    if (this.closed) return Promise.resolve({ kind: 'crash', message: 'the sandbox is closed' });
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

  private pump(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.job === null);
      if (!slot && this.slots.length < this.size) {
        slot = this.spawn();
        this.slots.push(slot);
      }
      if (!slot) return;
      const job = this.queue.shift() as Job;
      this.start(slot, job);
    }
  }

  private start(slot: Slot, job: Job): void {
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
    if (slot.watchdog) clearTimeout(slot.watchdog);
    slot.watchdog = null;
    job.resolve(outcome);
    if (recycle || outcome.kind !== 'ok') {
      const index = this.slots.indexOf(slot);
      if (index >= 0) this.slots.splice(index, 1);
      void this.retire(slot, null);
      // The replacement loads its module now, not when the next script arrives.
      if (!this.closed && this.queue.length === 0 && this.slots.length < this.keepWarm) {
        this.slots.push(this.spawn());
      }
    }
    this.pump();
  }

  private spawn(): Slot {
    // The compiled module goes with the start-up data when there is one already, else in a message
    // once compiled (the worker starts meanwhile).
    const module = compiledModule;
    const worker = new Worker(SANDBOX_WORKER_SOURCE, {
      eval: true,
      workerData: { ...PATHS, wasmModule: module, moduleFollows: module === null },
      // The worker's own heap (the WebAssembly memory is outside it and bounded by QuickJS's limit).
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
      stdout: true,
      stderr: true,
    });
    worker.unref();
    let markReady: () => void = () => undefined;
    const slot: Slot = {
      worker,
      job: null,
      watchdog: null,
      ready: new Promise<void>((resolve) => {
        markReady = resolve;
      }),
    };
    worker.on('message', (message: { ready?: boolean; id?: number; recycle?: boolean } & SandboxOutcome) => {
      if (message.ready !== undefined) {
        markReady();
        return;
      }
      if (slot.job && message.id === slot.job.id) {
        const { id: _id, recycle, ...outcome } = message;
        this.finish(slot, outcome as SandboxOutcome, recycle === true);
      }
    });
    const fail = (error: unknown) => {
      markReady();
      const index = this.slots.indexOf(slot);
      if (index >= 0) this.slots.splice(index, 1);
      if (slot.job) {
        const job = slot.job;
        slot.job = null;
        if (slot.watchdog) clearTimeout(slot.watchdog);
        job.resolve({ kind: 'crash', message: String(error) });
      }
      this.pump();
    };
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
    slot.worker.on('error', () => undefined);
    await slot.worker.terminate();
  }
}
