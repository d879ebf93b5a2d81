/**
 * Which uWS build r3 serves on: the choice by platform, architecture, Node ABI and glibc (tested for
 * the Node versions and C libraries this machine does not have), and what this process loads.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  loadUws,
  UWS_PACKAGES,
  type UwsPackage,
  type UwsPlatform,
  uwsCandidates,
} from '../../../src/platform/http/uws.js';

/** The binaries each package ships (as of @trufflesuite/uws-js-unofficial 20.30, @btc-vision 20.57). */
const shipped: Record<string, string[]> = {
  'uWebSockets.js': ['93', '108', '115'].flatMap((abi) =>
    ['linux_x64', 'linux_arm64', 'darwin_x64', 'darwin_arm64', 'win32_x64'].map(
      (p) => `uws_${p}_${abi}.node`,
    ),
  ),
  '@btc-vision/uwebsockets.js': ['115', '127', '137', '141'].flatMap((abi) =>
    ['linux_x64', 'linux_arm64', 'darwin_x64', 'darwin_arm64', 'win32_x64'].map(
      (p) => `uws_${p}_${abi}.node`,
    ),
  ),
};
const has = (pkg: UwsPackage, file: string) => shipped[pkg.name]?.includes(file) ?? false;
const choose = (target: UwsPlatform) => uwsCandidates(target, has).map((c) => `${c.pkg.name}/${c.file}`);
const linux = (abi: string, glibc: string | null): UwsPlatform => ({
  platform: 'linux',
  arch: 'x64',
  abi,
  glibc,
});

describe('choosing a native uWS build', () => {
  it('takes the unofficial build for Node 20 on glibc 2.36, and nothing else (the other needs 2.38)', () => {
    expect(choose(linux('115', '2.36'))).toEqual(['uWebSockets.js/uws_linux_x64_115.node']);
  });

  it('tries both builds for Node 20 on glibc 2.38, the unofficial one first', () => {
    expect(choose(linux('115', '2.38'))).toEqual([
      'uWebSockets.js/uws_linux_x64_115.node',
      '@btc-vision/uwebsockets.js/uws_linux_x64_115.node',
    ]);
  });

  it.each([
    ['22', '127'],
    ['24', '137'],
    ['25', '141'],
  ])('takes the @btc-vision build for Node %s (ABI %s) on glibc 2.38 and later', (_node, abi) => {
    for (const glibc of ['2.38', '2.39', '2.41', '3.0']) {
      expect(choose(linux(abi, glibc))).toEqual([`@btc-vision/uwebsockets.js/uws_linux_x64_${abi}.node`]);
    }
  });

  it('has no build for Node 22 or 24 on glibc older than 2.38, or off glibc (musl)', () => {
    expect(choose(linux('127', '2.36'))).toEqual([]);
    expect(choose(linux('137', '2.37'))).toEqual([]);
    expect(choose(linux('127', null))).toEqual([]);
  });

  it('needs no glibc off Linux, and no build for an ABI nobody ships', () => {
    expect(choose({ platform: 'darwin', arch: 'arm64', abi: '137', glibc: null })).toEqual([
      '@btc-vision/uwebsockets.js/uws_darwin_arm64_137.node',
    ]);
    expect(choose(linux('131', '2.40'))).toEqual([]);
  });

  it('matches what is installed: each package ships the binaries this test assumes', () => {
    expect(UWS_PACKAGES.map((p) => p.name)).toEqual(Object.keys(shipped));
    for (const pkg of UWS_PACKAGES) {
      const dir = path.join('node_modules', pkg.name, pkg.binaries);
      const onDisk = readdirSync(dir).filter((f) =>
        /^uws_(linux_(x64|arm64)|darwin_(x64|arm64)|win32_x64)_\d+\.node$/.test(f),
      );
      expect(onDisk.sort()).toEqual([...(shipped[pkg.name] ?? [])].sort());
    }
  });
});

describe('the uWS this process loads', () => {
  it('is a native build when one exists for this Node and C library, else node:http saying why', () => {
    const loaded = loadUws('auto');
    const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
    const glibc = report.header?.glibcVersionRuntime ?? null;
    const target: UwsPlatform = {
      platform: process.platform,
      arch: process.arch,
      abi: process.versions.modules,
      glibc,
    };
    if (uwsCandidates(target, has).length > 0) {
      expect(loaded.kind).toBe('native');
      expect(loaded.detail).toContain(`_${process.versions.modules}.node`);
      expect(typeof loaded.api.App).toBe('function');
    } else {
      expect(loaded.kind).toBe('node-http');
      expect(loaded.detail).toMatch(/no build for|GLIBC/);
    }
    expect(loadUws('auto')).toBe(loaded);
  });

  it('is node:http when R3_HTTP_ENGINE is node', () => {
    expect(loadUws('node')).toMatchObject({ kind: 'node-http', detail: 'R3_HTTP_ENGINE=node' });
  });
});
