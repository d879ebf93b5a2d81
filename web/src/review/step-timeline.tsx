/**
 * A workflow run's steps in order, as the version it runs defines them: each skill step with its
 * output once done (editable before approving the gate the run waits at, from its skill's
 * outputSchema), each gate with its title, its assignee and — once passed — who approved it. Where
 * the run is: done (or, in a fork, copied from the run it forks), waiting here for review, or not
 * reached yet.
 */
import { PersonName } from '../components/person-name.js';
import type { ReviewStep, Run } from '../stores/review-store.js';
import { DraftView } from './draft-view.js';
import { OutputEditor } from './output-editor.js';
import { CopiedFrom } from './run-lineage.js';

/** Where a step stands in the run. */
function stateOf(run: Run, step: ReviewStep): 'done' | 'waiting' | 'failed' | 'later' {
  if (run.stepResults && step.name in run.stepResults) return 'done';
  if (run.pausedAt === step.name && run.status === 'paused') return 'waiting';
  const error = run.error as { step?: string } | null;
  if (error?.step === step.name) return 'failed';
  return 'later';
}

const STATE_WORDS = { done: 'done', waiting: 'waiting for review', failed: 'failed', later: 'not reached' };

/** The approval a passed gate's result records. */
function gateApproval(output: unknown): { by: string; note: string | null } | null {
  if (!output || typeof output !== 'object') return null;
  const { by, note } = output as { by?: unknown; note?: unknown };
  return typeof by === 'string' ? { by, note: typeof note === 'string' ? note : null } : null;
}

export function StepTimeline(props: {
  run: Run;
  steps: ReviewStep[];
  /** Whether skill steps done before the gate the run waits at may be edited (a reviewer, while paused). */
  canEdit: boolean;
  edited: Readonly<Record<string, unknown>>;
  onEdit(step: string, output: unknown): void;
  onInvalid(control: string, bad: boolean): void;
}) {
  const { run, steps } = props;
  return (
    <ol class="timeline">
      {steps.map((step, index) => {
        const state = stateOf(run, step);
        const result = run.stepResults?.[step.name]?.output;
        const editing = step.name in props.edited;
        return (
          <li key={step.name} class={`step step-${state}`} data-step={step.name}>
            <h3>
              <span class="muted">{index + 1}.</span>{' '}
              {step.type === 'approve' ? (step.title ?? step.name) : step.name}{' '}
              <span class={`status status-${state}`}>{STATE_WORDS[state]}</span>
              <CopiedFrom run={run} step={step.name} />
            </h3>
            {step.type === 'approve' ? (
              <p>
                Review gate <code>{step.name}</code>
                {step.assignTo ? <>, assigned to {step.assignTo}</> : ', for any reviewer'}
                {state === 'done' &&
                  (() => {
                    const approval = gateApproval(result);
                    return approval ? (
                      <>
                        {' '}
                        — approved by <PersonName actor={approval.by} />
                        {approval.note && <> (note: {approval.note})</>}
                      </>
                    ) : null;
                  })()}
              </p>
            ) : (
              <p class="muted">Skill {step.skill}</p>
            )}
            {step.type === 'skill' && state === 'done' && (
              <>
                {editing ? (
                  <OutputEditor
                    id={`edit-${step.name}`}
                    value={props.edited[step.name]}
                    schema={step.outputSchema ?? null}
                    onChange={(output) => props.onEdit(step.name, output)}
                    onInvalid={props.onInvalid}
                  />
                ) : (
                  <DraftView output={result} runId={run.id} />
                )}
                {props.canEdit && (
                  <button
                    type="button"
                    onClick={() =>
                      props.onEdit(step.name, editing ? undefined : structuredClone(result ?? {}))
                    }
                  >
                    {editing ? `Discard changes to ${step.name}` : `Edit ${step.name} before approving`}
                  </button>
                )}
              </>
            )}
          </li>
        );
      })}
    </ol>
  );
}
