/**
 * Cursor pagination (docs/api.md "Conventions"): `limit` (default 50, max 200) and an opaque `cursor`; answers add
 * `nextCursor`, null at the end. A cursor is base64url JSON of the last item's sort key, so pages stay
 * stable while rows are added or removed (keyset pagination, no offsets).
 */
import { z } from 'zod';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

/** The `limit` query parameter. */
export const limitSchema = z.coerce.number().int().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT);

/** Encodes a sort key as an opaque cursor. */
export function encodeCursor(key: string | number): string {
  return Buffer.from(JSON.stringify({ k: key }), 'utf8').toString('base64url');
}

function decode(cursor: string): unknown {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    return parsed !== null && typeof parsed === 'object' ? (parsed as { k?: unknown }).k : undefined;
  } catch {
    return undefined;
  }
}

/** The `cursor` query parameter of a list ordered by slug: decodes to the last slug seen. */
export const slugCursorSchema = z.string().transform((cursor, ctx) => {
  const key = decode(cursor);
  if (typeof key !== 'string' || key.length === 0 || key.length > 200) {
    ctx.addIssue({ code: 'custom', message: 'is not a cursor this list returned' });
    return z.NEVER;
  }
  return key;
});

/** The `cursor` query parameter of a list ordered by id: decodes to the last id seen. */
export const idCursorSchema = z.string().transform((cursor, ctx) => {
  const key = decode(cursor);
  if (typeof key !== 'number' || !Number.isSafeInteger(key) || key < 1) {
    ctx.addIssue({ code: 'custom', message: 'is not a cursor this list returned' });
    return z.NEVER;
  }
  return key;
});

/** The position of a list ordered by (createdAt, id): its last item. */
export interface TimeCursor {
  createdAt: Date;
  id: number;
}

/** Encodes a (createdAt, id) position as an opaque cursor (an ISO string is kept as given). */
export function encodeTimeCursor(createdAt: Date | string, id: number): string {
  const c = typeof createdAt === 'string' ? createdAt : createdAt.toISOString();
  return Buffer.from(JSON.stringify({ c, i: id }), 'utf8').toString('base64url');
}

/** The `cursor` query parameter of a list ordered by (createdAt, id). */
export const timeCursorSchema = z.string().transform((cursor, ctx): TimeCursor => {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      c?: unknown;
      i?: unknown;
    };
    const createdAt = typeof parsed.c === 'string' ? new Date(parsed.c) : null;
    if (
      createdAt &&
      !Number.isNaN(createdAt.getTime()) &&
      Number.isSafeInteger(parsed.i) &&
      (parsed.i as number) > 0
    ) {
      return { createdAt, id: parsed.i as number };
    }
  } catch {
    // falls through to the issue below
  }
  ctx.addIssue({ code: 'custom', message: 'is not a cursor this list returned' });
  return z.NEVER;
});

/** `nextCursor` of an answer. */
export function nextCursor(key: string | number | null): string | null {
  return key === null ? null : encodeCursor(key);
}
