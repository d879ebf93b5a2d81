/**
 * Editing a mission's plan at plan review: each task's title, agent (one of the team's), instructions
 * and dependencies (the other tasks, as checkboxes), and removing a task (tasks that waited for it no
 * longer do). What the approval sends is the plan as a planner proposes it; the API checks it as it
 * checks a planner's (ids, dependencies, no cycle, the team, maxTasks) and refuses an invalid one.
 */
import type { MissionRun } from '../wire.js';

/** A task as a planner proposes it (what a plan edit is made of). */
export interface PlanTask {
  id: string;
  title: string;
  agent: string;
  skill: string | null;
  instructions: string;
  dependsOn: string[];
}

/** The plan of `run` as a planner proposes it (the run's own fields dropped). */
export function plannedTasks(run: MissionRun): PlanTask[] {
  return (run.plan?.tasks ?? []).map(({ id, title, agent, skill, instructions, dependsOn }) => ({
    id,
    title,
    agent,
    skill,
    instructions,
    dependsOn: [...dependsOn],
  }));
}

export function PlanEditor(props: { tasks: PlanTask[]; team: string[]; onChange(tasks: PlanTask[]): void }) {
  const { tasks } = props;
  const set = (index: number, patch: Partial<PlanTask>) =>
    props.onChange(tasks.map((task, i) => (i === index ? { ...task, ...patch } : task)));
  const remove = (id: string) =>
    props.onChange(
      tasks
        .filter((task) => task.id !== id)
        .map((task) => ({ ...task, dependsOn: task.dependsOn.filter((d) => d !== id) })),
    );
  return (
    <ol class="tasks plan-editor">
      {tasks.map((task, index) => (
        <li key={task.id} class="task stack output-editor">
          <h3>
            Task <code>{task.id}</code>
          </h3>
          <label for={`plan-${task.id}-title`}>Title</label>
          <input
            id={`plan-${task.id}-title`}
            value={task.title}
            onInput={(e) => set(index, { title: e.currentTarget.value })}
          />
          <label for={`plan-${task.id}-agent`}>Agent</label>
          <select
            id={`plan-${task.id}-agent`}
            value={task.agent}
            onChange={(e) => set(index, { agent: e.currentTarget.value })}
          >
            {[...new Set([task.agent, ...props.team])].map((agent) => (
              <option key={agent} value={agent}>
                {agent}
              </option>
            ))}
          </select>
          <label for={`plan-${task.id}-instructions`}>Instructions</label>
          <textarea
            id={`plan-${task.id}-instructions`}
            rows={5}
            value={task.instructions}
            onInput={(e) => set(index, { instructions: e.currentTarget.value })}
          />
          {tasks.length > 1 && (
            <fieldset>
              <legend>Waits for</legend>
              {tasks
                .filter((other) => other.id !== task.id)
                .map((other) => (
                  <label key={other.id} class="check">
                    <input
                      type="checkbox"
                      checked={task.dependsOn.includes(other.id)}
                      onChange={(e) =>
                        set(index, {
                          dependsOn: e.currentTarget.checked
                            ? [...task.dependsOn, other.id]
                            : task.dependsOn.filter((d) => d !== other.id),
                        })
                      }
                    />{' '}
                    {other.id}
                  </label>
                ))}
            </fieldset>
          )}
          {tasks.length > 1 && (
            <button type="button" class="danger" onClick={() => remove(task.id)}>
              Remove task {task.id}
            </button>
          )}
        </li>
      ))}
    </ol>
  );
}
