/** Reading a run for the review screen, following it live, and acting on it. */
import { ApiError, api } from '../api.js';
import { namePeople } from '../people/people-data.js';
import { openRunStream } from '../run-stream.js';
import { type Run, reviewStore, type Transition } from '../stores/review-store.js';

/** Reads the run and its history (404, another org's run included: the screen says not found). */
export async function loadRun(runId: number): Promise<void> {
  try {
    const [run, { transitions }] = await Promise.all([
      api<Run>('GET', `/runs/${runId}`),
      api<{ transitions: Transition[] }>('GET', `/runs/${runId}/transitions`),
    ]);
    reviewStore.trigger.loaded({ run, transitions });
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

/** Runs `call` as the screen's action: busy meanwhile, the run read again after, errors shown. */
async function act(runId: number, call: () => Promise<unknown>, done: string): Promise<void> {
  reviewStore.trigger.busy({ busy: true });
  reviewStore.trigger.failed({ error: null });
  try {
    await call();
    reviewStore.trigger.noticed({ notice: done });
  } catch (error) {
    reviewStore.trigger.failed({ error: (error as Error).message });
  } finally {
    reviewStore.trigger.busy({ busy: false });
    await loadRun(runId);
  }
}

export const approveRun = (run: Run, note: string) =>
  act(run.id, () => api('POST', `/runs/${run.id}/approve`, note ? { note } : {}), 'Approved.');

export const rejectRun = (run: Run, reason: string) =>
  act(run.id, () => api('POST', `/runs/${run.id}/reject`, { reason }), 'Rejected.');

export const assignRun = (run: Run, assignedTo: string | null) =>
  act(
    run.id,
    () => api('POST', '/reviews/assign?limit=1', { kind: run.kind, id: run.id, assignedTo }),
    assignedTo ? `Assigned to ${assignedTo}.` : 'Sent back to triage.',
  );

export const snoozeRun = (run: Run, until: Date) =>
  act(
    run.id,
    () => api('POST', '/reviews/snooze?limit=1', { kind: run.kind, id: run.id, until: until.toISOString() }),
    'Snoozed.',
  );

export const rateRun = (run: Run, rating: 'up' | 'down' | null, note: string) =>
  act(
    run.id,
    () => api('POST', `/runs/${run.id}/feedback`, { rating, ...(note ? { note } : {}) }),
    'Feedback saved.',
  );
