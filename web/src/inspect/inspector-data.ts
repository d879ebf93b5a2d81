/** Loading what the inspector draws, and keeping the transitions current while the actor moves. */

import { ApiError, api } from '../api.js';
import { openRunStream } from '../run-stream.js';
import { type ActorTransition, inspectorStore } from '../stores/inspector-store.js';
import { layoutMachine, type MachineNode } from './statechart-layout.js';

export async function loadMachine(kind: string): Promise<void> {
  try {
    const machine = await api<MachineNode>('GET', `/machines/${encodeURIComponent(kind)}`);
    inspectorStore.trigger.laidOut({ layout: await layoutMachine(machine) });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) inspectorStore.trigger.missing();
    else inspectorStore.trigger.failed({ error: (error as Error).message });
  }
}

export async function loadTransitions(kind: string, id: string): Promise<void> {
  try {
    const { transitions } = await api<{ transitions: ActorTransition[] }>(
      'GET',
      `/actors/${encodeURIComponent(kind)}/${encodeURIComponent(id)}/transitions`,
    );
    const { kind: nowKind, id: nowId } = inspectorStore.getSnapshot().context;
    if (nowKind === kind && nowId === id) inspectorStore.trigger.transitionsLoaded({ transitions });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) inspectorStore.trigger.missing();
    else inspectorStore.trigger.failed({ error: (error as Error).message });
  }
}

/**
 * Reads the transitions again as the actor moves: a run's event stream for runs, else every 2 s
 * while the page is visible. Returns the stop function.
 */
export function followActor(kind: string, id: string): () => void {
  const refresh = () => void loadTransitions(kind, id);
  if (kind === 'skill-run' || kind === 'workflow-run') {
    const source = openRunStream(id, refresh);
    return () => source.close();
  }
  const timer = setInterval(() => {
    if (document.visibilityState === 'visible') refresh();
  }, 2_000);
  return () => clearInterval(timer);
}
