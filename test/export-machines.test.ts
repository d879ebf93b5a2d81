import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportMachines, machineDefinitionJson } from '../src/export-machines.js';
import { featureMachines as machines } from '../src/features.js';

const MACHINE_KINDS = Object.keys(machines) as Array<keyof typeof machines>;

describe('machines exporter', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'r3-machines-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes one JSON file per kind, equal to the machine definition', async () => {
    const written = await exportMachines(dir);
    expect((await readdir(dir)).sort()).toEqual(MACHINE_KINDS.map((kind) => `${kind}.json`).sort());
    expect(written).toHaveLength(MACHINE_KINDS.length);
    for (const kind of MACHINE_KINDS) {
      const text = await readFile(join(dir, `${kind}.json`), 'utf8');
      const definition: unknown = JSON.parse(text);
      expect(definition).toEqual(JSON.parse(JSON.stringify(machines[kind].toJSON())));
      expect(definition).toMatchObject({ id: kind, version: '1' });
      expect(text.endsWith('}\n')).toBe(true);
    }
  });

  it('is stable: exporting twice gives the same bytes', async () => {
    await exportMachines(dir);
    const first = await readFile(join(dir, 'workflow-run.json'), 'utf8');
    await exportMachines(dir);
    expect(await readFile(join(dir, 'workflow-run.json'), 'utf8')).toBe(first);
    expect(first).toBe(machineDefinitionJson('workflow-run'));
  });

  it('names every action and guard, so the definition reads without the code', () => {
    for (const kind of MACHINE_KINDS) {
      expect(machineDefinitionJson(kind)).not.toMatch(/"actions": \[[^\]]*null/);
    }
  });

  it('registers each machine under its own id', () => {
    for (const kind of MACHINE_KINDS) {
      expect(machines[kind].id).toBe(kind);
    }
  });
});
