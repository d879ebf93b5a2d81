/**
 * `lastUsedAt` without a write per request: uses are noted in memory and flushed as one UPDATE per
 * interval (and at shutdown). A token used on several nodes ends with the latest time any saw.
 */
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';

export interface LastUsedRecorder {
  record(tokenId: string, atMs: number): void;
  flush(): Promise<void>;
  stop(): Promise<void>;
}

export function createLastUsedRecorder(sql: Sql, log: Logger, intervalMs = 5_000): LastUsedRecorder {
  let pending = new Map<string, number>();
  const flush = async () => {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    try {
      await sql.query(
        `update api_tokens t set last_used_at = to_timestamp(v.ms / 1000.0)
           from unnest($1::text[], $2::bigint[]) as v(id, ms)
          where t.id = v.id and (t.last_used_at is null or t.last_used_at < to_timestamp(v.ms / 1000.0))`,
        [[...batch.keys()], [...batch.values()]],
      );
    } catch (error) {
      log.warn({ err: error }, 'could not record token last-used times');
    }
  };
  const timer = setInterval(() => void flush(), intervalMs);
  timer.unref();
  return {
    record(tokenId, atMs) {
      const seen = pending.get(tokenId);
      if (seen === undefined || seen < atMs) pending.set(tokenId, atMs);
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
}
