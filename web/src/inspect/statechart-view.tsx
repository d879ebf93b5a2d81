/** A laid-out statechart as SVG: states, nested states, labelled transitions; the current state and
 * the transition that led to it highlighted. */
import type { Layout } from './statechart-layout.js';

export function StatechartView(props: {
  layout: Layout;
  title: string;
  current: string | null;
  lastEdge: { from: string | null; to: string; event: string } | null;
}) {
  const { layout, current, lastEdge } = props;
  const isLast = (e: Layout['edges'][number]) =>
    !!lastEdge && e.from === (lastEdge.from ?? '') && e.to === lastEdge.to && e.event === lastEdge.event;
  return (
    // Focusable: a wide chart scrolls, and the keyboard must reach it.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region (axe: scrollable-region-focusable)
    <section class="chart-wrap" tabIndex={0} aria-label={props.title}>
      <svg
        class="statechart"
        role="img"
        aria-label={`${props.title}: current state ${current ?? 'none'}`}
        viewBox={`0 0 ${layout.width} ${layout.height}`}
        width={layout.width}
        height={layout.height}
      >
        <defs>
          <marker
            id="arrow"
            viewBox="0 0 10 10"
            refX="9"
            refY="5"
            markerWidth="7"
            markerHeight="7"
            orient="auto"
          >
            <path d="M0,0 L10,5 L0,10 z" class="arrow-head" />
          </marker>
          <marker
            id="arrow-hot"
            viewBox="0 0 10 10"
            refX="9"
            refY="5"
            markerWidth="7"
            markerHeight="7"
            orient="auto"
          >
            <path d="M0,0 L10,5 L0,10 z" class="arrow-head hot" />
          </marker>
        </defs>
        {layout.nodes.map((n) => (
          <g
            key={n.path}
            class={[
              'state',
              n.compound ? 'compound' : '',
              n.final ? 'final' : '',
              n.path === current ? 'current' : '',
            ].join(' ')}
            data-state={n.path}
          >
            <rect x={n.x} y={n.y} width={n.width} height={n.height} rx="8" />
            {n.final && (
              <rect class="inner" x={n.x + 3} y={n.y + 3} width={n.width - 6} height={n.height - 6} rx="6" />
            )}
            <text
              x={n.x + (n.compound ? 10 : n.width / 2)}
              y={n.y + (n.compound ? 20 : n.height / 2 + 5)}
              class={n.compound ? 'left' : 'middle'}
            >
              {n.label}
            </text>
          </g>
        ))}
        {layout.edges.map((e) => {
          const hot = isLast(e);
          return (
            <g key={e.id} class={hot ? 'edge hot' : 'edge'} data-event={e.event}>
              <polyline
                points={e.points.map((p) => `${p.x},${p.y}`).join(' ')}
                marker-end={hot ? 'url(#arrow-hot)' : 'url(#arrow)'}
              />
              <text x={e.label.x + 4} y={e.label.y + e.label.height - 5}>
                {e.label.text}
              </text>
            </g>
          );
        })}
      </svg>
    </section>
  );
}
