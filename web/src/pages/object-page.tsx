/**
 * An object instance's page (/objects/:id, where a run's "Objects used" link): its title, type and
 * source, its content and metadata, the instances it is linked with (both directions), and the runs
 * that used it (`GET /objects/:id`: shadow runs left out), each a link to its review page.
 */
import { when } from '../format.js';
import { BoundedText, JsonBlock } from '../review/draft-view.js';
import { useRead } from '../use-read.js';
import type { ObjectInstance } from '../wire.js';
import { LoadingPage } from './loading-page.js';
import { NotFoundPage } from './not-found-page.js';

export function ObjectPage({ id }: { id: number }) {
  const { value: object, missing, error } = useRead<ObjectInstance>(`/objects/${id}`);

  if (missing) return <NotFoundPage what="object" />;
  if (!object) return <LoadingPage error={error} />;
  return (
    <main id="main" class="object-page">
      <p>
        <a href="/review">← Queue</a>
      </p>
      <h1>
        {object.title}{' '}
        <span class="muted">
          ({object.type} {object.id})
        </span>
      </h1>
      <dl class="facts">
        <dt>Type</dt>
        <dd>{object.type}</dd>
        <dt>Status</dt>
        <dd>{object.status}</dd>
        {object.source && (
          <>
            <dt>Source</dt>
            <dd>
              {object.source}
              {object.externalId && <span class="muted"> ({object.externalId})</span>}
            </dd>
          </>
        )}
        <dt>Updated</dt>
        <dd>{when(object.updatedAt)}</dd>
      </dl>
      <section aria-labelledby="runs-title">
        <h2 id="runs-title">Runs that used it</h2>
        {object.runs.length === 0 ? (
          <p class="muted">No run used it yet.</p>
        ) : (
          <ul class="plain">
            {object.runs.map((r) => (
              <li key={r.runId}>
                <a href={`/review/runs/${r.runId}`}>run {r.runId}</a>{' '}
                <span class="muted">
                  ({r.kind} {r.slug}, {r.status}, {r.via === 'input' ? 'named' : 'found by a tool'})
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
      {object.documents.length > 0 && (
        <section aria-labelledby="documents-title">
          <h2 id="documents-title">Linked</h2>
          <ul class="plain">
            {object.documents.map((d) => (
              <li key={`${d.direction}-${d.id}-${d.relation}`}>
                {d.direction === 'outgoing' ? 'Links to ' : 'Linked from '}
                <a href={`/objects/${d.id}`}>{d.title}</a>{' '}
                <span class="muted">
                  ({d.type}, {d.relation})
                </span>
              </li>
            ))}
          </ul>
        </section>
      )}
      <section aria-labelledby="content-title">
        <h2 id="content-title">Content</h2>
        {object.content ? <BoundedText text={object.content} /> : <p class="muted">No content.</p>}
      </section>
      {Object.keys(object.metadata).length > 0 && (
        <section aria-labelledby="metadata-title">
          <h2 id="metadata-title">Metadata</h2>
          <JsonBlock value={object.metadata} bounded />
        </section>
      )}
    </main>
  );
}
