/**
 * Paging of MCP lists (`resources/list`, `prompts/list`) through several sources: each source's items
 * in its own stable order, the sources in registration order. The cursor is opaque to clients: the
 * base64url JSON of the source's index and the key to continue after in it.
 */
import { invalidParams } from './protocol-errors.js';

/** One page of one source, and the key to continue after (null: the source is done). */
export interface SourcePage<T> {
  items: T[];
  nextAfter: string | null;
}

/**
 * At most `size` items from `cursor` on (undefined: the start), and the cursor of what follows
 * (absent at the end). `pageOf` lists a source's items after `after`, at most `limit`; null skips the
 * source (the caller may not read it, or it lists nothing).
 */
export async function pageThrough<S, T>(
  sources: readonly S[],
  cursor: string | undefined,
  size: number,
  pageOf: (source: S, page: { limit: number; after?: string | undefined }) => Promise<SourcePage<T>> | null,
): Promise<{ items: T[]; nextCursor?: string }> {
  let [index, after] = cursor === undefined ? [0, undefined] : parseCursor(cursor, sources.length);
  const items: T[] = [];
  while (index < sources.length && items.length < size) {
    const page = await pageOf(sources[index] as S, { limit: size - items.length, after });
    items.push(...(page?.items ?? []));
    if (page && page.nextAfter !== null) {
      after = page.nextAfter;
    } else {
      index++;
      after = undefined;
    }
  }
  if (index >= sources.length) return { items };
  const next = JSON.stringify(after === undefined ? [index] : [index, after]);
  return { items, nextCursor: Buffer.from(next).toString('base64url') };
}

function parseCursor(cursor: string, sources: number): [number, string | undefined] {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = null;
  }
  if (
    Array.isArray(value) &&
    (value.length === 1 || value.length === 2) &&
    Number.isInteger(value[0]) &&
    value[0] >= 0 &&
    value[0] < sources &&
    (value.length === 1 || typeof value[1] === 'string')
  ) {
    return [value[0] as number, value[1] as string | undefined];
  }
  throw invalidParams('The cursor is not one this server gave (use nextCursor as it came).', { cursor });
}
