/**
 * run_code's worker pool (src/features/tools/sandbox.ts): a script on a reused worker finds nothing of
 * the scripts before it; a spare is kept ready and another started when it is taken; a burst beyond
 * the spares is served; a worker that hit a limit is replaced while waiting scripts are served; a
 * worker keeps the process alive only while a script needs it; close ends everything.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_LIMITS, Sandbox, type SandboxOutcome } from '../../../src/features/tools/sandbox.js';

const sandboxes: Sandbox[] = [];
const newSandbox = (...args: ConstructorParameters<typeof Sandbox>) => {
  const sandbox = new Sandbox(...args);
  sandboxes.push(sandbox);
  return sandbox;
};
afterAll(async () => {
  for (const sandbox of sandboxes) await sandbox.close();
});

/** The script's result, parsed; fails on anything but a clean completion. */
async function result(sandbox: Sandbox, code: string, input: unknown = null): Promise<unknown> {
  const outcome = await sandbox.run(code, JSON.stringify(input));
  if (outcome.kind !== 'ok' || outcome.error) throw new Error(`script failed: ${JSON.stringify(outcome)}`);
  return JSON.parse(outcome.resultJson);
}

// What a script sees of its own world: the global object's names, and whether the built-ins behave.
const INSPECT = `({
  globals: Object.getOwnPropertyNames(globalThis).sort(),
  prototypes: [Object, Array, Function, String, Promise].map((C) => Object.getOwnPropertyNames(C.prototype).length),
  polluted: ({}).polluted === undefined && [].polluted === undefined,
  map: [1, 2].map((x) => x * 2),
  json: JSON.stringify({ a: [1] }),
  random: Math.random() !== 4,
  declared: [typeof leak, typeof late, typeof declared, typeof lexical, typeof fn, typeof ticks].join(),
  input,
})`;

describe('Sandbox', () => {
  it('a script on a reused worker sees nothing of the scripts before it', async () => {
    // One worker: every script runs on it.
    const sandbox = newSandbox({ pool: { size: 1, spares: 1 } });
    await sandbox.warm();
    const clean = await result(sandbox, INSPECT, { n: 1 });
    const first = await sandbox.run(
      `globalThis.leak = 'secret';
       Object.prototype.polluted = 'yes';
       Array.prototype.map = function () { return 'hijacked' };
       Function.prototype.extra = 1; String.prototype.extra = 1; Promise.prototype.extra = 1;
       JSON.stringify = () => 'hijacked';
       Math.random = () => 4;
       var declared = 1; let lexical = 2; function fn() {}
       // Jobs left queued, and a promise never settled, when the script ends.
       Promise.resolve().then(() => { globalThis.late = 1 });
       var ticks = 0; (async () => { for (;;) { await null; ticks++ } })();
       console.log = () => {};
       'first'`,
      JSON.stringify({ secret: 's3cr3t' }),
    );
    expect(first).toMatchObject({ kind: 'ok', resultJson: '"first"', error: null });
    expect(sandbox.workers).toEqual({ booting: 0, idle: 1, busy: 0 });
    // The next script on the same worker: the same world as before, its own input, a working console.
    expect(await result(sandbox, INSPECT, { n: 1 })).toEqual(clean);
    expect(await sandbox.run('console.log(typeof input.secret); 0', '{"n":2}')).toMatchObject({
      kind: 'ok',
      stdout: 'undefined\n',
    });
    expect(sandbox.workers).toEqual({ booting: 0, idle: 1, busy: 0 });
  });

  it('keeps a spare ready: a call takes it and another starts; a burst beyond it is served by both', async () => {
    const sandbox = newSandbox({ pool: { size: 2, spares: 1 } });
    expect(sandbox.workers).toEqual({ booting: 0, idle: 0, busy: 0 });
    await sandbox.warm();
    expect(sandbox.workers).toEqual({ booting: 0, idle: 1, busy: 0 });
    const call = result(sandbox, '6*7');
    // Taken at once by the ready worker; the next spare starts meanwhile.
    expect(sandbox.workers).toEqual({ booting: 1, idle: 0, busy: 1 });
    expect(await call).toBe(42);
    await sandbox.warm();
    expect(sandbox.workers).toEqual({ booting: 0, idle: 2, busy: 0 });
    const burst = await Promise.all(Array.from({ length: 12 }, (_, i) => result(sandbox, 'input * 2', i)));
    expect(burst).toEqual(Array.from({ length: 12 }, (_, i) => i * 2));
    // Never more workers than the pool's size.
    expect(sandbox.workers).toEqual({ booting: 0, idle: 2, busy: 0 });
  });

  it('serves a call on a pool nobody warmed, and the waiting scripts while a worker that hit a limit is replaced', async () => {
    const sandbox = newSandbox({
      limits: { ...DEFAULT_SANDBOX_LIMITS, timeoutMs: 200 },
      pool: { size: 1, spares: 1 },
    });
    expect(await result(sandbox, '1+1')).toBe(2);
    const looping = sandbox.run('while (true) {}', 'null');
    const waiting = [result(sandbox, '"after"'), result(sandbox, 'typeof globalThis.x')];
    expect(await looping).toEqual({ kind: 'limit', limit: 'time', stdout: '' });
    expect(await Promise.all(waiting)).toEqual(['after', 'undefined']);
  });

  it('holds the memory limit whatever allocates it, and replaces a worker whose memory grew', async () => {
    // Time enough for the slowest of these on a busy machine: the memory limit is what must stop them.
    const sandbox = newSandbox({
      limits: { ...DEFAULT_SANDBOX_LIMITS, timeoutMs: 60_000 },
      pool: { size: 1, spares: 1 },
    });
    await sandbox.warm();
    const memory: SandboxOutcome = { kind: 'limit', limit: 'memory', stdout: '' };
    for (const code of [
      // Each allocation well under the limit, kept alive together: typed arrays, strings, arrays,
      // objects, an ArrayBuffer resized in place.
      'const a = []; for (let i = 0; i < 1000; i++) a.push(new Uint8Array(1e6)); a.length',
      'const a = []; for (let i = 0; i < 1000; i++) a.push("x".repeat(4e6) + i); a.length',
      'const a = []; for (let i = 0; i < 1000; i++) a.push(new Array(1e6).fill(i)); a.length',
      'const a = []; for (let i = 0; i < 1000; i++) a.push(Array.from({ length: 1e5 }, (_, k) => ({ k }))); a.length',
      'let a = []; for (let i = 0; ; i++) a.push(i)',
    ]) {
      expect(await sandbox.run(code, 'null'), code).toEqual(memory);
    }
    // A script that used 24 MB and ended well: its answer, and then a fresh worker.
    const before = sandbox.started;
    expect(
      await result(
        sandbox,
        'const k = []; for (let i = 0; i < 24; i++) k.push(new Uint8Array(1e6)); k.length',
      ),
    ).toBe(24);
    await sandbox.warm();
    expect(sandbox.started).toBe(before + 1);
    // A small one keeps its worker.
    expect(await result(sandbox, '[1, 2].length')).toBe(2);
    await sandbox.warm();
    expect(sandbox.started).toBe(before + 1);
  });

  it('shares the pool between owners: one flooding it waits behind its own scripts, another starts on the spare', async () => {
    const sandbox = newSandbox({ pool: { size: 2, spares: 1, perOwner: 1, queuePerOwner: 3 } });
    await sandbox.warm();
    let floodSettled = false;
    const flood = Array.from({ length: 4 }, () => sandbox.run('while (true) {}', 'null', 'a'));
    void Promise.all(flood).then(() => {
      floodSettled = true;
    });
    // Beyond its queue the flooding owner is refused at once (one runs, three wait).
    expect(await sandbox.run('1', 'null', 'a')).toEqual({ kind: 'busy', queued: 3 });
    for (const n of [1, 2, 3]) {
      expect(await sandbox.run(`${n} + 1`, 'null', 'b')).toMatchObject({
        kind: 'ok',
        resultJson: String(n + 1),
      });
    }
    // All of that while the flooding owner's first script still runs.
    expect(floodSettled).toBe(false);
    expect(sandbox.workers.busy).toBe(1);
    await sandbox.close();
  });

  it('ends waiting and running scripts when closed, and answers later calls as closed', async () => {
    const sandbox = newSandbox({ pool: { size: 1, spares: 1 } });
    await sandbox.warm();
    const running = sandbox.run('while (true) {}', 'null');
    const waiting = sandbox.run('1', 'null');
    await sandbox.close();
    const closed: SandboxOutcome = { kind: 'crash', message: 'the sandbox is closed' };
    expect(await running).toEqual(closed);
    expect(await waiting).toEqual(closed);
    expect(await sandbox.run('1', 'null')).toEqual(closed);
    expect(sandbox.workers).toEqual({ booting: 0, idle: 0, busy: 0 });
  });

  it('keeps the process alive while a script runs or waits, and not for idle workers', async () => {
    // A process with nothing else to do: it stays for its scripts' answers (the first one waits for
    // a worker to start), then exits with its spare and the worker idle, never closed.
    const module = path.resolve(
      path.dirname(fileURLToPath(import.meta.url)),
      '../../../src/features/tools/sandbox.ts',
    );
    const script = `
      import { Sandbox } from ${JSON.stringify(module)};
      const sandbox = new Sandbox();
      const first = await sandbox.run('let s = 0; for (let i = 0; i < 300000; i++) s += i; s', 'null');
      const second = await sandbox.run('"second"', 'null');
      console.log(JSON.stringify([first.resultJson, second.resultJson]));`;
    const dir = await mkdtemp(path.join(tmpdir(), 'r3-sandbox-'));
    const file = path.join(dir, 'alive.mts');
    await writeFile(file, script);
    const child = spawn(process.execPath, ['--import', 'tsx', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    // Bounds a hang (a worker that keeps the process alive when idle), which then fails below.
    const hang = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearTimeout(hang);
    await rm(dir, { recursive: true, force: true });
    expect({ code, output }).toEqual({ code: 0, output: `${JSON.stringify(['44999850000', '"second"'])}\n` });
  });
});
