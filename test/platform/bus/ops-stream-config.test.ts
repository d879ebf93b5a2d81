import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { BUS_DEFAULTS } from '../../../src/platform/bus/bus.js';
import { createNamespace } from '../../../src/platform/bus/namespace.js';
import { eventStreamConfig } from '../../../src/platform/bus/nats-stream.js';

describe('ops/nats/r3-events-stream.json', () => {
  it('is the stream the bus creates for the default prefix', async () => {
    const file = new URL('../../../ops/nats/r3-events-stream.json', import.meta.url);
    const onDisk: unknown = JSON.parse(await readFile(file, 'utf8'));
    const built = eventStreamConfig(createNamespace(), {
      maxAgeMs: BUS_DEFAULTS.streamMaxAgeMs,
      duplicateWindowMs: BUS_DEFAULTS.duplicateWindowMs,
      replicas: 1,
    });
    expect(onDisk).toEqual(built);
  });
});
