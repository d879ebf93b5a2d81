/**
 * Which uWebSockets.js r3 runs on. uWS is a native addon built per Node ABI, and no single package
 * ships builds for every Node r3 supports:
 *
 * - `@trufflesuite/uws-js-unofficial` (aliased as `uWebSockets.js`): ABIs 93/108/115 (Node 16–20),
 *   linked against glibc 2.27;
 * - `@btc-vision/uwebsockets.js`: ABIs 115/127/137/141 (Node 20/22/24/25), linked against glibc 2.38.
 *
 * At start r3 takes the first package that has a binary for this platform, architecture and ABI
 * and whose glibc need the running C library meets, and loads it. When none loads, it serves over
 * `node:http` through `uws-node.ts` — the same subset of the uWS API, slower — and says so.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { nodeHttpUws } from './uws-node.js';

/** The part of a uWS response r3's pipeline uses (`exchange.ts`, `stream.ts`); uWS's own type fits it. */
export interface UwsResponse {
  onAborted(handler: () => void): unknown;
  /** `chunk` is valid only during the call; `isLast` marks the body's end. */
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): unknown;
  /** Called when a socket that refused a write can take more; replaces the previous handler. */
  onWritable(handler: (offset: number) => boolean): unknown;
  writeStatus(status: string): unknown;
  writeHeader(key: string, value: string): unknown;
  /** False when the socket could not take it all (backpressure: wait for `onWritable`). */
  write(chunk: string | Uint8Array): boolean;
  end(body?: string | Uint8Array, closeConnection?: boolean): unknown;
  cork(cb: () => void): unknown;
  getRemoteAddressAsText(): ArrayBuffer;
}

/** The part of a uWS request r3 reads (all of it synchronously, in the handler). */
export interface UwsRequest {
  /** Lower case. */
  getMethod(): string;
  /** The path, without the query. */
  getUrl(): string;
  /** The query without its `?` (empty or undefined when there is none). */
  getQuery(): string | undefined;
  /** Every header, names in lower case. */
  forEach(cb: (key: string, value: string) => void): void;
}

/** An opaque listening socket. */
export type UwsListenSocket = object;

/** The part of a uWS app r3 uses. */
export interface UwsApp {
  any(pattern: string, handler: (res: UwsResponse, req: UwsRequest) => void): UwsApp;
  /** The native call takes listen options after the port; the typings lack that overload. */
  listen(host: string, port: number, options: number, cb: (socket: UwsListenSocket | false) => void): UwsApp;
}

/** The part of the uWS module r3 uses. */
export interface UwsApi {
  App(): UwsApp;
  us_socket_local_port(socket: UwsListenSocket): number;
  us_listen_socket_close(socket: UwsListenSocket): void;
}

/** One package that may carry a native build. */
export interface UwsPackage {
  /** The npm package name. */
  name: string;
  /** Folder of the `.node` files inside the package. */
  binaries: string;
  /** The glibc its Linux binaries were linked against (`major.minor`). */
  linuxGlibc: string;
}

export const UWS_PACKAGES: readonly UwsPackage[] = [
  { name: 'uWebSockets.js', binaries: 'binaries', linuxGlibc: '2.27' },
  { name: '@btc-vision/uwebsockets.js', binaries: '.', linuxGlibc: '2.38' },
];

/** What the choice depends on. `glibc` is null off glibc (musl, macOS, Windows). */
export interface UwsPlatform {
  platform: string;
  arch: string;
  /** `process.versions.modules`. */
  abi: string;
  glibc: string | null;
}

/** A native build to try: its package and the binary's file name. */
export interface UwsCandidate {
  pkg: UwsPackage;
  file: string;
}

function versionAtLeast(actual: string, wanted: string): boolean {
  const [a1 = 0, a2 = 0] = actual.split('.').map(Number);
  const [w1 = 0, w2 = 0] = wanted.split('.').map(Number);
  return a1 > w1 || (a1 === w1 && a2 >= w2);
}

/**
 * The native builds worth trying, best first: each package whose binary for this platform,
 * architecture and ABI exists (`has`) and, on Linux, whose glibc need the running C library meets.
 * Pure, so the choice is tested for ABIs and C libraries this machine does not have.
 */
export function uwsCandidates(
  target: UwsPlatform,
  has: (pkg: UwsPackage, file: string) => boolean,
  packages: readonly UwsPackage[] = UWS_PACKAGES,
): UwsCandidate[] {
  const file = `uws_${target.platform}_${target.arch}_${target.abi}.node`;
  return packages
    .filter((pkg) => {
      if (
        target.platform === 'linux' &&
        (target.glibc === null || !versionAtLeast(target.glibc, pkg.linuxGlibc))
      )
        return false;
      return has(pkg, file);
    })
    .map((pkg) => ({ pkg, file }));
}

/** The uWS r3 loaded, and what to say about it at start-up. */
export interface LoadedUws {
  api: UwsApi;
  /** `native` (a uWS binary) or `node-http` (the fallback). */
  kind: 'native' | 'node-http';
  /** The package and binary in use, or why none was. */
  detail: string;
}

function runningPlatform(): UwsPlatform {
  let glibc: string | null = null;
  if (process.platform === 'linux') {
    const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
    glibc = report?.header?.glibcVersionRuntime ?? null;
  }
  return { platform: process.platform, arch: process.arch, abi: process.versions.modules, glibc };
}

const require = createRequire(import.meta.url);

/** The installed package's folder (found as Node would; `exports` maps may hide package.json). */
function packageDir(name: string): string | null {
  for (const modules of require.resolve.paths(name) ?? []) {
    const dir = path.join(modules, name);
    if (existsSync(path.join(dir, 'package.json'))) return dir;
  }
  return null;
}

let native: LoadedUws | null = null;

/**
 * The uWS to serve on: the best native build for this process (looked for once), or the `node:http`
 * implementation when none loads or `engine` is `node` (R3_HTTP_ENGINE: to test it, or where a
 * native build misbehaves).
 */
export function loadUws(engine: 'auto' | 'node' = 'auto'): LoadedUws {
  if (engine === 'node') return { api: nodeHttpUws, kind: 'node-http', detail: 'R3_HTTP_ENGINE=node' };
  if (native) return native;
  const reasons: string[] = [];
  const target = runningPlatform();
  const dirs = new Map(UWS_PACKAGES.map((pkg) => [pkg.name, packageDir(pkg.name)]));
  const candidates = uwsCandidates(target, (pkg, file) => {
    const dir = dirs.get(pkg.name);
    return dir != null && existsSync(path.join(dir, pkg.binaries, file));
  });
  for (const { pkg, file } of candidates) {
    const dir = dirs.get(pkg.name) as string;
    try {
      const api = require(path.join(dir, pkg.binaries, file)) as UwsApi;
      // Without this, every response carries a `uWebSockets: 20` header naming the server.
      (api as { _cfg?: (setting: string) => void })._cfg?.('silent');
      native = { api, kind: 'native', detail: `${pkg.name} (${file})` };
      return native;
    } catch (error) {
      reasons.push(`${pkg.name}: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  if (candidates.length === 0) {
    reasons.push(
      `no build for ${target.platform}-${target.arch} ABI ${target.abi}` +
        (target.platform === 'linux' ? ` with glibc ${target.glibc ?? 'absent'}` : ''),
    );
  }
  native = { api: nodeHttpUws, kind: 'node-http', detail: reasons.join('; ') };
  return native;
}
