import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createNamespace } from '../../src/platform/bus/namespace.js';

/**
 * Whether tests that need NATS run here. They run whenever NATS answers; when it does not they are
 * skipped with a printed reason, except under `CI`, where a missing NATS fails the suite:
 *
 * ```ts
 * const nats = await probeNats();
 * describe.skipIf(nats.skip)('…', () => {
 *   beforeAll(() => requireNats(nats));
 * ```
 */
export interface NatsProbe {
  url: string;
  /** NATS answered and JetStream is enabled. */
  reachable: boolean;
  /** `CI` is set (to anything but empty, `0` or `false`): NATS tests must run. */
  required: boolean;
  /** Skip the NATS tests (not reachable and not required). */
  skip: boolean;
  /** Why NATS is not usable, when it is not. */
  reason?: string;
}

/** The NATS the tests use: `NATS_URL`, else the machine's local server. */
export const TEST_NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** Connects once (1 s timeout, no reconnect) and checks JetStream; prints why when tests will be skipped. */
export async function probeNats(url: string = TEST_NATS_URL): Promise<NatsProbe> {
  const ci = process.env.CI?.trim().toLowerCase();
  const required = ci !== undefined && ci !== '' && ci !== '0' && ci !== 'false';
  let reason: string | undefined;
  try {
    const nc = await connect({ servers: url, timeout: 1_000, reconnect: false });
    try {
      await jetstreamManager(nc, { timeout: 1_000 });
    } finally {
      await nc.close();
    }
  } catch (err) {
    reason = err instanceof Error ? err.message : String(err);
  }
  const reachable = reason === undefined;
  const skip = !reachable && !required;
  if (skip) {
    console.warn(
      `[nats] NATS with JetStream is not reachable at ${url} (${reason}): skipping the tests that need it. ` +
        'Set CI=1 to make this a failure.',
    );
  }
  return { url, reachable, required, skip, ...(reason !== undefined ? { reason } : {}) };
}

/** For `beforeAll`: throws unless NATS is reachable (so under `CI` a missing NATS fails the suite). */
export function requireNats(probe: NatsProbe): void {
  if (!probe.reachable) {
    throw new Error(
      `NATS with JetStream is required (CI is set) but not reachable at ${probe.url}: ${probe.reason}`,
    );
  }
}

/** A prefix no other test file or run uses: lower-case, one token, e.g. `t_events_k3x9q2`. */
export function randomTestPrefix(label: string): string {
  const token = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 24);
  return `t_${token}_${Math.random().toString(36).slice(2, 8)}`;
}

/** Deletes the event streams of bus `prefixes` (their consumers go with them), when NATS answers. */
export async function deleteTestStreams(probe: NatsProbe, prefixes: readonly string[]): Promise<void> {
  if (!probe.reachable || prefixes.length === 0) return;
  const nc = await connect({ servers: probe.url });
  try {
    const jsm = await jetstreamManager(nc);
    for (const prefix of prefixes) {
      await jsm.streams.delete(createNamespace(prefix).streamName).catch(() => false);
    }
  } finally {
    await nc.close();
  }
}
