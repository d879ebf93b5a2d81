/**
 * The web UI's bundle as the server holds it: built by ops/web-build.mjs into dist/web/ (rebuilt at
 * start when web/ is newer), then read into memory once, each file with its gzip form, and the page
 * shell that loads it.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

/** One file of the bundle. */
export interface BundleFile {
  body: Buffer;
  gzip: Buffer | null;
  contentType: string;
}

/** The bundle: its files by name and the HTML shell every page is served as. */
export interface WebBundle {
  files: ReadonlyMap<string, BundleFile>;
  shell: string;
}

interface Manifest {
  script: string;
  style: string | null;
  files: string[];
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
};

/** The checkout (or installed package) root: the nearest folder above with ops/web-build.mjs. */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, 'ops', 'web-build.mjs'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new Error('web UI: cannot find ops/web-build.mjs above the server');
    dir = up;
  }
}

/** Builds the bundle when stale, then reads it. */
export async function loadWebBundle(): Promise<WebBundle> {
  const root = packageRoot();
  const builder = (await import(pathToFileURL(path.join(root, 'ops', 'web-build.mjs')).href)) as {
    ensureWebBuilt(): Promise<boolean>;
    WEB_DIST: string;
  };
  await builder.ensureWebBuilt();
  const dir = builder.WEB_DIST;
  const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  const files = new Map<string, BundleFile>();
  for (const name of manifest.files) {
    const body = await readFile(path.join(dir, name));
    const contentType = TYPES[path.extname(name)] ?? 'application/octet-stream';
    files.set(name, { body, gzip: body.length > 1024 ? gzipSync(body) : null, contentType });
  }
  return { files, shell: shellHtml(manifest) };
}

/** The page every UI path answers: the stylesheet and the module script, nothing inline. */
function shellHtml(manifest: Manifest): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    '<title>r3</title>',
    manifest.style ? `<link rel="stylesheet" href="/assets/${manifest.style}">` : '',
    `<script type="module" src="/assets/${manifest.script}"></script>`,
    '</head>',
    '<body><div id="app"></div></body>',
    '</html>',
    '',
  ].join('\n');
}
