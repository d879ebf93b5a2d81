/**
 * Time as r3 reads it. Production uses the system clock; tests install a `ManualClock` so rate
 * limits, expiries, snoozes and retries can be driven without sleeping. Every timestamp r3 writes to
 * the database comes from here, so one clock governs a process.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told (tests). Starts at the wall clock's time unless given one. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: number = Date.now()) {
    this.current = start;
  }
  now(): number {
    return this.current;
  }
  set(ms: number): void {
    this.current = ms;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}
