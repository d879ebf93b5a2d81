#!/usr/bin/env node
// The `r3` command. Runs the compiled JavaScript in dist/app/, building it first when the sources
// are newer (a fresh clone, a pull, an edit): see ops/build.mjs.
import module from 'node:module';
import { ensureBuilt } from '../ops/build.mjs';

// Node 22.1+: V8's compiled code for every module r3 loads is kept on disk (under the system's
// temporary folder, or NODE_COMPILE_CACHE) and reused by later starts; Node 20 has no such cache.
module.enableCompileCache?.();
await ensureBuilt();
const { main } = await import('../dist/app/src/cli/main.js');
process.exitCode = await main(process.argv.slice(2));
