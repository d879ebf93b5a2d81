/**
 * A mission's plan (docs/api.md "Missions"): a task graph `{tasks: [{id, title, agent, skill?, instructions,
 * dependsOn}]}`, its zod schema, where it is found in a planner's output, and what makes it valid: the
 * schema, ids unique, every `dependsOn` naming another task, no cycle, every agent in the team, at
 * least one and at most `maxTasks` tasks. Pure: the machine validates a proposed plan itself.
 */
import { z } from 'zod';
import type { JsonObject } from '../shared/schemas.js';

/** A task id: what a workflow step name may be too (`mission_promote` makes steps of tasks). */
export const TASK_ID_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,62}$/;

/** One task as a planner proposes it. */
export const planTaskSchema = z.object({
  id: z.string().regex(TASK_ID_PATTERN, 'must be 1-63 letters, digits, "_" or "-", not starting with "-"'),
  title: z.string().min(1).max(200),
  agent: z.string().min(1).max(200),
  skill: z.string().min(1).max(200).nullish(),
  instructions: z.string().max(20_000),
  dependsOn: z.array(z.string()).max(100).default([]),
});

/** A plan as a planner proposes it (other keys of the planner's answer are ignored). */
export const planSchema = z.object({ tasks: z.array(planTaskSchema) });

/** A proposed plan. */
export type Plan = z.output<typeof planSchema>;

/** A plan, or every reason it is not a valid one (each a sentence naming the task or field). */
export type PlanCheck = { ok: true; plan: Plan } | { ok: false; errors: string[] };

/** The JSON object in a model's text answer: the whole text, or a fenced ```json block in it. */
function jsonIn(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  for (const candidate of [text.trim(), fenced?.[1]?.trim()]) {
    if (!candidate) continue;
    try {
      return JSON.parse(candidate);
    } catch {
      // not JSON: try the next candidate
    }
  }
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start >= 0 && end > start) {
    try {
      return JSON.parse(text.slice(start, end + 1));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The plan object in a planner's output: `{tasks}` itself (JSON mode) or JSON in its `text`. */
export function planCandidate(output: JsonObject): unknown {
  if ('tasks' in output) return output;
  return typeof output.text === 'string' ? jsonIn(output.text) : undefined;
}

/** The cycle among `tasks` as `a → b → a`, or null. */
function findCycle(tasks: readonly { id: string; dependsOn: readonly string[] }[]): string[] | null {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | null => {
    const seen = state.get(id);
    if (seen === 'done') return null;
    if (seen === 'visiting') return [...path.slice(path.indexOf(id)), id];
    state.set(id, 'visiting');
    path.push(id);
    for (const dep of byId.get(id)?.dependsOn ?? []) {
      if (!byId.has(dep)) continue;
      const cycle = visit(dep);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(id, 'done');
    return null;
  };
  for (const task of tasks) {
    const cycle = visit(task.id);
    if (cycle) return cycle;
  }
  return null;
}

/** Checks a planner's output as a plan for a mission of `team` with at most `maxTasks` tasks. */
export function checkPlan(
  output: JsonObject,
  limits: { team: readonly string[]; maxTasks: number },
): PlanCheck {
  const candidate = planCandidate(output);
  if (candidate === undefined) {
    return { ok: false, errors: ['the answer is not a JSON object of the form {"tasks": [...]}'] };
  }
  const parsed = planSchema.safeParse(candidate);
  if (!parsed.success) {
    return {
      ok: false,
      errors: parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
    };
  }
  const { tasks } = parsed.data;
  const errors: string[] = [];
  if (tasks.length === 0) errors.push('tasks: a plan needs at least one task');
  if (tasks.length > limits.maxTasks) {
    errors.push(`tasks: ${tasks.length} tasks, more than the mission allows (maxTasks ${limits.maxTasks})`);
  }
  const ids = new Set<string>();
  tasks.forEach((task, index) => {
    if (ids.has(task.id)) errors.push(`tasks.${index}.id: "${task.id}" is used by another task`);
    ids.add(task.id);
    if (!limits.team.includes(task.agent)) {
      errors.push(
        `tasks.${index}.agent: "${task.agent}" is not in the team (${limits.team.map((a) => `"${a}"`).join(', ')})`,
      );
    }
  });
  tasks.forEach((task, index) => {
    task.dependsOn.forEach((dep, d) => {
      if (dep === task.id) errors.push(`tasks.${index}.dependsOn.${d}: a task cannot depend on itself`);
      else if (!ids.has(dep)) errors.push(`tasks.${index}.dependsOn.${d}: there is no task "${dep}"`);
    });
  });
  const cycle = findCycle(tasks.map((t) => ({ id: t.id, dependsOn: t.dependsOn.filter((d) => d !== t.id) })));
  if (cycle) errors.push(`dependsOn: the tasks form a cycle (${cycle.join(' → ')})`);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, plan: parsed.data };
}
