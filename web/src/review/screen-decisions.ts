/**
 * What a review screen asks of the queue's API for its item: decide it — bound to the revision the
 * screen shows (a stale one decides nothing: the API answers 409 `stale`), with the reviewer's edits —
 * assign it, snooze it. Every screen (runs, actions, missions) decides through `/reviews/decide`, the
 * choke point every decision path shares.
 */
import { ApiError, api } from '../api.js';
import type { ReviewItem } from '../wire.js';

/**
 * How long an approval or rejection taken in the web UI waits before it takes effect (`delaySeconds`,
 * decisions.md §15 "Undo"): the time the reviewer has to undo it. Request changes is taken at once.
 */
export const UNDO_SECONDS = 8;

/** How many times a draft may go back (docs/api.md: request changes, at most 5 rounds). */
export const MAX_ROUNDS = 5;

/** A decision as a screen takes it. */
export interface ScreenDecision {
  kind: string;
  id: number;
  /** The revision shown (null: the screen has no open item to bind to; the API then checks none). */
  revision: string | null;
  /** `request_changes`: the draft goes back to the model with `text` as the reason (skill runs, mission plans). */
  action: 'approve' | 'reject' | 'request_changes';
  /** The note (approve) or reason (reject, request changes); empty for none. */
  text: string;
  /** The edits of an approval, of the kind's shape; null for none. */
  edits: Record<string, unknown> | null;
  /** The item as the screen shows it (its policy's quorum: see `undoDelay`); null when none. */
  item?: Pick<ReviewItem, 'required' | 'approvals'> | null;
}

/**
 * The delay a decision is sent with: UNDO_SECONDS, except for request changes (taken at once) and an
 * approval that only counts towards its policy's quorum (more approvals are needed after it: it
 * decides nothing, dispatches nothing, and is recorded at once, as the policy's progress shows).
 */
export function undoDelay(
  action: ScreenDecision['action'],
  item: Pick<ReviewItem, 'required' | 'approvals'> | null | undefined,
): number {
  if (action === 'request_changes') return 0;
  if (action === 'approve' && item && item.approvals.length + 1 < item.required) return 0;
  return UNDO_SECONDS;
}

/** What the screen says when its item changed or was decided elsewhere: nothing was decided. */
export const STALE_NOTICE =
  'This item changed elsewhere since you opened it (edited, assigned, snoozed or decided). Nothing was decided: it shows its current version now — read it before deciding.';

/**
 * The items (`kind:id`) this screen just decided with the undo delay: their screen puts the focus on
 * Undo when it shows the held decision (the form the reviewer was in went away).
 */
export const heldHere = new Set<string>();

/** Decides `d`: `decided`, or `stale` when the item changed since it was shown; other refusals throw. */
export async function decideOnScreen(d: ScreenDecision): Promise<'decided' | 'stale'> {
  const delaySeconds = undoDelay(d.action, d.item);
  try {
    await api('POST', '/reviews/decide?limit=1', {
      kind: d.kind,
      id: d.id,
      action: d.action,
      ...(d.revision ? { revision: d.revision } : {}),
      ...(d.text ? { reason: d.text } : {}),
      ...(d.edits ? { edits: d.edits } : {}),
      ...(delaySeconds > 0 ? { delaySeconds } : {}),
    });
    if (delaySeconds > 0) heldHere.add(`${d.kind}:${d.id}`);
    return 'decided';
  } catch (error) {
    if (error instanceof ApiError && error.status === 409 && error.details.reason === 'stale') return 'stale';
    throw error;
  }
}

/** Assigns item `{kind, id}` to user `assignedTo` (null: back to triage). */
export const assignItem = (kind: string, id: number, assignedTo: string | null) =>
  api('POST', '/reviews/assign?limit=1', { kind, id, assignedTo });

/** Snoozes item `{kind, id}` until `until`. */
export const snoozeItem = (kind: string, id: number, until: Date) =>
  api('POST', '/reviews/snooze?limit=1', { kind, id, until: until.toISOString() });

/**
 * Withdraws the decision item `{kind, id}` holds (taken with a delay): `undone`, or `too_late` once
 * it took effect or nothing is held any more (409); other refusals throw.
 */
export async function undoItem(kind: string, id: number): Promise<'undone' | 'too_late'> {
  try {
    await api('POST', '/reviews/undo?limit=1', { kind, id });
    return 'undone';
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) return 'too_late';
    throw error;
  }
}
