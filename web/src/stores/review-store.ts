/** The run on the review screen: the run, its history, and what the screen is doing. */
import { createStore } from '@xstate/store';
import type { PolicyInForce, ReviewItem, ReviewStep, Run, ToolCall, Transition } from '../wire.js';

export type { ReviewStep, Run, ToolCall, Transition };

export interface ReviewContext {
  runId: number | null;
  run: Run | null;
  transitions: Transition[];
  /** The run's review item (its open one, else its last; null for a run that never waited). */
  review: ReviewItem | null;
  /** The review policy in force for its item, and what this reviewer may do (null: never waited). */
  policy: PolicyInForce | null;
  /** The run's steps (`GET /reviews/:kind/:id`), null when it never waited. */
  steps: ReviewStep[] | null;
  notFound: boolean;
  /** The reviewer's edits not yet approved: each edited step's output (a skill run's step is its slug). */
  edited: Readonly<Record<string, unknown>>;
  /** Edit controls whose JSON text does not parse. */
  invalid: ReadonlySet<string>;
  /** The item changed elsewhere since it was shown: what happened (shown until the next decision). */
  stale: string | null;
  error: string | null;
  busy: boolean;
  notice: string;
}

/**
 * What the screen says when the item it showed open changed while the reviewer did nothing here (a
 * read while the screen acts is its own change): null when it did not.
 */
function changedElsewhere(context: ReviewContext, review: ReviewItem | null): string | null {
  const shown = context.review?.revision ?? null;
  if (shown === null || context.busy || review?.revision === shown) return null;
  return review?.revision === null || review === null
    ? 'This item was decided or withdrawn elsewhere while you had it open. Nothing was decided here.'
    : 'This item changed elsewhere while you had it open (edited, assigned or snoozed): it shows its current version now. Read it before deciding.';
}

export const reviewStore = createStore({
  context: {
    runId: null,
    run: null,
    transitions: [],
    review: null,
    policy: null,
    steps: null,
    notFound: false,
    stale: null,
    edited: {},
    invalid: new Set<string>(),
    error: null,
    busy: false,
    notice: '',
  } as ReviewContext,
  on: {
    opened: (_, event: { runId: number }) => ({
      runId: event.runId,
      run: null,
      transitions: [],
      review: null,
      policy: null,
      steps: null,
      notFound: false,
      stale: null,
      edited: {},
      invalid: new Set<string>(),
      error: null,
      busy: false,
      notice: '',
    }),
    loaded: (
      context,
      event: {
        run: Run;
        transitions: Transition[];
        review: ReviewItem | null;
        policy: PolicyInForce | null;
        steps: ReviewStep[] | null;
      },
    ) =>
      event.run.id === context.runId
        ? {
            ...context,
            run: event.run,
            transitions: event.transitions,
            review: event.review,
            policy: event.policy,
            steps: event.steps,
            stale: changedElsewhere(context, event.review) ?? context.stale,
          }
        : context,
    staled: (context, event: { stale: string | null }) => ({ ...context, stale: event.stale }),
    /** Step `step`'s output as the reviewer edited it (undefined: the edit is dropped). */
    edited: (context, event: { step: string; output: unknown }) => {
      const edited = { ...context.edited };
      if (event.output === undefined) delete edited[event.step];
      else edited[event.step] = event.output;
      return { ...context, edited };
    },
    invalidated: (context, event: { control: string; bad: boolean }) => {
      const invalid = new Set(context.invalid);
      if (event.bad) invalid.add(event.control);
      else invalid.delete(event.control);
      return { ...context, invalid };
    },
    /** The edits were approved, or dropped. */
    editsCleared: (context) => ({ ...context, edited: {}, invalid: new Set<string>() }),
    missing: (context) => ({ ...context, notFound: true }),
    busy: (context, event: { busy: boolean }) => ({ ...context, busy: event.busy }),
    failed: (context, event: { error: string | null }) => ({ ...context, error: event.error }),
    noticed: (context, event: { notice: string }) => ({ ...context, notice: event.notice }),
  },
});
