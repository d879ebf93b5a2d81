import { describe, expect, it } from 'vitest';
import { connectBus } from '../../../src/platform/bus/connect.js';
import { createCollector } from '../../helpers/wait.js';

describe('connectBus', () => {
  it('uses the in-process bus without a NATS URL', async () => {
    const logged = createCollector<string>();
    const log = (_: object, msg?: string) => logged.push(msg ?? '');
    const bus = await connectBus({
      prefix: 'solo',
      logger: { debug: log, info: log, warn: log, error: log },
    });
    try {
      expect(bus.prefix).toBe('solo');
      expect(await bus.health()).toEqual({ ok: true, detail: 'in-process bus' });
      expect(logged.items).toEqual(['NATS_URL not set: using the in-process bus (single node only)']);
    } finally {
      await bus.close();
    }
  });
});
