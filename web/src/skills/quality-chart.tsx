/**
 * A skill's quality over its versions as a line chart: approval rate and edit rate per workspace
 * version, oldest left. SVG drawn here rather than with a charting package: two polylines on a 0–100%
 * axis are a few dozen lines, and the web bundle takes no dependency for them. The figures are also
 * in the table beside it (the chart is `role="img"` with a summary for screen readers).
 */
import type { Quality } from '../wire.js';

type Version = Quality['versions'][number];

const WIDTH = 640;
const HEIGHT = 220;
const PAD = { left: 44, right: 16, top: 12, bottom: 36 };

/** The two series the chart draws: which figure, its label and its line's class. */
const SERIES = [
  { key: 'approvalRate', label: 'Approval rate', css: 'line-approval' },
  { key: 'editRate', label: 'Edit rate', css: 'line-edit' },
] as const;

const percent = (rate: number | null) => (rate === null ? '—' : `${Math.round(rate * 100)}%`);

export function QualityChart({ versions }: { versions: Version[] }) {
  const oldestFirst = [...versions].reverse();
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const x = (i: number) =>
    PAD.left + (oldestFirst.length === 1 ? plotWidth / 2 : (i * plotWidth) / (oldestFirst.length - 1));
  const y = (rate: number) => PAD.top + (1 - rate) * plotHeight;
  const summary = oldestFirst
    .map(
      (v) =>
        `${(v.workspaceSha ?? 'unknown').slice(0, 7)}: approval ${percent(v.approvalRate)}, edits ${percent(v.editRate)}`,
    )
    .join('; ');
  return (
    <figure class="quality-chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`Approval and edit rate per version, oldest first: ${summary}`}
      >
        {[0, 0.5, 1].map((tick) => (
          <g key={tick}>
            <line class="grid" x1={PAD.left} x2={WIDTH - PAD.right} y1={y(tick)} y2={y(tick)} />
            <text x={PAD.left - 6} y={y(tick) + 4} text-anchor="end">
              {percent(tick)}
            </text>
          </g>
        ))}
        {oldestFirst.map((v, i) => (
          <text key={v.workspaceSha ?? i} x={x(i)} y={HEIGHT - 12} text-anchor="middle">
            {(v.workspaceSha ?? '?').slice(0, 7)}
          </text>
        ))}
        {SERIES.map((series) => {
          const points = oldestFirst
            .map((v, i) => [i, v[series.key]] as const)
            .filter((p): p is readonly [number, number] => p[1] !== null);
          return (
            <g key={series.key} class={series.css}>
              <polyline points={points.map(([i, rate]) => `${x(i)},${y(rate)}`).join(' ')} />
              {points.map(([i, rate]) => (
                <circle key={i} cx={x(i)} cy={y(rate)} r={4} />
              ))}
            </g>
          );
        })}
      </svg>
      <figcaption>
        {SERIES.map((series) => (
          <span key={series.key} class={`legend ${series.css}`}>
            {series.label}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
