/**
 * Per-endpoint concurrency of delivery attempts in one process. Job workers are shared by every
 * kind of job and every tenant; without a bound, a receiver that answers slowly (up to the 30 s
 * timeout) would soon hold every worker with its backlog. An attempt takes a slot of its webhook
 * before it starts. When none is free it may wait a little in a short line (as long as the
 * webhook's slots); past that, or when the line is full, the caller puts its job back for later
 * instead of holding a worker.
 */

/** Slots per webhook. */
export interface EndpointSlots {
  /** Takes a slot of `webhookId`, waiting at most `waitMs` in line; false when none came free. */
  acquire(webhookId: number, waitMs: number): Promise<boolean>;
  release(webhookId: number): void;
  /** Attempts in flight for `webhookId` (tests, metrics). */
  inFlight(webhookId: number): number;
}

interface Lane {
  taken: number;
  waiting: Array<(granted: boolean) => void>;
}

/** `perEndpoint` slots for every webhook. */
export function createEndpointSlots(perEndpoint: number): EndpointSlots {
  const lanes = new Map<number, Lane>();
  return {
    acquire(webhookId, waitMs) {
      let lane = lanes.get(webhookId);
      if (!lane) {
        lane = { taken: 0, waiting: [] };
        lanes.set(webhookId, lane);
      }
      if (lane.taken < perEndpoint) {
        lane.taken++;
        return Promise.resolve(true);
      }
      if (waitMs <= 0 || lane.waiting.length >= perEndpoint) return Promise.resolve(false);
      const current = lane;
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          const index = current.waiting.indexOf(grant);
          if (index >= 0) current.waiting.splice(index, 1);
          resolve(false);
        }, waitMs);
        const grant = (granted: boolean): void => {
          clearTimeout(timer);
          resolve(granted);
        };
        current.waiting.push(grant);
      });
    },
    release(webhookId) {
      const lane = lanes.get(webhookId);
      if (!lane) return;
      const next = lane.waiting.shift();
      // The slot passes straight to the first in line: `taken` stays as it is.
      if (next) return next(true);
      lane.taken--;
      if (lane.taken <= 0) lanes.delete(webhookId);
    },
    inFlight: (webhookId) => lanes.get(webhookId)?.taken ?? 0,
  };
}
