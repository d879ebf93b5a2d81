/**
 * Rotating the master secret: every value sealed at rest (secret-box.ts) is opened with the previous
 * master secret and sealed again with the current one, in one transaction, so the database never
 * holds a mix. Features declare their sealed columns (`platform.sealedColumns.add`): the table, the
 * column, the purpose its key is derived for, and the SQL that gives each row's context (the
 * additional authenticated data it was sealed with).
 *
 * A value that already opens with the current secret is left alone (a rerun after a partial
 * rotation, or a row written by a node already on the new secret); one that opens with neither
 * stops the rotation, naming its table and column, and nothing is written.
 */
import type { Sql } from '../db/sql.js';
import { deriveKey, openSecret, SecretBoxError, sealSecret } from './secret-box.js';

/** A column holding sealed values. */
export interface SealedColumn {
  table: string;
  column: string;
  /** What its key is derived for (`deriveKey(master, purpose)`). */
  purpose: string;
  /** SQL over the row giving the context it was sealed with, e.g. `'webhook:' || org_id`. */
  context: string;
}

/** Where features declare their sealed columns. */
export interface SealedColumns {
  add(...columns: SealedColumn[]): void;
  readonly all: readonly SealedColumn[];
}

/** What the rotation did to one column. */
export interface RekeyCount {
  table: string;
  column: string;
  /** Values sealed again with the current secret. */
  rekeyed: number;
  /** Values that already opened with the current secret. */
  current: number;
}

/** A value that opens with neither secret. */
export class RekeyError extends Error {
  override name = 'RekeyError';
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/**
 * Seals every value of `columns` again under `current` (from `previous`), in `sql`'s transaction
 * (the caller commits, or rolls back for a dry run). Rows are locked as they are read.
 */
export async function rekeySealed(
  sql: Sql,
  columns: readonly SealedColumn[],
  secrets: { previous: string; current: string },
): Promise<RekeyCount[]> {
  const counts: RekeyCount[] = [];
  for (const { table, column, purpose, context } of columns) {
    if (!IDENTIFIER.test(table) || !IDENTIFIER.test(column)) {
      throw new Error(`sealed column ${table}.${column} is not a plain identifier`);
    }
    const oldKey = deriveKey(secrets.previous, purpose);
    const newKey = deriveKey(secrets.current, purpose);
    const rows = await sql.query<{ id: string; sealed: string; context: string }>(
      `select ctid::text as id, ${column} as sealed, (${context})::text as context
         from ${table} where ${column} is not null for update`,
    );
    const count: RekeyCount = { table, column, rekeyed: 0, current: 0 };
    for (const row of rows) {
      const plain = tryOpen(row.sealed, oldKey, row.context);
      if (plain === null) {
        if (tryOpen(row.sealed, newKey, row.context) !== null) {
          count.current++;
          continue;
        }
        throw new RekeyError(
          `a value in ${table}.${column} opens with neither the previous nor the current secret ` +
            '(is the previous secret the one it was sealed with?); nothing was changed',
        );
      }
      await sql.query(`update ${table} set ${column} = $1 where ctid = $2::tid`, [
        sealSecret(plain, newKey, row.context),
        row.id,
      ]);
      count.rekeyed++;
    }
    counts.push(count);
  }
  return counts;
}

function tryOpen(sealed: string, key: Buffer, context: string): string | null {
  try {
    return openSecret(sealed, key, context);
  } catch (error) {
    if (error instanceof SecretBoxError) return null;
    throw error;
  }
}
