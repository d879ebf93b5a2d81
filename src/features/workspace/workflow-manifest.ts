/**
 * The workflow manifest (`workflows/<slug>.yaml`): trigger, steps, input schema, and the cross-step rules
 * (unique step names; templates refer to earlier steps and declared inputs only).
 */
import { z } from 'zod';
import { cronError } from './cron.js';
import {
  descriptionSchema,
  freeObjectSchema,
  jsonSchemaSchema,
  nameSchema,
  slugSchema,
} from './manifest-fields.js';
import { findTemplateRefs, stringsIn } from './templates.js';

/**
 * What a workflow step name looks like. Narrower than free text because names appear inside
 * `{{steps.<name>.output.<field>}}`, so they cannot contain `.`, spaces or braces.
 */
export const STEP_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,62}$/;

/** What starts a workflow run besides `POST /workflows/:slug/runs` (which works for every trigger). */
export const workflowTriggerSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('manual') }),
  z.strictObject({
    type: z.literal('schedule'),
    cron: z.string().superRefine((cron, ctx) => {
      const error = cronError(cron);
      if (error) ctx.addIssue({ code: 'custom', message: error });
    }),
  }),
  z.strictObject({ type: z.literal('object.created'), objectType: slugSchema }),
]);

const stepNameSchema = z
  .string()
  .regex(STEP_NAME_PATTERN, 'must be 1-63 letters, digits, "_" or "-", not starting with "-"');

/**
 * A step that runs a skill. `input` is free-form; its strings may contain `{{input.x}}` and
 * `{{steps.<earlier step>.output.<field>}}`.
 */
export const skillStepSchema = z.strictObject({
  name: stepNameSchema,
  type: z.literal('skill'),
  skill: slugSchema,
  input: freeObjectSchema.default(() => ({})),
});

/** A step that pauses the run until a reviewer approves it; `assignTo` is a user id. */
export const approveStepSchema = z.strictObject({
  name: stepNameSchema,
  type: z.literal('approve'),
  title: z.string().min(1).max(200).optional(),
  assignTo: z.string().min(1).max(200).optional(),
  /** The review policy of this gate's items (`review-policies/<slug>.yaml`); absent: the org's `default`. */
  reviewPolicy: slugSchema.optional(),
});

/** One workflow step; more step types will join this union. */
export const workflowStepSchema = z.discriminatedUnion('type', [skillStepSchema, approveStepSchema]);
/** A workflow step. */
export type WorkflowStep = z.output<typeof workflowStepSchema>;

const workflowFields = {
  name: nameSchema,
  description: descriptionSchema,
  trigger: workflowTriggerSchema,
  inputSchema: jsonSchemaSchema,
  steps: z.array(workflowStepSchema).min(1).max(100),
};

/**
 * Input fields a workflow's `inputSchema` allows, or `undefined` when it allows any (only a top-level
 * `additionalProperties: false` closes the set, as JSON Schema itself says).
 */
function closedInputFields(inputSchema: Record<string, unknown>): Set<string> | undefined {
  if (inputSchema.additionalProperties !== false) return undefined;
  const properties = inputSchema.properties;
  const names = properties !== null && typeof properties === 'object' ? Object.keys(properties) : [];
  return new Set(names);
}

/** Cross-step rules: unique names; templates name earlier steps and declared input fields only. */
function checkSteps(
  workflow: { inputSchema: Record<string, unknown>; steps: readonly WorkflowStep[] },
  ctx: z.RefinementCtx,
): void {
  const firstIndex = new Map<string, number>();
  workflow.steps.forEach((step, index) => {
    const other = firstIndex.get(step.name);
    if (other === undefined) firstIndex.set(step.name, index);
    else {
      ctx.addIssue({
        code: 'custom',
        path: ['steps', index, 'name'],
        message: `duplicate step name "${step.name}" (also step ${other})`,
      });
    }
  });
  const inputFields = closedInputFields(workflow.inputSchema);
  workflow.steps.forEach((step, index) => {
    for (const { path, text } of stringsIn(step, ['steps', index])) {
      for (const ref of findTemplateRefs(text)) {
        const issue = (message: string) => ctx.addIssue({ code: 'custom', path, message });
        if (ref.kind === 'invalid') issue(ref.message);
        else if (ref.kind === 'input') {
          const field = ref.path[0];
          if (field !== undefined && inputFields && !inputFields.has(field)) {
            issue(`{{${ref.expression}}}: "${field}" is not a property of inputSchema`);
          }
        } else {
          const target = firstIndex.get(ref.step);
          if (target === undefined) issue(`{{${ref.expression}}}: there is no step "${ref.step}"`);
          else if (target === index) issue(`{{${ref.expression}}}: a step cannot use its own output`);
          else if (target > index) {
            issue(
              `{{${ref.expression}}}: step "${ref.step}" runs later (step ${target}); use an earlier step`,
            );
          }
        }
      }
    }
  });
}

/**
 * A workflow manifest (`workflows/<slug>.yaml`, body of `POST /workflows`). Required: `slug`, `name`,
 * `steps` (at least one). Defaults: description `''`, trigger `{type: 'manual'}`, inputSchema
 * `{type: 'object'}`.
 */
export const workflowManifestSchema = z
  .strictObject({
    slug: slugSchema,
    name: workflowFields.name,
    description: workflowFields.description.default(''),
    trigger: workflowFields.trigger.default(() => ({ type: 'manual' as const })),
    inputSchema: workflowFields.inputSchema.default(() => ({ type: 'object' })),
    steps: workflowFields.steps,
  })
  .superRefine(checkSteps);
/** A validated workflow manifest. */
export type WorkflowManifest = z.output<typeof workflowManifestSchema>;

/** Any subset of a workflow's fields (body of `PATCH /workflows/:slug`); `steps` replaces all steps. */
export const workflowManifestPatchSchema = z.strictObject({ ...workflowFields, slug: slugSchema }).partial();
