/**
 * Reading a run for the review screen — the run, its history, its review item (the revision the
 * screen shows) and its steps — following it live, and acting on it through the queue's API: decide
 * (bound to the revision shown, with the reviewer's edits), assign, snooze, rate.
 */
import { ApiError, api } from '../api.js';
import { namePeople } from '../people/people-data.js';
import { openRunStream } from '../run-stream.js';
import { type Run, reviewStore, type Transition } from '../stores/review-store.js';
import type { ReviewAnswer } from '../wire.js';
import { assignItem, decideOnScreen, STALE_NOTICE, snoozeItem, undoItem } from './screen-decisions.js';

/** Each run's kind once read (a screen's path names a run by id only). */
const kinds = new Map<number, Run['kind']>();

/** The run's review item and steps, or null for a run that never waited for review. */
async function readItem(kind: Run['kind'], runId: number): Promise<ReviewAnswer | null> {
  try {
    return await api<ReviewAnswer>('GET', `/reviews/${kind}/${runId}`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/**
 * Reads the run (as its review item's subject: the run and the revision are read together), its
 * history, item and steps (404, another org's run included: the screen says not found).
 */
export async function loadRun(runId: number): Promise<void> {
  try {
    let kind = kinds.get(runId);
    let first: Run | null = null;
    if (!kind) {
      first = await api<Run>('GET', `/runs/${runId}`);
      kind = first.kind;
      kinds.set(runId, kind);
    }
    const [answer, { transitions }] = await Promise.all([
      readItem(kind, runId),
      api<{ transitions: Transition[] }>('GET', `/runs/${runId}/transitions`),
    ]);
    const run = (answer?.subject as Run | undefined) ?? first ?? (await api<Run>('GET', `/runs/${runId}`));
    reviewStore.trigger.loaded({
      run,
      transitions,
      review: answer?.review ?? null,
      policy: answer?.policy ?? null,
      steps: answer?.steps ?? null,
    });
    void namePeople([run.createdBy, run.review?.by, ...transitions.map((t) => t.actor)]);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) reviewStore.trigger.missing();
    else reviewStore.trigger.failed({ error: (error as Error).message });
  }
}

/** Reads the run again at each of its events while the screen is open; returns the stop function. */
export function followRun(runId: number): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const reload = () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      void loadRun(runId);
    }, 50);
  };
  const source = openRunStream(runId, reload);
  return () => {
    source.close();
    if (timer) clearTimeout(timer);
  };
}

/**
 * Runs `call` as the screen's action: busy meanwhile, the run read again after, errors shown; the
 * notice says `done`, or what `call` answers instead.
 */
async function act(runId: number, call: () => Promise<unknown>, done: string): Promise<void> {
  reviewStore.trigger.busy({ busy: true });
  reviewStore.trigger.failed({ error: null });
  try {
    const said = await call();
    reviewStore.trigger.noticed({ notice: typeof said === 'string' ? said : done });
  } catch (error) {
    reviewStore.trigger.failed({ error: (error as Error).message });
  } finally {
    // Read while still busy: the change it reads is this screen's own, not one made elsewhere.
    await loadRun(runId);
    reviewStore.trigger.busy({ busy: false });
  }
}

/**
 * The edits of an approval of `run` from the reviewer's edited step outputs: a skill run's
 * `{output}`, a workflow's `{stepOutputs}`; null when nothing was edited.
 */
export function runEdits(
  run: Run,
  edited: Readonly<Record<string, unknown>>,
): Record<string, unknown> | null {
  const steps = Object.keys(edited);
  if (steps.length === 0) return null;
  if (run.kind === 'skill') return { output: edited[run.slug] };
  return { stepOutputs: { ...edited } };
}

/**
 * Decides `run` bound to the revision the screen shows: approved with the reviewer's edits, rejected,
 * or sent back with the reason for a new draft (request changes). Changed elsewhere: nothing decided,
 * the screen says so and shows the current version.
 */
export function decideRun(
  run: Run,
  revision: string | null,
  action: 'approve' | 'reject' | 'request_changes',
  text: string,
): Promise<void> {
  const { edited } = reviewStore.getSnapshot().context;
  const edits = action === 'approve' ? runEdits(run, edited) : null;
  return act(
    run.id,
    async () => {
      const item = reviewStore.getSnapshot().context.review;
      const outcome = await decideOnScreen({
        kind: run.kind,
        id: run.id,
        revision,
        action,
        text,
        edits,
        item,
      });
      if (outcome === 'stale') {
        reviewStore.trigger.staled({ stale: STALE_NOTICE });
        return 'Nothing was decided: the item changed elsewhere.';
      }
      reviewStore.trigger.staled({ stale: null });
      reviewStore.trigger.editsCleared();
      return undefined;
    },
    action === 'approve'
      ? edits
        ? 'Approved with your changes.'
        : 'Approved.'
      : action === 'reject'
        ? 'Rejected.'
        : 'Sent back for changes: the model is writing a new draft.',
  );
}

/**
 * Withdraws the decision `run`'s item holds (taken with a delay): the item is open again, and the
 * edits that approval carried are back in the editors, as they were before approving.
 */
export function undoRun(run: Run): Promise<void> {
  const edits = reviewStore.getSnapshot().context.review?.decision?.edits ?? null;
  return act(
    run.id,
    async () => {
      if ((await undoItem(run.kind, run.id)) === 'too_late') return 'Too late to undo: it took effect.';
      for (const [step, output] of Object.entries(editedSteps(run, edits))) {
        reviewStore.trigger.edited({ step, output });
      }
      return 'Undone: the item is open again.';
    },
    '',
  );
}

/** The edited step outputs of an approval's `edits` (the inverse of runEdits). */
function editedSteps(run: Run, edits: Record<string, unknown> | null): Record<string, unknown> {
  if (!edits) return {};
  if (run.kind === 'skill') return 'output' in edits ? { [run.slug]: edits.output } : {};
  return (edits.stepOutputs ?? {}) as Record<string, unknown>;
}

export const assignRun = (run: Run, assignedTo: string | null) =>
  act(
    run.id,
    () => assignItem(run.kind, run.id, assignedTo),
    assignedTo ? `Assigned to ${assignedTo}.` : 'Sent back to triage.',
  );

export const snoozeRun = (run: Run, until: Date) =>
  act(run.id, () => snoozeItem(run.kind, run.id, until), 'Snoozed.');

export const rateRun = (run: Run, rating: 'up' | 'down' | null, note: string) =>
  act(
    run.id,
    () => api('POST', `/runs/${run.id}/feedback`, { rating, ...(note ? { note } : {}) }),
    'Feedback saved.',
  );
