/**
 * A run's lineage and the objects it used, as facts (`dt`/`dd` pairs of a `dl.facts`): the run it
 * forks (and from which step) or replays, the runs that fork it, the object instances it used (named
 * in its body, or returned by its tools). The review page and the inspector show them.
 */
import type { Run } from '../wire.js';

const runLink = (id: number) => <a href={`/review/runs/${id}`}>run {id}</a>;

export function RunLineage({ run }: { run: Run }) {
  return (
    <>
      {run.forkOf && (
        <>
          <dt>Fork of</dt>
          <dd>
            {runLink(run.forkOf.runId)}
            {run.forkOf.fromStep && ` from step ${run.forkOf.fromStep}`}
          </dd>
        </>
      )}
      {run.replayOf !== null && (
        <>
          <dt>Replay of</dt>
          <dd>
            {runLink(run.replayOf)}
            {run.shadow && ' (an evaluation’s shadow run)'}
          </dd>
        </>
      )}
      {run.forks.length > 0 && (
        <>
          <dt>Forks</dt>
          <dd>
            {run.forks.map((id, i) => (
              <span key={id}>
                {i > 0 && ', '}
                {runLink(id)}
              </span>
            ))}
          </dd>
        </>
      )}
      {run.objects.length > 0 && (
        <>
          <dt>Objects used</dt>
          <dd>
            <ul class="plain">
              {run.objects.map((o) => (
                <li key={o.id}>
                  {o.title}{' '}
                  <span class="muted">
                    ({o.slug} {o.id}, {o.via === 'input' ? 'named' : 'found by a tool'})
                  </span>
                </li>
              ))}
            </ul>
          </dd>
        </>
      )}
    </>
  );
}
