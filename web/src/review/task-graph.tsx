/**
 * A mission plan's task graph, drawn: each task a box in the column of its depth (a task's column is
 * one past its deepest dependency), an arrow from each dependency to the task that waits for it; the
 * box's colour and its text say the task's status. The layout is computed here — columns by depth,
 * rows by plan order — rather than by elkjs (which lays out the statecharts): a plan is a small DAG
 * whose columns are its dependency depths, drawn synchronously without loading elkjs's chunk. A
 * dependency cycle or unknown id (a plan being edited) puts the task in the first column.
 */
import type { MissionRun } from '../wire.js';

type Task = Pick<NonNullable<MissionRun['plan']>['tasks'][number], 'id' | 'title' | 'dependsOn'> & {
  status?: string;
};

const BOX_W = 180;
const BOX_H = 46;
const GAP_X = 60;
const GAP_Y = 16;

/** Each task's column: 0 without dependencies, else one past its deepest dependency's. */
function depths(tasks: readonly Task[]): Map<string, number> {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const depth = new Map<string, number>();
  const visiting = new Set<string>();
  const of = (id: string): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    const task = byId.get(id);
    if (!task || visiting.has(id)) return -1;
    visiting.add(id);
    const d = Math.max(-1, ...task.dependsOn.map(of)) + 1;
    visiting.delete(id);
    depth.set(id, d);
    return d;
  };
  for (const task of tasks) of(task.id);
  return depth;
}

/** A title cut to what fits a box's line. */
const clipped = (text: string, chars = 24) => (text.length > chars ? `${text.slice(0, chars - 1)}…` : text);

export function TaskGraph({ tasks }: { tasks: readonly Task[] }) {
  if (tasks.length === 0) return null;
  const depth = depths(tasks);
  const rows = new Map<number, number>();
  const place = new Map<string, { x: number; y: number }>();
  for (const task of tasks) {
    const column = depth.get(task.id) ?? 0;
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    place.set(task.id, { x: column * (BOX_W + GAP_X), y: row * (BOX_H + GAP_Y) });
  }
  const width = (Math.max(...depth.values(), 0) + 1) * (BOX_W + GAP_X) - GAP_X + 2;
  const height = Math.max(...rows.values()) * (BOX_H + GAP_Y) - GAP_Y + 2;
  const described = tasks
    .map((task) =>
      task.dependsOn.length > 0 ? `${task.id} after ${task.dependsOn.join(' and ')}` : `${task.id} first`,
    )
    .join('; ');
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region (axe: scrollable-region-focusable)
    <figure class="task-graph" tabIndex={0}>
      <svg
        role="img"
        aria-label={`Task graph: ${described}.`}
        width={width}
        height={height}
        viewBox={`-1 -1 ${width} ${height}`}
      >
        <defs>
          <marker
            id="task-arrow"
            viewBox="0 0 10 10"
            refX="10"
            refY="5"
            markerWidth="8"
            markerHeight="8"
            orient="auto"
          >
            <path d="M0,0 L10,5 L0,10 z" class="arrow" />
          </marker>
        </defs>
        {tasks.flatMap((task) =>
          task.dependsOn.map((dep) => {
            const from = place.get(dep);
            const to = place.get(task.id);
            if (!from || !to) return null;
            return (
              <line
                key={`${dep}->${task.id}`}
                class="edge"
                x1={from.x + BOX_W}
                y1={from.y + BOX_H / 2}
                x2={to.x}
                y2={to.y + BOX_H / 2}
                marker-end="url(#task-arrow)"
              />
            );
          }),
        )}
        {tasks.map((task) => {
          const at = place.get(task.id) ?? { x: 0, y: 0 };
          return (
            <g key={task.id} class={`task-node status-${task.status ?? 'pending'}`} data-task={task.id}>
              <rect class="task-box" x={at.x} y={at.y} width={BOX_W} height={BOX_H} rx={6} />
              <text class="task-title" x={at.x + 8} y={at.y + 18}>
                {clipped(task.title)}
              </text>
              <text class="task-meta" x={at.x + 8} y={at.y + 36}>
                {clipped(`${task.id}${task.status ? ` · ${task.status}` : ''}`)}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
