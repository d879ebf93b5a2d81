/**
 * The inspector's run panel (skill and workflow runs): the run's lineage and the objects it used,
 * and "Fork from here" on each step a fork may start from — a step that has a result, or the step the
 * run paused or failed at (`POST /runs/:id/fork {fromStep}`: the steps before it are copied, it and
 * the later ones execute again); a skill run's one step forks the whole run. The fork opens in the
 * inspector once created.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { RunLineage } from '../review/run-lineage.js';
import { navigate } from '../stores/location-store.js';
import type { Run } from '../wire.js';

/** The steps a fork of `run` may start from, in the order the run reached them. */
function forkableSteps(run: Run): string[] {
  const steps = Object.keys(run.stepResults ?? {});
  const stopped = run.pausedAt ?? (run.error as { step?: string } | null)?.step;
  if (stopped && !steps.includes(stopped)) steps.push(stopped);
  return run.kind === 'skill' ? [run.slug] : steps;
}

export function RunForkPanel({ kind, id }: { kind: string; id: string }) {
  const [run, setRun] = useState<Run | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api<Run>('GET', `/runs/${id}`)
      .then(setRun)
      .catch((e: unknown) => setError((e as Error).message));
  }, [id]);
  if (!run) return error ? <p class="error">{error}</p> : null;
  const fork = async (step: string) => {
    setBusy(true);
    setError(null);
    try {
      const created = await api<{ runId: number }>(
        'POST',
        `/runs/${run.id}/fork`,
        run.kind === 'workflow' ? { fromStep: step } : {},
      );
      navigate(`/inspect/${kind}/${created.runId}`);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const running = run.status === 'running';
  return (
    <section aria-labelledby="run-title" class="run-fork">
      <h2 id="run-title">Run {run.id}</h2>
      <dl class="facts">
        <dt>Status</dt>
        <dd>{run.status}</dd>
        <RunLineage run={run} />
      </dl>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <ol class="fork-steps">
        {forkableSteps(run).map((step) => (
          <li key={step}>
            {step}{' '}
            <button
              type="button"
              disabled={busy || running}
              aria-label={`Fork from here: step ${step}`}
              onClick={() => void fork(step)}
            >
              Fork from here
            </button>
          </li>
        ))}
      </ol>
      {running && <p class="muted">A running run forks once it stopped.</p>}
    </section>
  );
}
