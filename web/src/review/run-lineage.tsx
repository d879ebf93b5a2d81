/**
 * A run's lineage and the objects it used, as facts (`dt`/`dd` pairs of a `dl.facts`): the run it
 * forks (and from which step) or replays, the runs that fork it, the mission run it is part of, the
 * object instances it used (named in its body, or returned by its tools; each a link to its page)
 * and, from each object's side (`GET /objects/:id`), the other runs that used it. The review page and
 * the inspector show them; each is a link, never the run's raw fields.
 */
import { useRead } from '../use-read.js';
import type { ObjectInstance, Run } from '../wire.js';

const runLink = (id: number) => <a href={`/review/runs/${id}`}>run {id}</a>;

/** Links to runs `ids`, comma-separated. */
function RunLinks({ ids }: { ids: readonly number[] }) {
  return (
    <>
      {ids.map((id, i) => (
        <span key={id}>
          {i > 0 && ', '}
          {runLink(id)}
        </span>
      ))}
    </>
  );
}

/** The runs other than `runId` that used object `objectId`, once read (nothing when there are none). */
function OtherRuns({ objectId, runId }: { objectId: number; runId: number }) {
  const read = useRead<ObjectInstance>(`/objects/${objectId}`);
  const others = (read.value?.runs ?? []).map((r) => r.runId).filter((id) => id !== runId);
  if (others.length === 0) return null;
  return (
    <>
      {'; also used by '}
      <RunLinks ids={others} />
    </>
  );
}

/**
 * Said of a step whose result a fork copied from the run it forks (`copied: true`): that step did not
 * run again here. Text, not a link (it sits in summaries and headings; the facts link the run).
 */
export function CopiedFrom({ run, step }: { run: Run; step: string }) {
  if (!run.stepResults?.[step]?.copied || !run.forkOf) return null;
  return <span class="muted"> (copied from run {run.forkOf.runId})</span>;
}

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
      {run.missionRunId !== null && (
        <>
          <dt>Part of</dt>
          <dd>
            <a href={`/review/missions/${run.missionRunId}`}>mission run {run.missionRunId}</a>
          </dd>
        </>
      )}
      {run.forks.length > 0 && (
        <>
          <dt>Forks</dt>
          <dd>
            <RunLinks ids={run.forks} />
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
                  <a href={`/objects/${o.id}`}>{o.title}</a>{' '}
                  <span class="muted">
                    ({o.slug} {o.id}, {o.via === 'input' ? 'named' : 'found by a tool'}
                    <OtherRuns objectId={o.id} runId={run.id} />)
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
