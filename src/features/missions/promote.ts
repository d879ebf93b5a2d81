/**
 * `mission_promote` (docs/api.md#missions): a completed mission run's task graph as a reusable workflow,
 * written through the workspace's one write path (validate → write → commit → apply only when asked).
 *
 * Steps: the tasks in dependency order (plan order among the ready ones), each a skill step named
 * after the task; a task that ran a skill runs it again, a task that ran the generic task prompt gets
 * a prompt skill of its own (`<workflow>-<task>`) written with the workflow, whose prompt is the
 * task's goal and instructions and whose input `previous` is the outputs of the steps it depended on.
 * An approve step stands where the mission had a review: first (plan review), last (result review).
 */
import type { MissionTask } from '../../../machines/index.js';
import { type SkillManifest, skillManifestSchema, type WorkflowManifest } from '../workspace/index.js';
import type { MissionRunView } from './view.js';

/** The tasks in an order where each comes after those it depends on (plan order otherwise). */
export function dependencyOrder(tasks: readonly MissionTask[]): MissionTask[] {
  const done = new Set<string>();
  const ordered: MissionTask[] = [];
  while (ordered.length < tasks.length) {
    const next = tasks.find((t) => !done.has(t.id) && t.dependsOn.every((d) => done.has(d)));
    if (!next) throw new Error('the task graph has a cycle');
    done.add(next.id);
    ordered.push(next);
  }
  return ordered;
}

/** Literal text inside a template: `{{` would start a placeholder. */
function literal(text: string): string {
  return text.replaceAll('{{', '{ {').replaceAll('}}', '} }');
}

/** A slug for a task's own skill: `<workflow>-<task>`, lowercased, at most 63 characters. */
function taskSkillSlug(workflow: string, task: string): string {
  const tail = task.toLowerCase().replace(/[^a-z0-9-]+/g, '-');
  return `${workflow}-${tail}`.slice(0, 63).replace(/-+$/, '');
}

/** The workflow (and the task skills it needs) of a completed mission run. */
export function promotedResources(
  run: Pick<MissionRunView, 'id' | 'goal' | 'plan' | 'mission'> & { review: 'plan' | 'result' | 'both' },
  slug: string,
  name: string,
): {
  workflow: WorkflowManifest;
  skills: Array<{ manifest: SkillManifest; promptMd: string }>;
} {
  const tasks = dependencyOrder((run.plan?.tasks ?? []) as MissionTask[]);
  const skills: Array<{ manifest: SkillManifest; promptMd: string }> = [];
  const steps: WorkflowManifest['steps'] = [];
  if (run.review === 'plan' || run.review === 'both') {
    steps.push({ name: 'review-plan', type: 'approve', title: 'Review the plan' });
  }
  for (const task of tasks) {
    const previous = task.dependsOn.map((dep) => `## ${dep}\n{{steps.${dep}.output}}`).join('\n\n');
    let skill = task.skill;
    if (!skill) {
      skill = taskSkillSlug(slug, task.id);
      skills.push({
        manifest: skillManifestSchema.parse({
          slug: skill,
          name: task.title.slice(0, 200),
          description: `Task "${task.id}" of mission run ${run.id}${run.mission ? ` (mission ${run.mission})` : ''}`,
        }),
        promptMd: [
          `Goal: ${literal(run.goal)}`,
          '',
          `Your task: ${literal(task.title)}`,
          literal(task.instructions),
          '',
          'Results this builds on:',
          '{{input.previous}}',
        ].join('\n'),
      });
    }
    steps.push({ name: task.id, type: 'skill', skill, input: { previous } });
  }
  if (run.review === 'result' || run.review === 'both') {
    steps.push({ name: 'review-result', type: 'approve', title: 'Review the result' });
  }
  const workflow = {
    slug,
    name,
    description: `Promoted from mission run ${run.id}${run.mission ? ` of mission ${run.mission}` : ''}.`,
    trigger: { type: 'manual' as const },
    inputSchema: { type: 'object' },
    steps,
  } as WorkflowManifest;
  return { workflow, skills };
}
