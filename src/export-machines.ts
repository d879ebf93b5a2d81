/**
 * Writes each persisted actor kind's machine definition (`machine.toJSON()`) to
 * `machines/exported/<kind>.json`, for review diffs and visualisers: `npm run machines:export`. The
 * kinds are the features' (src/features.ts). Pretty-printed with a trailing newline; the output
 * depends only on the definitions, so re-running it without changes is a no-op.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type FeatureMachines, featureMachines } from './features.js';

/** A persisted actor kind. */
type Kind = keyof FeatureMachines;

/** Where `npm run machines:export` writes. */
export const DEFAULT_EXPORT_DIR = fileURLToPath(new URL('../machines/exported/', import.meta.url));

/** The exported JSON text of one machine's definition. */
export function machineDefinitionJson(kind: Kind): string {
  return `${JSON.stringify(featureMachines[kind].toJSON(), null, 2)}\n`;
}

/** Writes `<kind>.json` for every machine into `dir` (created if missing); returns the paths written. */
export async function exportMachines(dir: string = DEFAULT_EXPORT_DIR): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const kind of Object.keys(featureMachines) as Kind[]) {
    const path = join(dir, `${kind}.json`);
    await writeFile(path, machineDefinitionJson(kind));
    written.push(path);
  }
  return written;
}

const invokedPath = process.argv[1];
if (invokedPath !== undefined && import.meta.url === pathToFileURL(resolve(invokedPath)).href) {
  for (const path of await exportMachines()) {
    console.log(`wrote ${path}`);
  }
}
