/**
 * What the connections were sent and answered, in order: for tests of when a statement goes out
 * relative to another's answer (pipelining).
 */
import pg from 'pg';
import { vi } from 'vitest';

/**
 * Runs `fn`, recording `sent <label>` when a statement is sent on any connection and `answered
 * <label>` (or `failed <label>`) when its answer arrives; the label is its name if it has one, else
 * its text.
 */
export async function recordStatements<T>(fn: () => Promise<T>): Promise<{ result: T; order: string[] }> {
  const order: string[] = [];
  const original = pg.Client.prototype.query;
  const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (
    this: pg.Client,
    ...args: unknown[]
  ) {
    const first = args[0] as string | { name?: string; text?: string };
    const label = typeof first === 'string' ? first : (first?.name ?? String(first?.text));
    order.push(`sent ${label}`);
    const sent = original.apply(this, args as never) as unknown as Promise<unknown>;
    void sent.then(
      () => order.push(`answered ${label}`),
      () => order.push(`failed ${label}`),
    );
    return sent as never;
  });
  try {
    return { result: await fn(), order };
  } finally {
    spy.mockRestore();
  }
}
