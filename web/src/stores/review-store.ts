/** The run on the review screen: the run, its history, and what the screen is doing. */
import { createStore } from '@xstate/store';
import type { Run, ToolCall, Transition } from '../wire.js';

export type { Run, ToolCall, Transition };

export interface ReviewContext {
  runId: number | null;
  run: Run | null;
  transitions: Transition[];
  notFound: boolean;
  error: string | null;
  busy: boolean;
  notice: string;
}

export const reviewStore = createStore({
  context: {
    runId: null,
    run: null,
    transitions: [],
    notFound: false,
    error: null,
    busy: false,
    notice: '',
  } as ReviewContext,
  on: {
    opened: (_, event: { runId: number }) => ({
      runId: event.runId,
      run: null,
      transitions: [],
      notFound: false,
      error: null,
      busy: false,
      notice: '',
    }),
    loaded: (context, event: { run: Run; transitions: Transition[] }) =>
      event.run.id === context.runId
        ? { ...context, run: event.run, transitions: event.transitions }
        : context,
    missing: (context) => ({ ...context, notFound: true }),
    busy: (context, event: { busy: boolean }) => ({ ...context, busy: event.busy }),
    failed: (context, event: { error: string | null }) => ({ ...context, error: event.error }),
    noticed: (context, event: { notice: string }) => ({ ...context, notice: event.notice }),
  },
});
