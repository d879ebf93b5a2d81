#!/usr/bin/env node
// The `r3` command. Runs the compiled JavaScript in dist/app/, building it first when the sources
// are newer (a fresh clone, a pull, an edit): see ops/build.mjs.
import { ensureBuilt } from '../ops/build.mjs';

await ensureBuilt();
const { main } = await import('../dist/app/src/cli/main.js');
process.exitCode = await main(process.argv.slice(2));
