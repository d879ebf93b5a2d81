import { z } from 'zod';
import { entityIdSchema, eventSchema, isoTimestampSchema, principalSchema } from '../shared/schemas.js';
import { isAfter } from '../shared/time.js';
import { deferredDecisionSchema, reviewDeadlinePolicySchema } from './context.js';

/**
 * A timer's event: `{type, [key]: when the timer was set for, at}` — `key` names which timer, so a
 * stale one (of a snooze, deadline or delayed decision since changed) is refused.
 */
function timerEventSchema<T extends string, K extends string>(type: T, key: K) {
  return eventSchema(type, { [key]: isoTimestampSchema } as { [P in K]: typeof isoTimestampSchema });
}

/** What the host passes to `initialTransition(reviewItemMachine, input)` when a run asks for review. */
export const reviewItemInputSchema = z.strictObject({
  kind: z.enum(['skill', 'workflow', 'mission', 'action']),
  runId: entityIdSchema,
  title: z.string().min(1),
  /** What the item is about in one line, if anything yet. */
  summary: z.string().nullish(),
  assignedTo: principalSchema.nullish(),
  /** Change requests made on the subject before this item (its round is one more). */
  rounds: z.number().int().min(0).optional(),
  /** The deadline the policy in force sets (its `dueIn`), if any: the item is due `dueInMs` after `at`. */
  deadline: reviewDeadlinePolicySchema.nullish(),
  /** How many distinct users must approve (the review policy's `required`; absent: 1). */
  required: z.number().int().min(1).max(5).optional(),
  at: isoTimestampSchema,
});

/** Input of a review item. */
export type ReviewItemInput = z.infer<typeof reviewItemInputSchema>;

/** Route the item to a user (`assignedTo`), or back to the triage lane (null). */
export const reviewAssignEventSchema = eventSchema('ASSIGN', {
  assignedTo: principalSchema.nullable(),
  note: z.string().nullish(),
  by: principalSchema,
});

/** Route the item. */
export type ReviewAssignEvent = z.infer<typeof reviewAssignEventSchema>;

/**
 * Hide the item from the active queue until `until`. A past `until` is a validation error here (400);
 * the machine's guard refuses it too, for callers that skip the schema.
 */
export const reviewSnoozeEventSchema = eventSchema('SNOOZE', {
  until: isoTimestampSchema,
  by: principalSchema,
}).refine((event) => isAfter(event.until, event.at), {
  message: 'until must be in the future',
  path: ['until'],
});

/** Snooze the item. */
export type ReviewSnoozeEvent = z.infer<typeof reviewSnoozeEventSchema>;

/** The snooze timer fired; `until` identifies which snooze, so a stale timer is refused. */
export const reviewWakeEventSchema = timerEventSchema('WAKE', 'until');

/** The snooze timer fired. */
export type ReviewWakeEvent = z.infer<typeof reviewWakeEventSchema>;

/**
 * A deadline timer fired: `DUE_SOON` at `dueAt − remindBefore`, `DUE` at `dueAt`. `dueAt` identifies
 * which deadline the timer was scheduled for, so a timer of a deadline since moved is refused.
 */
export const reviewDueSoonEventSchema = timerEventSchema('DUE_SOON', 'dueAt');

/** The reminder timer fired. */
export type ReviewDueSoonEvent = z.infer<typeof reviewDueSoonEventSchema>;

/** The deadline timer fired (see {@link reviewDueSoonEventSchema}). */
export const reviewDueEventSchema = timerEventSchema('DUE', 'dueAt');

/** The deadline timer fired. */
export type ReviewDueEvent = z.infer<typeof reviewDueEventSchema>;

/**
 * A reviewer decided; the host dispatches the decision to the run (approve/reject, resume/cancel, or
 * `request_changes`: the draft goes back with `reason`, which closes this item as `changes_requested`).
 */
export const reviewDecideEventSchema = eventSchema('DECIDE', {
  action: z.enum(['approve', 'reject', 'request_changes']),
  by: principalSchema,
  reason: z.string().nullish(),
  /** Whether the subject's owner applied the reviewer's edits with the decision. */
  edited: z.boolean().optional(),
});

/** A reviewer decided. */
export type ReviewDecideEvent = z.infer<typeof reviewDecideEventSchema>;

/**
 * One approval of an item that needs more than one (`required`): the item stays open with it (a new
 * revision). `by` is the approving user's id; the same user twice is refused.
 */
export const reviewApprovalEventSchema = eventSchema('APPROVAL', { by: principalSchema });

/** One approval of several. */
export type ReviewApprovalEvent = z.infer<typeof reviewApprovalEventSchema>;

/**
 * What a reviewer sees of the subject changed while the item is open (a pending skill run's draft
 * arrived): the item stays as it is, with a new version, so its revision changes.
 */
export const reviewSubjectChangedEventSchema = eventSchema('SUBJECT_CHANGED', {
  /** The item's new summary (absent: it stays as it is). */
  summary: z.string().nullish(),
});

/** What a reviewer sees of the subject changed. */
export type ReviewSubjectChangedEvent = z.infer<typeof reviewSubjectChangedEventSchema>;

/**
 * A reviewer decided with a delay (decisions.md §15 "Undo"): the item waits in `deciding` until
 * `effectiveAt` (after `at`), when the `decide` timer sends TAKE_EFFECT; UNDO before then reopens it.
 */
export const reviewDeferEventSchema = deferredDecisionSchema
  .extend({ type: z.literal('DEFER') })
  .refine((event) => isAfter(event.effectiveAt, event.at), {
    message: 'effectiveAt must be after at',
    path: ['effectiveAt'],
  });

/** A reviewer decided with a delay. */
export type ReviewDeferEvent = z.infer<typeof reviewDeferEventSchema>;

/** A reviewer withdrew the delayed decision before its `effectiveAt`: the item is open again. */
export const reviewUndoEventSchema = eventSchema('UNDO', { by: principalSchema });

/** A reviewer withdrew the delayed decision. */
export type ReviewUndoEvent = z.infer<typeof reviewUndoEventSchema>;

/**
 * The `decide` timer fired: the delayed decision goes to the subject's owner (whose transition then
 * closes the item with DECIDE). `effectiveAt` names which decision, so a stale timer is refused.
 */
export const reviewTakeEffectEventSchema = timerEventSchema('TAKE_EFFECT', 'effectiveAt');

/** The `decide` timer fired. */
export type ReviewTakeEffectEvent = z.infer<typeof reviewTakeEffectEventSchema>;

/** The run went away (cancelled or failed): the item leaves the queue undecided. */
export const reviewCancelEventSchema = eventSchema('CANCEL', {});

/** The run went away. */
export type ReviewCancelEvent = z.infer<typeof reviewCancelEventSchema>;

/** Every event a review item understands (whether a state accepts it is the machine's call). */
export const reviewItemEventSchema = z.discriminatedUnion('type', [
  reviewAssignEventSchema,
  reviewSnoozeEventSchema,
  reviewWakeEventSchema,
  reviewDueSoonEventSchema,
  reviewDueEventSchema,
  reviewDecideEventSchema,
  reviewApprovalEventSchema,
  reviewSubjectChangedEventSchema,
  reviewCancelEventSchema,
  reviewDeferEventSchema,
  reviewUndoEventSchema,
  reviewTakeEffectEventSchema,
]);

/** An event of a review item. */
export type ReviewItemEvent = z.infer<typeof reviewItemEventSchema>;
