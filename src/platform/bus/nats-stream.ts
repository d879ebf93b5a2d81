import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamManager,
  ReplayPolicy,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { ConsumerPatternConflictError } from './bus.js';
import type { Namespace } from './namespace.js';

/** Limits of the events stream. */
export interface EventStreamLimits {
  maxAgeMs: number;
  duplicateWindowMs: number;
  /** Copies in a JetStream cluster (1 on a single server). */
  replicas: number;
}

/** The part of a stream configuration r3 sets; the server defaults the rest. */
export type EventStreamConfig = Partial<StreamConfig> & Pick<StreamConfig, 'name' | 'subjects'>;

/** The server's answer to creating an existing stream with another configuration. */
const STREAM_NAME_IN_USE = 10058;
/**
 * The server's answer when another stream already listens on the subjects. nats-server 2.9 also
 * gives it to the loser of a race between two creations of the same stream.
 */
const STREAM_SUBJECT_OVERLAP = 10065;

/**
 * The events stream of a namespace: `<prefix>.evt.>` on file storage, limits retention (old
 * messages are discarded by age, never because nobody consumed them).
 * `ops/nats/r3-events-stream.json` is the same configuration for prefix `r3` with the defaults.
 */
export function eventStreamConfig(ns: Namespace, limits: EventStreamLimits): EventStreamConfig {
  return {
    name: ns.streamName,
    subjects: [ns.streamSubject],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: nanos(limits.maxAgeMs),
    duplicate_window: nanos(limits.duplicateWindowMs),
    num_replicas: limits.replicas,
  };
}

/**
 * Creates the stream or brings an existing one to `config`. Safe when several processes race:
 * creating with an identical configuration is a no-op on the server, and a differing one is updated.
 */
export async function ensureStream(jsm: JetStreamManager, config: EventStreamConfig): Promise<void> {
  try {
    await jsm.streams.add(config);
  } catch (err) {
    if (!(err instanceof JetStreamApiError)) throw err;
    if (err.code === STREAM_SUBJECT_OVERLAP && !(await streamExists(jsm, config.name))) throw err;
    if (err.code !== STREAM_NAME_IN_USE && err.code !== STREAM_SUBJECT_OVERLAP) throw err;
    await jsm.streams.update(config.name, {
      subjects: config.subjects,
      max_age: config.max_age,
      duplicate_window: config.duplicate_window,
      num_replicas: config.num_replicas,
      discard: config.discard,
    });
  }
}

async function streamExists(jsm: JetStreamManager, name: string): Promise<boolean> {
  try {
    await jsm.streams.info(name);
    return true;
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return false;
    throw err;
  }
}

/** What a durable consumer is made of. */
export interface DurableConsumerSpec {
  stream: string;
  durable: string;
  filter: string;
  ackWaitMs: number;
}

/**
 * Creates the durable pull consumer, or confirms an existing one. An existing consumer keeps its
 * filter: changing a durable's filter is refused (`ConsumerPatternConflictError`) because the
 * cursor would then mean something else, and because nats-server 2.9 stops delivering to a pull
 * consumer whose filter was edited.
 */
export async function ensureDurableConsumer(jsm: JetStreamManager, spec: DurableConsumerSpec): Promise<void> {
  try {
    const info = await jsm.consumers.info(spec.stream, spec.durable);
    const existing = info.config.filter_subject ?? info.config.filter_subjects?.join(',') ?? '';
    if (existing !== spec.filter) throw new ConsumerPatternConflictError(spec.durable, existing, spec.filter);
    // A consumer made by an earlier release (ack_wait was 30 s): brought to this one's.
    if (info.config.ack_wait !== nanos(spec.ackWaitMs)) {
      await jsm.consumers.update(spec.stream, spec.durable, { ack_wait: nanos(spec.ackWaitMs) });
      return;
    }
  } catch (err) {
    if (!(err instanceof JetStreamApiError) || err.code !== JetStreamApiCodes.ConsumerNotFound) throw err;
  }
  await jsm.consumers.add(spec.stream, {
    durable_name: spec.durable,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(spec.ackWaitMs),
    // Unlimited: a handler that keeps failing keeps retrying (with backoff) until the stream's max
    // age drops the message; giving up is the handler's decision, made from `deliveryCount`.
    max_deliver: -1,
    deliver_policy: DeliverPolicy.All,
    replay_policy: ReplayPolicy.Instant,
    filter_subject: spec.filter,
  });
}
