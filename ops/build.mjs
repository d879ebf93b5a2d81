#!/usr/bin/env node
// The build: src/ and machines/ compiled to JavaScript under dist/app/ (one file per module, same
// layout, so relative imports hold), which is what `r3` runs. esbuild only transpiles — types are
// checked by `npm run typecheck` — so a rebuild takes well under a second and `r3` can afford to
// make one whenever the sources are newer than the last build (a fresh clone, a pull, an edit).
//
// Other outputs join the build by adding a step to STEPS. The web UI's bundle is built beside it, into
// dist/web/ with its own staleness check (ops/web-build.mjs): `ensureBuilt` and `--force` make both.
//
//   node ops/build.mjs            build when stale
//   node ops/build.mjs --force    build always
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildWeb, ensureWebBuilt } from './web-build.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = path.join(ROOT, 'dist', 'app');
const STAMP = '.built';

/** Every file below `dir` whose name passes `keep`. */
function filesBelow(dir, keep, out = []) {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) filesBelow(full, keep, out);
    else if (keep(entry.name)) out.push(full);
  }
  return out;
}

const isSource = (name) => name.endsWith('.ts') && !name.endsWith('.d.ts');

/** The inputs whose change makes the build stale. */
function inputs() {
  return [
    ...filesBelow(path.join(ROOT, 'src'), isSource),
    ...filesBelow(path.join(ROOT, 'machines'), isSource),
    fileURLToPath(import.meta.url),
    path.join(ROOT, 'package-lock.json'),
  ];
}

/** Whether dist/app is missing or older than any input. */
export function isStale() {
  let built;
  try {
    built = statSync(path.join(DIST, STAMP)).mtimeMs;
  } catch {
    return true;
  }
  return inputs().some((file) => existsSync(file) && statSync(file).mtimeMs > built);
}

/** The server's modules: each .ts under src/ and machines/ becomes a .js beside its peers. */
async function compileServer(outDir) {
  const { build } = await import('esbuild');
  const entryPoints = inputs().filter((file) => file.endsWith('.ts'));
  await build({
    entryPoints,
    outdir: outDir,
    outbase: ROOT,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'error',
  });
}

/** Build steps, in order; each writes below the output folder it is given. */
export const STEPS = [compileServer];

/**
 * Builds into a fresh folder and swaps it in, so a process starting meanwhile sees either the old
 * build or the new one, never half of one (several r3 processes may start at once on a stale tree).
 */
export async function build() {
  const tmp = `${DIST}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    for (const step of STEPS) await step(tmp);
    writeFileSync(path.join(tmp, 'package.json'), '{"type":"module"}\n');
    writeFileSync(path.join(tmp, STAMP), `${new Date().toISOString()}\n`);
    const old = `${DIST}.${process.pid}.old`;
    if (existsSync(DIST)) renameSync(DIST, old);
    renameSync(tmp, DIST);
    rmSync(old, { recursive: true, force: true });
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    throw error;
  }
}

/** Builds the server and the web bundle, each when stale; answers whether it built either. */
export async function ensureBuilt() {
  const web = await ensureWebBuilt();
  if (!isStale()) return web;
  await build();
  return true;
}

if (process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url) {
  const force = process.argv.includes('--force');
  const started = performance.now();
  let built = true;
  if (force) {
    await build();
    await buildWeb();
  } else built = await ensureBuilt();
  const ms = Math.round(performance.now() - started);
  process.stderr.write(built ? `r3: built dist/app in ${ms} ms\n` : 'r3: dist/app is up to date\n');
}
