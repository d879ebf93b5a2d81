/**
 * What the connections were sent and answered, in order: for tests of when a statement goes out
 * relative to another's answer (pipelining).
 */
import pg from 'pg';
import { vi } from 'vitest';

/**
 * Runs `fn`, recording `sent <label>` when a statement is sent on any connection and `answered
 * <label>` (or `failed <label>`) when its answer arrives; the label is its name if it has one, else
 * its text. `on(prefix)` is the same record for one connection only: the one that first sent a
 * statement whose label starts with `prefix` (an app's background work — the outbox relay, job
 * claims — sends on other connections meanwhile).
 */
export async function recordStatements<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; order: string[]; on(prefix: string): string[] }> {
  const entries: Array<{ client: pg.Client; entry: string }> = [];
  const original = pg.Client.prototype.query;
  const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (
    this: pg.Client,
    ...args: unknown[]
  ) {
    const first = args[0] as string | { name?: string; text?: string };
    const label = typeof first === 'string' ? first : (first?.name ?? String(first?.text));
    entries.push({ client: this, entry: `sent ${label}` });
    const sent = original.apply(this, args as never) as unknown as Promise<unknown>;
    void sent.then(
      () => entries.push({ client: this, entry: `answered ${label}` }),
      () => entries.push({ client: this, entry: `failed ${label}` }),
    );
    return sent as never;
  });
  try {
    const result = await fn();
    return {
      result,
      order: entries.map((e) => e.entry),
      on(prefix) {
        const client = entries.find((e) => e.entry.startsWith(`sent ${prefix}`))?.client;
        return entries.filter((e) => e.client === client).map((e) => e.entry);
      },
    };
  } finally {
    spy.mockRestore();
  }
}
