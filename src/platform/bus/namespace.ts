import { BUS_DEFAULTS } from './bus.js';
import {
  assertPattern,
  assertSubject,
  assertUnderRoot,
  EVENT_ROOT,
  InvalidSubjectError,
  LIVE_ROOT,
  SIGNAL_ROOT,
  subjectToken,
} from './subjects.js';

/**
 * A bus's namespace: maps relative subjects to wire subjects under `<prefix>.` and back, and names
 * the stream and durable consumers. Both bus implementations use it, so they agree on every name.
 */
export interface Namespace {
  readonly prefix: string;
  /** JetStream stream name: the prefix upper-cased + `_EVENTS` (`r3` → `R3_EVENTS`). */
  readonly streamName: string;
  /** Wire subjects the stream captures: `<prefix>.evt.>`. */
  readonly streamSubject: string;
  /** Wire subject of a durable event (validated, must be under `evt.`). */
  eventSubject(subject: string): string;
  /** Wire subject of a signal (validated, must be under `sig.`). */
  signalSubject(subject: string): string;
  /** Wire subject of an announced event (validated, must be under `evt.`): `<prefix>.live.…`. */
  announceSubject(subject: string): string;
  /** Wire pattern of a live subscription (validated; any root). */
  subscribePattern(pattern: string): string;
  /**
   * The second wire pattern a live subscription to `pattern` listens on, for announced events:
   * `<prefix>.live.…` for a pattern under `evt.`; null for any other (a pattern starting with a
   * wildcard matches `<prefix>.live.…` already).
   */
  announcedPattern(pattern: string): string | null;
  /** Wire filter of a durable consumer (validated, must be under `evt.`). */
  consumerFilter(pattern: string): string;
  /** Durable consumer name on the wire: `<prefix>_<name>`. */
  durableName(name: string): string;
  /** Subject relative to the prefix, from a wire subject (an announced event's is its `evt.…` subject). */
  relative(wireSubject: string): string;
}

/**
 * Prefixes are one lower-case token, so upper-casing into the stream name is injective and no prefix
 * is another's sub-namespace (`r3` vs `r3.staging` would overlap under `r3.>`).
 */
const PREFIX = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Builds the namespace of `prefix` (default `r3`); throws `InvalidSubjectError` on a bad prefix. */
export function createNamespace(prefix: string = BUS_DEFAULTS.prefix): Namespace {
  if (!PREFIX.test(prefix)) {
    throw new InvalidSubjectError(
      `bus prefix ${JSON.stringify(prefix)} must be one lower-case token (a-z, 0-9, _ or -, at most 64)`,
    );
  }
  const wire = (relative: string): string => `${prefix}.${relative}`;
  /** The wire twin of an `evt.…` subject or pattern on the announced root (`<prefix>.live.…`). */
  const liveWire = (underEvents: string): string =>
    wire(`${LIVE_ROOT}${underEvents.slice(EVENT_ROOT.length)}`);
  return {
    prefix,
    streamName: `${prefix.toUpperCase()}_EVENTS`,
    streamSubject: wire(`${EVENT_ROOT}.>`),
    eventSubject(subject) {
      assertSubject(subject);
      assertUnderRoot(subject, EVENT_ROOT, 'event subject');
      return wire(subject);
    },
    signalSubject(subject) {
      assertSubject(subject);
      assertUnderRoot(subject, SIGNAL_ROOT, 'signal subject');
      return wire(subject);
    },
    announceSubject(subject) {
      assertSubject(subject);
      assertUnderRoot(subject, EVENT_ROOT, 'event subject');
      return liveWire(subject);
    },
    subscribePattern(pattern) {
      assertPattern(pattern);
      return wire(pattern);
    },
    announcedPattern(pattern) {
      assertPattern(pattern);
      return pattern.startsWith(`${EVENT_ROOT}.`) ? liveWire(pattern) : null;
    },
    consumerFilter(pattern) {
      assertPattern(pattern);
      assertUnderRoot(pattern, EVENT_ROOT, 'consumer pattern');
      return wire(pattern);
    },
    durableName(name) {
      return `${prefix}_${subjectToken(name, 'consumer name')}`;
    },
    relative(wireSubject) {
      const relative = wireSubject.startsWith(`${prefix}.`)
        ? wireSubject.slice(prefix.length + 1)
        : wireSubject;
      return relative.startsWith(`${LIVE_ROOT}.`)
        ? `${EVENT_ROOT}${relative.slice(LIVE_ROOT.length)}`
        : relative;
    },
  };
}
