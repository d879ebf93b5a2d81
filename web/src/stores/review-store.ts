/** The run on the review screen: the run, its history, and what the screen is doing. */
import { createStore } from '@xstate/store';

/** One tool call of a run's tool loop, as `toolCalls` of the run carries it (docs/api.md#runs). */
export interface ToolCall {
  id: string;
  tool: string;
  /** The model's arguments: an object, or its text when that was not a JSON object. */
  arguments: unknown;
  status: 'running' | 'ok' | 'error';
  result: unknown;
  error: { code: string; message: string; details?: Record<string, unknown> } | null;
  startedAt: string;
  completedAt: string | null;
}

/** A run as `GET /api/v1/runs/:id` answers it (fields the screen does not know are shown as data). */
export interface Run {
  id: number;
  kind: 'skill' | 'workflow';
  slug: string;
  name: string;
  status: string;
  reviewState: string | null;
  pausedAt: string | null;
  input: unknown;
  output: unknown;
  stepResults: Record<string, { output: unknown }> | null;
  error: unknown;
  review: {
    decision: string;
    by: string;
    note: string | null;
    reason: string | null;
    at: string;
  } | null;
  agentSlug: string | null;
  workspaceSha: string | null;
  rating: 'up' | 'down' | null;
  feedbackNote: string | null;
  feedbackAt: string | null;
  createdBy: string;
  createdAt: string;
  completedAt: string | null;
  /** Its tool calls in order (`[]` without tools). */
  toolCalls: ToolCall[];
  [other: string]: unknown;
}

/** One row of `GET /api/v1/runs/:id/transitions`. */
export interface Transition {
  id: number;
  actorKind: string;
  actorId: number;
  from: string | null;
  event: unknown;
  to: string;
  actor: string;
  at: string;
}

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
