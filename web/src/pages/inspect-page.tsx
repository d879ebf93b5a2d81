/**
 * The inspector (/inspect/:kind/:id): the kind's statechart laid out by elkjs, the actor's current
 * state highlighted, its transition log beside it, and a slider that replays its states step by
 * step; live while the actor moves (the slider follows unless moved back).
 */
import { useEffect } from 'preact/hooks';
import { when } from '../format.js';
import { followActor, loadMachine, loadTransitions } from '../inspect/inspector-data.js';
import { RunForkPanel } from '../inspect/run-fork-panel.js';
import { StatechartView } from '../inspect/statechart-view.js';
import { inspectorStore } from '../stores/inspector-store.js';
import { useSelector } from '../stores/use-selector.js';
import { NotFoundPage } from './not-found-page.js';

export function InspectPage({ kind, id }: { kind: string; id: string }) {
  const state = useSelector(inspectorStore, (c) => c);
  useEffect(() => {
    inspectorStore.trigger.opened({ kind, id });
    void loadMachine(kind);
    void loadTransitions(kind, id);
    return followActor(kind, id);
  }, [kind, id]);

  if (state.notFound) return <NotFoundPage what={kind} />;
  const applied = state.transitions.slice(0, state.step);
  const last = applied[applied.length - 1] ?? null;
  const current = last?.to ?? null;
  return (
    <main id="main" class="inspect-page">
      <h1>
        {kind} {id}
      </h1>
      {state.error && (
        <p class="error" role="alert">
          {state.error}
        </p>
      )}
      <div class="row replay">
        <label for="replay-step">Step</label>
        <input
          id="replay-step"
          type="range"
          min={0}
          max={state.transitions.length}
          value={state.step}
          onInput={(e) => inspectorStore.trigger.stepped({ step: Number(e.currentTarget.value) })}
        />
        <output for="replay-step" aria-live="polite">
          {state.step} of {state.transitions.length}: {current ?? 'not started'}
        </output>
      </div>
      {(kind === 'skill-run' || kind === 'workflow-run') && <RunForkPanel key={id} kind={kind} id={id} />}
      <div class="inspect-grid">
        {state.layout ? (
          <StatechartView
            layout={state.layout}
            title={`${kind} statechart`}
            current={current}
            lastEdge={last ? { from: last.from, to: last.to, event: last.event } : null}
          />
        ) : (
          <p aria-busy="true">Laying out the statechart…</p>
        )}
        <section aria-labelledby="log-title">
          <h2 id="log-title">Transitions</h2>
          <ol class="log">
            {state.transitions.map((t) => (
              <li
                key={t.seq}
                class={t.seq === state.step ? 'current' : t.seq > state.step ? 'future' : undefined}
              >
                <button type="button" onClick={() => inspectorStore.trigger.stepped({ step: t.seq })}>
                  {t.seq}. {t.from ?? '∅'} → {t.to}
                </button>
                <span class="muted">
                  {' '}
                  {t.event} · {t.by} · {when(t.at)}
                </span>
              </li>
            ))}
          </ol>
        </section>
      </div>
    </main>
  );
}
