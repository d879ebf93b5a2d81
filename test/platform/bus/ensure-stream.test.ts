import { JetStreamApiError, type JetStreamManager } from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';
import { createNamespace } from '../../../src/platform/bus/namespace.js';
import { ensureStream, eventStreamConfig } from '../../../src/platform/bus/nats-stream.js';

const config = eventStreamConfig(createNamespace('r3t'), {
  maxAgeMs: 60_000,
  duplicateWindowMs: 10_000,
  replicas: 1,
});

const apiError = (err_code: number, description: string) =>
  new JetStreamApiError({ code: 400, err_code, description });
const overlap = () => apiError(10065, 'subjects overlap with an existing stream');

/** A manager whose `add` fails with `addError` and whose stream `name` exists or not. */
function scriptedManager(addError: Error, exists: boolean) {
  const updates: string[] = [];
  const jsm = {
    streams: {
      add: async () => {
        throw addError;
      },
      info: async (name: string) => {
        if (!exists) throw apiError(10059, 'stream not found');
        return { config: { name } };
      },
      update: async (name: string) => {
        updates.push(name);
        return { config: { name } };
      },
    },
  } as unknown as JetStreamManager;
  return { jsm, updates };
}

describe('ensureStream', () => {
  it('updates the stream when another process created it first (name in use)', async () => {
    const { jsm, updates } = scriptedManager(apiError(10058, 'stream name already in use'), true);
    await ensureStream(jsm, config);
    expect(updates).toEqual([config.name]);
  });

  it('updates the stream when the losing racer is told its subjects overlap with the winner', async () => {
    const { jsm, updates } = scriptedManager(overlap(), true);
    await ensureStream(jsm, config);
    expect(updates).toEqual([config.name]);
  });

  it('refuses to start when another stream holds the subjects', async () => {
    const { jsm, updates } = scriptedManager(overlap(), false);
    await expect(ensureStream(jsm, config)).rejects.toThrow('subjects overlap');
    expect(updates).toEqual([]);
  });

  it('passes other server errors on', async () => {
    const { jsm, updates } = scriptedManager(apiError(10047, 'insufficient resources'), true);
    await expect(ensureStream(jsm, config)).rejects.toThrow('insufficient resources');
    expect(updates).toEqual([]);
  });
});
