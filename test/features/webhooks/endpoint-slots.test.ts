/** Per-endpoint slots: a bound per webhook, a short line, and no effect across webhooks. */
import { describe, expect, it } from 'vitest';
import { createEndpointSlots } from '../../../src/features/webhooks/endpoint-slots.js';

describe('endpoint slots', () => {
  it('grants up to the bound per webhook, independently of other webhooks', async () => {
    const slots = createEndpointSlots(2);
    expect(await slots.acquire(1, 0)).toBe(true);
    expect(await slots.acquire(1, 0)).toBe(true);
    expect(await slots.acquire(1, 0)).toBe(false);
    expect(await slots.acquire(2, 0)).toBe(true);
    expect(slots.inFlight(1)).toBe(2);
    slots.release(1);
    expect(await slots.acquire(1, 0)).toBe(true);
  });

  it('hands a released slot to the first in line, and gives up after the wait', async () => {
    const slots = createEndpointSlots(1);
    expect(await slots.acquire(1, 0)).toBe(true);
    const waiting = slots.acquire(1, 5_000);
    slots.release(1);
    expect(await waiting).toBe(true);
    expect(slots.inFlight(1)).toBe(1);
    expect(await slots.acquire(1, 10)).toBe(false);
  });

  it('keeps the line as short as the bound', async () => {
    const slots = createEndpointSlots(1);
    await slots.acquire(1, 0);
    const first = slots.acquire(1, 5_000);
    expect(await slots.acquire(1, 5_000)).toBe(false);
    slots.release(1);
    expect(await first).toBe(true);
  });
});
