/**
 * Decisions taken from the queue that wait for their `effectiveAt` (taken with `delaySeconds`,
 * decisions.md §15 "Undo"), newest first: the queue's undo toasts. One leaves when it is undone or its
 * time has come.
 */
import { createStore } from '@xstate/store';

export interface Held {
  kind: string;
  id: number;
  title: string;
  action: 'approve' | 'reject';
  /** When it takes effect (ms since the epoch, this browser's clock). */
  effectiveAt: number;
}

export const heldStore = createStore({
  context: { held: [] as Held[] },
  on: {
    held: (context, event: { entries: Held[] }) => {
      const keys = new Set(event.entries.map((h) => `${h.kind}:${h.id}`));
      return {
        held: [...event.entries, ...context.held.filter((h) => !keys.has(`${h.kind}:${h.id}`))],
      };
    },
    released: (context, event: { key: string }) => ({
      held: context.held.filter((h) => `${h.kind}:${h.id}` !== event.key),
    }),
  },
});
