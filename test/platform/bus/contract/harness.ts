import type { Bus } from '../../../../src/platform/bus/bus.js';
import { runEventSubject } from '../../../../src/platform/bus/subjects.js';

/** Redelivery backoff every contract bus is opened with (short, so retries finish quickly). */
export const BACKOFF_MS = [40, 80] as const;

/** Payload of the contract's test messages. */
export interface N {
  n: number;
}

/** Subject of test message `n`. */
export const subjectOf = (n: number): string => runEventSubject('org_1', n, 'completed');

/** What each contract section gets from `busContract`. */
export interface ContractHarness {
  /** A prefix unique to this suite run; the suite cleans it up afterwards. */
  newPrefix(): string;
  /** Opens a bus on `prefix`, closed after the test. */
  open(prefix: string): Promise<Bus>;
  /** Opens a bus on `prefix` that the test closes itself. */
  openUnmanaged(prefix: string): Promise<Bus>;
}
