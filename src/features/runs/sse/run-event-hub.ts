/**
 * Live run events for this process's streams: one bus subscription per run, however many clients
 * follow it here, opened with the first and dropped with the last. Each message is parsed and its
 * frame built once, then handed to every local listener of the run.
 *
 * Live subscriptions are at-least-once and unordered across publishers (bus.ts): listeners dedupe
 * and order by `seq` themselves.
 */
import type { Bus, BusMessage, Subscription } from '../../../platform/bus/bus.js';
import { runEventsPattern } from '../../../platform/bus/subjects.js';
import type { Logger } from '../../../platform/log.js';
import { isTerminalRunEvent, runEventPayloadSchema } from '../run-event-payload.js';
import { eventFrame } from './frames.js';

/** A live run event, ready to write. */
export interface LiveRunEvent {
  seq: number;
  /** The whole SSE frame. */
  frame: string;
  /** The run's stream ends with this event. */
  terminal: boolean;
}

/** Receives a run's live events. */
export type LiveListener = (event: LiveRunEvent) => void;

interface Entry {
  listeners: Set<LiveListener>;
  subscription: Promise<Subscription>;
}

/** Shared live subscriptions per run. */
export interface RunEventHub {
  /**
   * Adds `listener` for run `runId` of org `orgId`; resolves (with the removal) once the bus has
   * registered interest, so events published from then on reach it.
   */
  subscribe(orgId: number, runId: number, listener: LiveListener): Promise<() => void>;
  /** Runs with at least one listener here. */
  readonly size: number;
}

/** Creates the hub over `bus`. */
export function createRunEventHub(bus: Bus, log: Logger): RunEventHub {
  const entries = new Map<string, Entry>();

  function deliver(entry: Entry, msg: BusMessage): void {
    const parsed = runEventPayloadSchema.safeParse(msg.json());
    if (!parsed.success) {
      log.warn({ subject: msg.subject, err: parsed.error }, 'malformed run event skipped');
      return;
    }
    const p = parsed.data;
    const live: LiveRunEvent = {
      seq: p.seq,
      terminal: isTerminalRunEvent(p.event, p.kind),
      frame: eventFrame({
        runId: p.runId,
        seq: p.seq,
        event: p.event,
        status: p.status,
        step: p.step,
        outputJson: JSON.stringify(p.output ?? null),
        at: p.at,
      }),
    };
    for (const listener of entry.listeners) listener(live);
  }

  return {
    async subscribe(orgId, runId, listener) {
      const key = `${orgId}:${runId}`;
      let entry = entries.get(key);
      if (!entry) {
        const created: Entry = {
          listeners: new Set(),
          subscription: bus.subscribe(runEventsPattern(String(orgId), runId), (msg) => deliver(created, msg)),
        };
        // A failed subscribe must not leave an entry later callers would wait on.
        created.subscription.catch(() => {
          if (entries.get(key) === created) entries.delete(key);
        });
        entries.set(key, created);
        entry = created;
      }
      const current = entry;
      current.listeners.add(listener);
      try {
        await current.subscription;
      } catch (error) {
        current.listeners.delete(listener);
        throw error;
      }
      let removed = false;
      return () => {
        if (removed) return;
        removed = true;
        current.listeners.delete(listener);
        if (current.listeners.size > 0 || entries.get(key) !== current) return;
        entries.delete(key);
        void current.subscription.then(
          (s) => s.unsubscribe(),
          () => undefined,
        );
      };
    },
    get size() {
      return entries.size;
    },
  };
}
