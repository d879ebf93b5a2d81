/**
 * `npm run bench:startup`: cold start of `r3 serve` to `GET /healthz` answering 200, on a database
 * that is already migrated (the common restart), for the compiled build r3 runs (`bin/r3.js`, after
 * the build is up to date) beside the TypeScript loader it ran on before (tsx), alternating them; and
 * on Node 22 with and without V8's compile cache.
 * Each start is a new process; the time runs from spawn to the first 200.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ensureBuilt } from '../ops/build.mjs';
import { createBenchDatabase, nodeBinary, percentiles, R3_BIN, ROOT, r3Cli } from './lib.js';

const STARTS = Number(process.env.BENCH_STARTS ?? 10);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Spawns `<node> <entry> serve`, polls /healthz every 2 ms, answers ms to the first 200, stops it. */
async function timeStart(
  entry: string,
  databaseUrl: string,
  node = process.execPath,
  env: Record<string, string> = {},
): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(node, [entry, 'serve'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      R3_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return performance.now() - started;
      await new Promise((r) => setTimeout(r, 2));
      if (performance.now() - started > 30_000) throw new Error(`${entry} not ready after 30 s`);
    }
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

const db = await createBenchDatabase('startup');
// Inside the checkout (an ignored folder), so the entry resolves the project's tsx.
mkdirSync(path.join(ROOT, '.cache'), { recursive: true });
const scratch = mkdtempSync(path.join(ROOT, '.cache', 'bench-startup-'));
// The loader r3 ran on before the compiled build: the same CLI through tsx.
const loaderEntry = path.join(scratch, 'r3-tsx.mjs');
writeFileSync(
  loaderEntry,
  "import { register } from 'tsx/esm/api';\nregister();\n" +
    `const { main } = await import(${JSON.stringify(path.join(ROOT, 'src/cli/main.ts'))});\n` +
    'process.exitCode = await main(process.argv.slice(2));\n',
);
try {
  await ensureBuilt();
  await r3Cli(['migrate'], { DATABASE_URL: db.url });
  // The entries, each a start of `r3 serve`: the compiled build and the loader on this Node and, when
  // its binary is at hand (BENCH_NODE22=0 leaves it out), the compiled build on Node 22 with V8's
  // compile cache (bin/r3.js enables it there) and without it.
  const entries: Array<{ label: string; start(): Promise<number> }> = [
    { label: 'compiled (bin/r3.js)', start: () => timeStart(R3_BIN, db.url) },
    { label: 'tsx loader', start: () => timeStart(loaderEntry, db.url) },
  ];
  const node22 = process.env.BENCH_NODE22 === '0' ? null : nodeBinary(22);
  if (node22) {
    const cache = path.join(scratch, 'compile-cache');
    entries.push(
      {
        label: 'compiled, Node 22',
        start: () => timeStart(R3_BIN, db.url, node22, { NODE_COMPILE_CACHE: cache }),
      },
      {
        label: 'compiled, Node 22 no cache',
        start: () => timeStart(R3_BIN, db.url, node22, { NODE_DISABLE_COMPILE_CACHE: '1' }),
      },
    );
  }
  const samples: Record<string, number[]> = Object.fromEntries(entries.map((e) => [e.label, []]));
  // One unmeasured start each warms the file-system cache (and fills the compile cache).
  for (const entry of entries) await entry.start();
  for (let i = 0; i < STARTS; i++) {
    for (const entry of entries) samples[entry.label]?.push(await entry.start());
  }
  console.log(
    `\nbench:startup — spawn to GET /healthz 200 on a migrated database, ${STARTS} starts each, alternating`,
  );
  console.log(
    'entry'.padEnd(28),
    'p50 ms'.padStart(8),
    'p90 ms'.padStart(8),
    'min ms'.padStart(8),
    'max ms'.padStart(8),
  );
  const medians: number[] = [];
  for (const [label, values] of Object.entries(samples)) {
    const p = percentiles(values);
    medians.push(p.p50);
    console.log(
      label.padEnd(28),
      p.p50.toFixed(0).padStart(8),
      p.p90.toFixed(0).padStart(8),
      Math.min(...values)
        .toFixed(0)
        .padStart(8),
      p.max.toFixed(0).padStart(8),
    );
  }
  const [compiled = 0, loader = 1] = medians;
  console.log(`compiled / loader (p50): ${((compiled / loader) * 100).toFixed(0)}%`);
  console.log(
    `goal: compiled under 1,000 ms — ${compiled < 1000 ? 'met' : 'not met'} (p50 ${compiled.toFixed(0)} ms)`,
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
  await db.drop();
}
