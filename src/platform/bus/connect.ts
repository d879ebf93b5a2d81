import type { Bus, BusLogger } from './bus.js';
import { createMemoryBus } from './memory-bus.js';
import { connectNatsBus } from './nats-bus.js';

/** Options of `connectBus`. */
export interface ConnectBusOptions {
  /** NATS server URL; without one the bus is in-process (single node only). */
  natsUrl?: string | undefined;
  /** Namespace prefix (default `r3`). */
  prefix?: string | undefined;
  logger?: BusLogger | undefined;
}

/**
 * The bus for this deployment: JetStream when `natsUrl` is set, otherwise the in-process bus, which
 * only works while every role runs in this one process.
 */
export async function connectBus(opts: ConnectBusOptions): Promise<Bus> {
  const shared = {
    ...(opts.prefix !== undefined ? { prefix: opts.prefix } : {}),
    ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
  };
  if (opts.natsUrl) return connectNatsBus({ url: opts.natsUrl, ...shared });
  opts.logger?.info(
    { prefix: shared.prefix },
    'NATS_URL not set: using the in-process bus (single node only)',
  );
  return createMemoryBus(shared);
}
