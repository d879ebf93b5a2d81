import { afterAll, afterEach, describe } from 'vitest';
import type { Bus } from '../../../src/platform/bus/bus.js';
import { randomTestPrefix } from '../../helpers/nats.js';
import { durableConsumerCases } from './contract/durable-consumers.js';
import { BACKOFF_MS, type ContractHarness } from './contract/harness.js';
import { liveSubscriptionCases } from './contract/live-subscriptions.js';
import { publishAndLifecycleCases } from './contract/publish-and-lifecycle.js';

/** What the contract asks of a bus factory. */
export interface MakeBusOptions {
  /** Namespace of the bus; buses opened with the same prefix share one backend namespace. */
  prefix: string;
  /** Short backoff so redelivery tests finish quickly. */
  redeliveryBackoffMs: readonly number[];
}

/**
 * Opens a bus on the shared backend. Two calls with the same prefix must behave like two processes
 * connected to the same server (NATS: two connections; memory: two buses on one broker).
 */
export type MakeBus = (opts: MakeBusOptions) => Promise<Bus>;

/** Optional hooks of the contract. */
export interface BusContractOptions {
  /** Removes what the suite's prefixes left on the backend (NATS: their streams); runs after the suite. */
  cleanup?: (prefixes: readonly string[]) => Promise<void>;
}

/** The behaviour every `Bus` implementation must show (see the `Bus` JSDoc in src/platform/bus/bus.ts). */
export function busContract(name: string, makeBus: MakeBus, opts: BusContractOptions = {}): void {
  describe(`${name}: Bus contract`, () => {
    const filePrefix = randomTestPrefix(name);
    const prefixes: string[] = [];
    const opened: Bus[] = [];
    const harness: ContractHarness = {
      newPrefix() {
        const prefix = `${filePrefix}_${prefixes.length + 1}`;
        prefixes.push(prefix);
        return prefix;
      },
      openUnmanaged: (prefix) => makeBus({ prefix, redeliveryBackoffMs: BACKOFF_MS }),
      async open(prefix) {
        const bus = await harness.openUnmanaged(prefix);
        opened.push(bus);
        return bus;
      },
    };

    afterEach(async () => {
      await Promise.all(opened.splice(0).map((bus) => bus.close()));
    });
    afterAll(async () => {
      await opts.cleanup?.(prefixes);
    });

    liveSubscriptionCases(harness);
    durableConsumerCases(harness);
    publishAndLifecycleCases(harness);
  });
}
