/**
 * The queue's preview pane: the item open beside the list (the cursor's), as `GET /reviews/:kind/:id`
 * answered it — its revision is what the reviewer sees, and what a decision from the pane sends — and
 * the notice shown when that item changed or was decided elsewhere while it was open (until the
 * person has seen it, no decision is taken: see queue-page).
 */
import { createStore } from '@xstate/store';
import type { PolicyInForce, ReviewItem } from '../wire.js';

export interface PreviewContext {
  /** The open item's key (`kind:id`), or null when the lane is empty. */
  key: string | null;
  /** The item as last read (null while the first read of it runs). */
  review: ReviewItem | null;
  /** Its subject as the subject's own GET answers it (the run, mission run or proposal). */
  subject: unknown;
  /** The review policy in force for it, and what this reviewer may do (null while read). */
  policy: PolicyInForce | null;
  error: string | null;
  /** The item open changed or was decided elsewhere: what happened (shown, and decisions wait). */
  stale: string | null;
}

export const previewStore = createStore({
  context: {
    key: null,
    review: null,
    subject: null,
    policy: null,
    error: null,
    stale: null,
  } as PreviewContext,
  on: {
    /** Another item is open: its last read is dropped (a stale notice stays until it is seen). */
    opened: (context, event: { key: string | null }) =>
      event.key === context.key
        ? context
        : { ...context, key: event.key, review: null, subject: null, policy: null, error: null },
    /** A read of item `key` answered (ignored when another item is open by now). */
    loaded: (
      context,
      event: { key: string; review: ReviewItem; subject: unknown; policy: PolicyInForce | null },
    ) =>
      event.key === context.key
        ? { ...context, review: event.review, subject: event.subject, policy: event.policy, error: null }
        : context,
    failed: (context, event: { key: string; error: string }) =>
      event.key === context.key ? { ...context, error: event.error } : context,
    staled: (context, event: { notice: string }) => ({ ...context, stale: event.notice }),
    /** The person saw the notice (moved on, or pressed a decision key once): decisions act again. */
    seen: (context) => (context.stale === null ? context : { ...context, stale: null }),
  },
});
