/**
 * The code of a run_code worker thread, as text: a worker is started from it with `eval: true`, so the
 * same code runs from the TypeScript sources (tests, tsx) and from the compiled build, with no worker
 * file to locate. It loads the QuickJS WebAssembly module once, then runs each script it is sent in a
 * fresh QuickJS runtime and context (nothing survives from one script to the next): memory limit,
 * stack limit, an interrupt at the deadline, `console.*` collected up to the output limit, `input` as
 * a frozen copy of the JSON given. The script's completion value (a promise is awaited) is answered as
 * JSON text. Nothing of the host is put in the context: no `process`, `require`, module loader, timers,
 * network or filesystem — QuickJS has none of its own.
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
const loaded = wasmModule.then((module) => {
  const variant = baseVariant.default ?? baseVariant;
  return core.newQuickJSWASMModuleFromVariant(module ? core.newVariant(variant, { wasmModule: module }) : variant);
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

async function run(job) {
  const QuickJS = await loaded;
  const started = Date.now();
  const deadline = started + job.timeoutMs;
  const runtime = QuickJS.newRuntime();
  let interrupted = false;
  let overflow = false;
  runtime.setMemoryLimit(job.memoryBytes);
  runtime.setMaxStackSize(job.stackBytes);
  runtime.setInterruptHandler(() => {
    if (Date.now() > deadline) interrupted = true;
    return interrupted || overflow;
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
          overflow = true;
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
          while (!interrupted && ctx.getPromiseState(valueHandle).type === 'pending') {
            const ran = runtime.executePendingJobs(64);
            if (ran.error) {
              errorHandle = ran.error;
              break;
            }
            if (ran.value === 0) break;
          }
          if (!errorHandle && !interrupted) {
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
    if (overflow) return { kind: 'limit', limit: 'output', stdout: '' };
    if (interrupted) return { kind: 'limit', limit: 'time', stdout };
    if (errorHandle) {
      const message = describe(ctx, errorHandle);
      errorHandle.dispose();
      if (/out of memory/i.test(message)) return { kind: 'limit', limit: 'memory', stdout };
      return { kind: 'ok', resultJson: 'null', stdout, error: message };
    }
    let resultJson = 'null';
    if (valueHandle) {
      const out = ctx.callFunction(stringify, json, valueHandle);
      valueHandle.dispose();
      if (out.error) {
        const message = describe(ctx, out.error);
        out.error.dispose();
        if (interrupted) return { kind: 'limit', limit: 'time', stdout };
        if (/out of memory/i.test(message)) return { kind: 'limit', limit: 'memory', stdout };
        return { kind: 'ok', resultJson: 'null', stdout, error: 'the result is not JSON: ' + message };
      }
      if (ctx.typeof(out.value) === 'string') resultJson = ctx.getString(out.value);
      out.value.dispose();
    }
    if (Buffer.byteLength(resultJson) + outputBytes > job.outputBytes) return { kind: 'limit', limit: 'output', stdout: '' };
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
    (answer) => parentPort.postMessage({ id: job.id, ...answer, recycle: disposeFailed }),
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
