/**
 * The code of a run_code worker thread, as text: a worker is started from it with `eval: true`, so the
 * same code runs from the TypeScript sources (tests, tsx) and from the compiled build, with no worker
 * file to locate. It loads the QuickJS WebAssembly module once, then runs each script it is sent in a
 * fresh QuickJS runtime and context (nothing survives from one script to the next): memory limit,
 * stack limit, an interrupt at the deadline, `console.*` collected up to the output limit, `input` as
 * a frozen copy of the JSON given. The script's completion value (a promise is awaited) is answered as
 * JSON text. Nothing of the host is put in the context: no `process`, `require`, module loader, timers,
 * network or filesystem — QuickJS has none of its own.
 *
 * The memory limit is the WebAssembly memory's own maximum: the module is given a memory that starts
 * at the size the build expects (16 MiB) and may grow by the limit, no further. QuickJS's allocator
 * limit alone does not hold in this build: its allocator counts each block's usable size, which the
 * Emscripten build reports as 0, so only single allocations over the limit were refused while any
 * number of smaller ones (typed arrays, strings, arrays) accumulated up to the 2 GiB the module allows.
 * Every allocation of the script lands in that memory, so the maximum bounds them all; an allocation
 * past it fails inside QuickJS as "out of memory". A memory that grew never shrinks: the worker says
 * so after the script, and the host replaces it.
 */
export const SANDBOX_WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const core = require(workerData.corePath);
const baseVariant = require(workerData.variantPath);
let moduleArrived = () => undefined;
// The host's compiled module: in the start-up data, or in a first message once compiled (null: the
// host could not compile it, and the variant loads its own).
const wasmModule = workerData.moduleFollows
  ? new Promise((resolve) => {
      moduleArrived = resolve;
    })
  : Promise.resolve(workerData.wasmModule);
const PAGE = 65536;
const INITIAL_BYTES = 16 * 1024 * 1024;
const memory = new WebAssembly.Memory({
  initial: INITIAL_BYTES / PAGE,
  maximum: INITIAL_BYTES / PAGE + Math.ceil(workerData.memoryBytes / PAGE),
});
// The module grows its memory through this call; a refusal means an allocation hit the limit (the
// module may then try a smaller step, so a refusal alone is not a failed allocation).
let growRefused = false;
const grow = memory.grow;
memory.grow = (pages) => {
  try {
    return grow.call(memory, pages);
  } catch (error) {
    growRefused = true;
    throw error;
  }
};
const loaded = wasmModule.then((module) => {
  const variant = baseVariant.default ?? baseVariant;
  return core.newQuickJSWASMModuleFromVariant(
    core.newVariant(variant, module ? { wasmModule: module, wasmMemory: memory } : { wasmMemory: memory }),
  );
});

function describe(ctx, handle) {
  try {
    const text = ctx.dump(handle);
    if (text && typeof text === 'object') {
      const name = text.name ?? 'Error';
      return text.message !== undefined ? name + ': ' + text.message : JSON.stringify(text);
    }
    return String(text);
  } catch {
    return 'Error';
  }
}

let disposeFailed = false;

// A script that runs long gives way: past DEMOTE_AFTER_MS its worker thread takes the lowest CPU
// priority (Linux: the nice value is per thread), so the event loop that serves HTTP and the workers
// running other scripts come first on a busy machine; the host replaces a demoted worker afterwards
// (a thread cannot take its priority back without privileges). Elsewhere, nothing changes.
const DEMOTE_AFTER_MS = 250;
let demoted = false;
let threadId = null;
try {
  threadId = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
} catch {}
function demote() {
  if (demoted || threadId === null) return;
  demoted = true;
  try {
    require('node:os').setPriority(threadId, 19);
  } catch {}
}

/**
 * Runs a script (see \`execute\`) and holds its answer to the limits whatever the script did on the
 * way: a script that filled its output or ran past its deadline — while the host read its thrown value
 * or result, say (a getter or Proxy trap that never returns) — is that limit, not a success; a script
 * that ended in an error after an allocation was refused at the memory's maximum is the memory limit
 * (the error itself may be unreadable then: reading it needs memory too).
 */
async function run(job) {
  const QuickJS = await loaded;
  growRefused = false;
  const state = { interrupted: false, overflow: false };
  let answer;
  try {
    answer = execute(QuickJS, job, state);
  } catch (error) {
    // The module itself failed (a trap): at the memory's maximum, that is the memory limit.
    if (growRefused) return { kind: 'limit', limit: 'memory', stdout: '' };
    throw error;
  }
  if (state.overflow) return { kind: 'limit', limit: 'output', stdout: '' };
  if (state.interrupted) return { kind: 'limit', limit: 'time', stdout: answer.stdout ?? '' };
  if (answer.kind === 'ok' && answer.error !== null && growRefused) return { kind: 'limit', limit: 'memory', stdout: answer.stdout };
  return answer;
}

function execute(QuickJS, job, state) {
  const started = Date.now();
  const deadline = started + job.timeoutMs;
  const runtime = QuickJS.newRuntime();
  runtime.setMemoryLimit(job.memoryBytes);
  runtime.setMaxStackSize(job.stackBytes);
  const demoteAt = started + DEMOTE_AFTER_MS;
  runtime.setInterruptHandler(() => {
    const now = Date.now();
    if (now > deadline) state.interrupted = true;
    if (now > demoteAt) demote();
    return state.interrupted || state.overflow;
  });
  const ctx = runtime.newContext();
  let stdout = '';
  let outputBytes = 0;
  const handles = [];
  try {
    // The intrinsic JSON.stringify, taken before the script runs: the result is answered as valid
    // JSON text even if the script replaced JSON or JSON.stringify.
    const json = ctx.getProp(ctx.global, 'JSON');
    handles.push(json);
    const stringify = ctx.getProp(json, 'stringify');
    handles.push(stringify);
    const consoleHandle = ctx.newObject();
    handles.push(consoleHandle);
    for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
      const fn = ctx.newFunction(level, (...args) => {
        const line = args
          .map((arg) => {
            const type = ctx.typeof(arg);
            if (type === 'string') return ctx.getString(arg);
            const out = ctx.callFunction(stringify, json, arg);
            if (out.error) {
              out.error.dispose();
              return String(ctx.dump(arg));
            }
            const text = ctx.typeof(out.value) === 'string' ? ctx.getString(out.value) : String(ctx.dump(out.value));
            out.value.dispose();
            return text;
          })
          .join(' ') + '\n';
        outputBytes += Buffer.byteLength(line);
        if (outputBytes > job.outputBytes) {
          // Stops the script at the next interrupt check, even if it catches this error.
          state.overflow = true;
          throw new Error('output limit exceeded');
        }
        stdout += line;
      });
      ctx.setProp(consoleHandle, level, fn);
      fn.dispose();
    }
    ctx.setProp(ctx.global, 'console', consoleHandle);
    const inputResult = ctx.evalCode('Object.freeze(JSON.parse(' + JSON.stringify(job.inputJson) + '))', 'input.js');
    if (inputResult.error) {
      inputResult.error.dispose();
      return { kind: 'limit', limit: 'memory', stdout: '' };
    }
    ctx.setProp(ctx.global, 'input', inputResult.value);
    inputResult.value.dispose();

    const evaluated = ctx.evalCode(job.code, 'script.js', { type: 'global', strict: false });
    let valueHandle = null;
    let errorHandle = null;
    if (evaluated.error) errorHandle = evaluated.error;
    else {
      valueHandle = evaluated.value;
      if (ctx.typeof(valueHandle) === 'object') {
        // A promise (an async function's answer): run its jobs until it settles or time runs out.
        const isPromise = ctx.evalCode('(v) => v instanceof Promise');
        const test = ctx.callFunction(isPromise.value, ctx.undefined, valueHandle);
        isPromise.value.dispose();
        const promise = !test.error && ctx.dump(test.value) === true;
        if (test.error) test.error.dispose();
        else test.value.dispose();
        if (promise) {
          while (!state.interrupted && ctx.getPromiseState(valueHandle).type === 'pending') {
            const ran = runtime.executePendingJobs(64);
            if (ran.error) {
              errorHandle = ran.error;
              break;
            }
            if (ran.value === 0) break;
          }
          if (!errorHandle && !state.interrupted) {
            const final = ctx.getPromiseState(valueHandle);
            valueHandle.dispose();
            valueHandle = null;
            if (final.type === 'fulfilled') valueHandle = final.value;
            else if (final.type === 'rejected') errorHandle = final.error;
            else return { kind: 'ok', resultJson: 'null', stdout, error: 'Error: the promise the script returned never settled' };
          }
        }
      }
    }
    if (state.overflow || state.interrupted) return { kind: 'limit', limit: state.overflow ? 'output' : 'time', stdout };
    if (errorHandle) {
      // Reading the error may run the script's code (getters, Proxy traps): \`run\` holds it to the limits.
      const message = describe(ctx, errorHandle);
      errorHandle.dispose();
      if (/out of memory/i.test(message)) return { kind: 'limit', limit: 'memory', stdout };
      if (Buffer.byteLength(message) + outputBytes > job.outputBytes) state.overflow = true;
      return { kind: 'ok', resultJson: 'null', stdout, error: message };
    }
    let resultJson = 'null';
    if (valueHandle) {
      const out = ctx.callFunction(stringify, json, valueHandle);
      valueHandle.dispose();
      if (out.error) {
        const message = describe(ctx, out.error);
        out.error.dispose();
        if (/out of memory/i.test(message)) return { kind: 'limit', limit: 'memory', stdout };
        return { kind: 'ok', resultJson: 'null', stdout, error: 'the result is not JSON: ' + message };
      }
      if (ctx.typeof(out.value) === 'string') resultJson = ctx.getString(out.value);
      out.value.dispose();
    }
    if (Buffer.byteLength(resultJson) + outputBytes > job.outputBytes) state.overflow = true;
    return { kind: 'ok', resultJson, stdout, error: null };
  } finally {
    for (const handle of handles) if (handle.alive) handle.dispose();
    try {
      ctx.dispose();
      runtime.dispose();
    } catch {
      // A runtime stopped mid-way (out of memory, interrupted) may hold objects it cannot free: the
      // host replaces this worker, so the next script gets a fresh WebAssembly instance.
      disposeFailed = true;
    }
  }
}

parentPort.on('message', (job) => {
  if ('wasmModule' in job) {
    moduleArrived(job.wasmModule);
    return;
  }
  run(job).then(
    // A memory that grew stays grown: the host replaces the worker, and the process gives it back.
    (answer) => parentPort.postMessage({ id: job.id, ...answer, recycle: disposeFailed || demoted || memory.buffer.byteLength > INITIAL_BYTES }),
    (error) => parentPort.postMessage({ id: job.id, kind: 'crash', message: String(error && error.stack || error) }),
  );
});
// A spare runs one small script once the module is loaded, before it says it is ready (the host sends
// scripts only to ready workers): V8 compiles the glue and the WebAssembly code paths a script takes
// now rather than during the first real call. A worker started for a waiting script skips it.
const PRIME = { code: 'JSON.stringify([1, "a", { b: null }].map((x) => x))', inputJson: '{}', memoryBytes: 8 << 20, stackBytes: 256 << 10, timeoutMs: 1000, outputBytes: 1 << 16 };
loaded
  .then(() => (workerData.prime ? run(PRIME) : undefined))
  .then(() => parentPort.postMessage({ ready: true }), (error) => parentPort.postMessage({ ready: false, message: String(error) }));
`;
