/**
 * Reading the item open in the queue's preview pane: `GET /reviews/:kind/:id` (the item with the
 * revision the reviewer sees, and its subject), again whenever the item changes.
 */
import { ApiError, api } from '../api.js';
import { previewStore } from '../stores/preview-store.js';
import { itemKey } from '../stores/queue-store.js';
import type { ReviewAnswer, ReviewItem } from '../wire.js';

/** How long the cursor rests on an item before the pane reads it (a held j reads only where it stops). */
const SETTLE_MS = 60;
let settling: ReturnType<typeof setTimeout> | null = null;

/**
 * Opens `item` in the pane (null: nothing to show) and reads it once the cursor rests on it, unless it
 * is open already.
 */
export function openPreview(item: Pick<ReviewItem, 'kind' | 'id'> | null): void {
  const key = item ? itemKey(item) : null;
  const shown = previewStore.getSnapshot().context.key;
  if (key === shown) return;
  previewStore.trigger.opened({ key });
  if (settling) clearTimeout(settling);
  settling = null;
  if (!item) return;
  // The first item the page opens is read at once: no cursor is moving yet.
  if (shown === null) void readPreview(item);
  else settling = setTimeout(() => void readPreview(item), SETTLE_MS);
}

/** Reads `item` again (it changed): the pane shows its current version and revision. */
export async function readPreview(item: Pick<ReviewItem, 'kind' | 'id'>): Promise<void> {
  const key = itemKey(item);
  try {
    const answer = await api<ReviewAnswer>('GET', `/reviews/${item.kind}/${item.id}`);
    previewStore.trigger.loaded({
      key,
      review: answer.review,
      subject: answer.subject,
      policy: answer.policy,
    });
  } catch (error) {
    const message =
      error instanceof ApiError && error.status === 404 ? 'This item is gone.' : (error as Error).message;
    previewStore.trigger.failed({ key, error: message });
  }
}
