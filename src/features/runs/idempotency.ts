/**
 * Idempotency keys of run triggers (docs/api.md "Runs"): scoped per token, kept for
 * 24 hours, bound to a hash of the request (method, path and the body as canonical JSON, so key order
 * and whitespace do not matter). The same key with the same request answers the first answer again;
 * with another request, 409.
 *
 * The primary key (token, key) is the arbiter between concurrent duplicates: the first insert wins,
 * the others wait on it (PostgreSQL blocks a conflicting insert until the first transaction ends) and
 * then find its committed row, answer and all.
 */
import { createHash } from 'node:crypto';
import type { Sql } from '../../platform/db/sql.js';
import { conflict } from '../../platform/errors.js';
import { canonicalJson } from '../../platform/util/canonical-json.js';

/** How long a key is remembered. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60_000;

/** A remembered request. */
export interface IdempotentRecord {
  requestHash: string;
  response: unknown;
}

/** The hash a key is bound to. */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${canonicalJson(body)}`)
    .digest('hex');
}

/** The live (unexpired) record of `key`, or null. */
export async function findKey(
  sql: Sql,
  tokenKey: string,
  key: string,
  now: number,
): Promise<IdempotentRecord | null> {
  const row = await sql.maybeOne<{ request_hash: string; response: unknown }>(
    `select request_hash, response from idempotency_keys
      where token_id = $1 and key = $2 and created_at > $3 and response is not null`,
    [tokenKey, key, new Date(now - IDEMPOTENCY_TTL_MS).toISOString()],
  );
  return row ? { requestHash: row.request_hash, response: row.response } : null;
}

/**
 * Takes `key` for this request inside the caller's transaction: null when taken (new, or replacing an
 * expired record), else the live record that holds it (waiting for a concurrent holder to commit).
 */
export async function claimKey(
  sql: Sql,
  args: { tokenKey: string; key: string; orgId: number; hash: string; now: number },
): Promise<IdempotentRecord | null> {
  const at = new Date(args.now).toISOString();
  const expired = new Date(args.now - IDEMPOTENCY_TTL_MS).toISOString();
  const taken = await sql.query(
    `insert into idempotency_keys (token_id, key, org_id, request_hash, created_at)
     values ($1, $2, $3, $4, $5)
     on conflict (token_id, key) do update
       set org_id = excluded.org_id, request_hash = excluded.request_hash, run_id = null,
           response = null, created_at = excluded.created_at
       where idempotency_keys.created_at <= $6
     returning 1`,
    [args.tokenKey, args.key, args.orgId, args.hash, at, expired],
  );
  if (taken.length === 1) return null;
  const row = await sql.one<{ request_hash: string; response: unknown }>(
    'select request_hash, response from idempotency_keys where token_id = $1 and key = $2',
    [args.tokenKey, args.key],
  );
  return { requestHash: row.request_hash, response: row.response };
}

/** Stores the answer of the request that took `key` (same transaction as the run it created). */
export async function completeKey(
  sql: Sql,
  tokenKey: string,
  key: string,
  runId: number,
  response: unknown,
): Promise<void> {
  await sql.query('update idempotency_keys set run_id = $3, response = $4 where token_id = $1 and key = $2', [
    tokenKey,
    key,
    runId,
    JSON.stringify(response),
  ]);
}

/** The replayed answer for a record, or 409 when it was made for another request. */
export function replay(record: IdempotentRecord, hash: string, key: string): unknown {
  if (record.requestHash !== hash) {
    throw conflict('This idempotency key was already used with a different request.', {
      idempotencyKey: key,
    });
  }
  return record.response;
}

/** Deletes expired keys; returns how many. */
export async function sweepKeys(sql: Sql, now: number): Promise<number> {
  const rows = await sql.query('delete from idempotency_keys where created_at <= $1 returning 1', [
    new Date(now - IDEMPOTENCY_TTL_MS).toISOString(),
  ]);
  return rows.length;
}
