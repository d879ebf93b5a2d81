/**
 * A skill's page (/skills/:slug): what reviewers made of its runs per workspace version
 * (`GET /skills/:slug/quality`), as a chart over versions and as a table of every figure.
 */
import { when } from '../format.js';
import { QualityChart } from '../skills/quality-chart.js';
import { useRead } from '../use-read.js';
import type { Quality } from '../wire.js';
import { LoadingPage } from './loading-page.js';
import { NotFoundPage } from './not-found-page.js';

const percent = (rate: number | null) => (rate === null ? '—' : `${Math.round(rate * 1000) / 10}%`);

export function SkillPage({ slug }: { slug: string }) {
  const { value: quality, missing, error } = useRead<Quality>(`/skills/${encodeURIComponent(slug)}/quality`);

  if (missing) return <NotFoundPage what="skill" />;
  if (!quality) return <LoadingPage error={error} />;
  const versions = quality.versions;
  return (
    <main id="main" class="skill-page">
      <p>
        <a href="/review">← Queue</a>
      </p>
      <h1>Skill {slug}</h1>
      <h2>Quality per version</h2>
      {versions.length === 0 ? (
        <p class="muted">No runs yet.</p>
      ) : (
        <>
          <QualityChart versions={versions} />
          <div class="table-scroll">
            <table class="quality">
              <caption class="visually-hidden">Quality per version, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Version</th>
                  <th scope="col">Runs</th>
                  <th scope="col">Approved</th>
                  <th scope="col">Rejected</th>
                  <th scope="col">Edited</th>
                  <th scope="col">Changes requested</th>
                  <th scope="col">Approval rate</th>
                  <th scope="col">Edit rate</th>
                  <th scope="col">Ratings (up / down)</th>
                  <th scope="col">Runs from – to</th>
                </tr>
              </thead>
              <tbody>
                {versions.map((v) => (
                  <tr key={v.workspaceSha ?? 'none'}>
                    <th scope="row">
                      <code>{(v.workspaceSha ?? 'unknown').slice(0, 12)}</code>
                    </th>
                    <td>{v.runs}</td>
                    <td>{v.approved}</td>
                    <td>{v.rejected}</td>
                    <td>{v.edited}</td>
                    <td>{v.changesRequested}</td>
                    <td>{percent(v.approvalRate)}</td>
                    <td>{percent(v.editRate)}</td>
                    <td>
                      {v.ratingsUp} / {v.ratingsDown}
                    </td>
                    <td>
                      {when(v.firstRunAt)} – {when(v.lastRunAt)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </main>
  );
}
