#!/usr/bin/env node
// The web UI's bundle: web/src/main.tsx (Preact) bundled by esbuild into dist/web/, every file named
// by its content hash (served with long-lived caching), plus manifest.json naming the entry script
// and stylesheet. `r3` (bin/r3.js, through ops/build.mjs) and the server itself build it when web/
// or the lockfile is newer than the last build, so there is no build step to remember.
//
//   node ops/web-build.mjs            build when stale
//   node ops/web-build.mjs --force    build always
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const WEB_DIST = path.join(ROOT, 'dist', 'web');
const WEB_SRC = path.join(ROOT, 'web');
/** What the bundle takes from outside web/: the vocabulary's constants (event names, statuses). */
const SHARED = path.join(ROOT, 'machines', 'shared');
const MANIFEST = 'manifest.json';

function filesBelow(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) filesBelow(full, out);
    else out.push(full);
  }
  return out;
}

/** Whether dist/web is missing or older than web/, machines/shared/, the lockfile or this script. */
export function isWebStale() {
  let built;
  try {
    built = statSync(path.join(WEB_DIST, MANIFEST)).mtimeMs;
  } catch {
    return true;
  }
  const inputs = [
    ...filesBelow(WEB_SRC),
    ...filesBelow(SHARED),
    fileURLToPath(import.meta.url),
    path.join(ROOT, 'package-lock.json'),
  ];
  return inputs.some((file) => existsSync(file) && statSync(file).mtimeMs > built);
}

/** Bundles into `outDir`: hashed chunks and the manifest `{script, style, files}`. */
export async function bundleWeb(outDir) {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [path.join(WEB_SRC, 'src', 'main.tsx')],
    outdir: outDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    minify: true,
    sourcemap: false,
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: path.join(WEB_SRC, 'tsconfig.json'),
    define: { 'process.env.NODE_ENV': '"production"' },
    metafile: true,
    legalComments: 'none',
    logLevel: 'error',
  });
  const outputs = Object.entries(result.metafile.outputs);
  const entry = outputs.find(([, meta]) => meta.entryPoint);
  if (!entry) throw new Error('web bundle: no entry output');
  const name = (file) => path.relative(outDir, path.resolve(ROOT, file));
  const manifest = {
    script: name(entry[0]),
    style: entry[1].cssBundle ? name(entry[1].cssBundle) : null,
    files: outputs.map(([file]) => name(file)),
  };
  writeFileSync(path.join(outDir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** Builds into a fresh folder and swaps it in (processes starting meanwhile see a whole bundle). */
export async function buildWeb() {
  const tmp = `${WEB_DIST}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    await bundleWeb(tmp);
    const old = `${WEB_DIST}.${process.pid}.old`;
    try {
      renameSync(WEB_DIST, old);
    } catch {
      // None yet, or another process is swapping its build in.
    }
    try {
      renameSync(tmp, WEB_DIST);
    } catch (error) {
      // Another process swapped in its build first: it is as fresh as this one.
      if (!existsSync(path.join(WEB_DIST, MANIFEST))) throw error;
      rmSync(tmp, { recursive: true, force: true });
    }
    rmSync(old, { recursive: true, force: true });
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    throw error;
  }
}

/** Builds when stale; answers whether it built. */
export async function ensureWebBuilt() {
  if (!isWebStale()) return false;
  await buildWeb();
  return true;
}

if (process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url) {
  const force = process.argv.includes('--force');
  const started = performance.now();
  let built = true;
  if (force) await buildWeb();
  else built = await ensureWebBuilt();
  const ms = Math.round(performance.now() - started);
  process.stderr.write(built ? `r3: built dist/web in ${ms} ms\n` : 'r3: dist/web is up to date\n');
}
