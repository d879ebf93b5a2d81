/**
 * r3's persisted actors: the pure state machines, their wire schemas and their row projections.
 *
 * Terminology:
 * - kind: the name of an actor kind (`skill-run`, …); it is also the machine's `id`, and together
 *   with the machine's `version` it identifies the definition a persisted snapshot belongs to.
 * - input: what `initialTransition(machine, input)` takes when an actor is created.
 * - event: what `transition(machine, snapshot, event)` takes. An event the current state does not
 *   accept is unhandled there (`snapshot.can(event)` is false): the host answers 409.
 * - effect: a named action with JSON params the host performs (see `shared/effects.ts`).
 * - projection: the queryable row columns derived from a snapshot (`status` = top-level state).
 *
 * Everything here is pure: xstate and zod only, no clock, no I/O. Which machines r3 runs is not
 * listed here: each feature declares the machines of its actor kinds (`defineFeature`'s `machines`),
 * and src/features.ts derives the whole list from the features.
 */

export {
  MISSION_REVIEW_MODES,
  MISSION_REVIEW_STAGES,
  MISSION_TASK_STATUSES,
  type MissionReview,
  type MissionRunContext,
  type MissionTask,
  missionRunContextSchema,
} from './mission-run/context.js';
export {
  type MissionRunEvent,
  type MissionRunInput,
  missionRunEventSchema,
  missionRunInputSchema,
} from './mission-run/events.js';
export {
  MAX_PLAN_ATTEMPTS,
  MISSION_RUN_STATUSES,
  type MissionRunMachine,
  type MissionRunProjection,
  type MissionRunStatus,
  missionRunMachine,
  projectMissionRun,
  tasksToStart,
} from './mission-run/machine.js';
export { checkPlan, type Plan, planSchema, TASK_ID_PATTERN } from './mission-run/plan.js';
export {
  type ProposalContext,
  type ProposalError,
  type ProposalReview,
  proposalContextSchema,
  proposalErrorSchema,
  proposalReviewSchema,
} from './proposal/context.js';
export {
  type ProposalEvent,
  type ProposalInput,
  proposalEventSchema,
  proposalInputSchema,
} from './proposal/events.js';
export {
  PROPOSAL_STATUSES,
  type ProposalMachine,
  type ProposalProjection,
  type ProposalStatus,
  projectProposal,
  proposalMachine,
} from './proposal/machine.js';
export {
  type DeferredDecision,
  deferredDecisionSchema,
  REVIEW_DEADLINE_STAGES,
  type ReviewApproval,
  type ReviewDeadline,
  type ReviewDeadlinePolicy,
  type ReviewDeadlineStage,
  type ReviewDecision,
  type ReviewItemContext,
  reviewDeadlinePolicySchema,
  reviewDeadlineSchema,
  reviewDecisionSchema,
  reviewItemContextSchema,
} from './review-item/context.js';
export {
  type ReviewApprovalEvent,
  type ReviewAssignEvent,
  type ReviewCancelEvent,
  type ReviewDecideEvent,
  type ReviewDeferEvent,
  type ReviewDueEvent,
  type ReviewDueSoonEvent,
  type ReviewItemEvent,
  type ReviewItemInput,
  type ReviewSnoozeEvent,
  type ReviewSubjectChangedEvent,
  type ReviewTakeEffectEvent,
  type ReviewUndoEvent,
  type ReviewWakeEvent,
  reviewAssignEventSchema,
  reviewCancelEventSchema,
  reviewDecideEventSchema,
  reviewDeferEventSchema,
  reviewDueEventSchema,
  reviewDueSoonEventSchema,
  reviewItemEventSchema,
  reviewItemInputSchema,
  reviewSnoozeEventSchema,
  reviewSubjectChangedEventSchema,
  reviewTakeEffectEventSchema,
  reviewUndoEventSchema,
  reviewWakeEventSchema,
} from './review-item/events.js';
export {
  DECIDE_TIMER_ID,
  DUE_SOON_TIMER_ID,
  DUE_TIMER_ID,
  ESCALATED_NOTE,
  projectReviewItem,
  REVIEW_ITEM_STATUSES,
  type ReviewItemMachine,
  type ReviewItemProjection,
  type ReviewItemStatus,
  reviewItemMachine,
  SNOOZE_TIMER_ID,
} from './review-item/machine.js';
export {
  type CancelChildrenParams,
  type CancelTimerParams,
  type CloseReviewParams,
  type DispatchDecisionParams,
  EFFECT_TYPES,
  type Effect,
  type EmitProposalEventParams,
  type EmitReviewEventParams,
  type EnqueueJobParams,
  MISSION_EVENT_NAMES,
  type MissionEventName,
  type NotifyParams,
  type OpenReviewParams,
  PROPOSAL_EVENT_NAMES,
  type ProposalEventName,
  REVIEW_EVENT_NAMES,
  type RecordEventParams,
  type RecordMissionEventParams,
  type RejectOnTimeoutParams,
  type ReviewEventName,
  RUN_EVENT_NAMES,
  type RunEventName,
  type ScheduleTimerParams,
  type StartPlannerParams,
  type StartTaskParams,
  type TimerEvent,
  toEffects,
  type UpdateReviewParams,
} from './shared/effects.js';
export {
  isEdit,
  MAX_REVIEW_ROUNDS,
  type ReviewRound,
  type RunApproveEvent,
  type RunCancelEvent,
  type RunError,
  type RunRejectEvent,
  type RunRequestChangesEvent,
  type RunReview,
  reviewRoundSchema,
  roundFrom,
  runApproveEventSchema,
  runCancelEventSchema,
  runErrorSchema,
  runRejectEventSchema,
  runRequestChangesEventSchema,
  runReviewSchema,
  type StepFailedEvent,
  type StepResults,
  type StepSucceededEvent,
  stepErrorSchema,
  stepFailedEventSchema,
  stepResultsSchema,
  stepSucceededEventSchema,
  type ToolCompletedEvent,
  type ToolsRequestedEvent,
  toolCompletedEventSchema,
  toolsRequestedEventSchema,
} from './shared/run.js';
export { type JsonObject, jsonObjectSchema } from './shared/schemas.js';
export {
  FINAL_MISSION_RUN_STATUSES,
  FINAL_PROPOSAL_STATUSES,
  FINAL_RUN_STATUSES,
  RUN_STATUSES,
  type RunStatus,
  SKILL_RUN_DECISION_EVENTS,
} from './shared/vocabulary.js';
export {
  SKILL_RUN_REVIEW_STATES,
  type SkillRunContext,
  type SkillRunReviewState,
  skillRunContextSchema,
} from './skill-run/context.js';
export {
  type SkillRunEvent,
  type SkillRunInput,
  skillRunEventSchema,
  skillRunInputSchema,
} from './skill-run/events.js';
export {
  projectSkillRun,
  SKILL_RUN_STATUSES,
  type SkillRunMachine,
  type SkillRunProjection,
  type SkillRunStatus,
  skillRunMachine,
} from './skill-run/machine.js';
export { type WebhookDeliveryContext, webhookDeliveryContextSchema } from './webhook-delivery/context.js';
export {
  type AttemptFailedEvent,
  type AttemptStartedEvent,
  type AttemptSucceededEvent,
  attemptFailedEventSchema,
  attemptStartedEventSchema,
  attemptSucceededEventSchema,
  DEFAULT_BACKOFF_MS,
  DEFAULT_MAX_ATTEMPTS,
  deliveryIdSchema,
  type RetryDueEvent,
  retryDueEventSchema,
  type WebhookDeliveryEvent,
  type WebhookDeliveryInput,
  webhookDeliveryEventSchema,
  webhookDeliveryInputSchema,
} from './webhook-delivery/events.js';
export {
  backoffAfter,
  projectWebhookDelivery,
  RETRY_TIMER_ID,
  WEBHOOK_DELIVERY_STATUSES,
  type WebhookDeliveryMachine,
  type WebhookDeliveryProjection,
  type WebhookDeliveryStatus,
  webhookDeliveryMachine,
} from './webhook-delivery/machine.js';
export {
  DISABLED_REASONS,
  type DisabledReason,
  type WebhookEndpointContext,
  webhookEndpointContextSchema,
} from './webhook-endpoint/context.js';
export {
  type DeliveryFailedEvent,
  type DeliverySucceededEvent,
  deliveryFailedEventSchema,
  deliverySucceededEventSchema,
  type EndpointDisableEvent,
  type EndpointEnableEvent,
  endpointDisableEventSchema,
  endpointEnableEventSchema,
  type WebhookEndpointEvent,
  type WebhookEndpointInput,
  webhookEndpointEventSchema,
  webhookEndpointInputSchema,
} from './webhook-endpoint/events.js';
export {
  DISABLE_AFTER_CONSECUTIVE_FAILURES,
  projectWebhookEndpoint,
  WEBHOOK_ENDPOINT_STATUSES,
  type WebhookEndpointMachine,
  type WebhookEndpointProjection,
  type WebhookEndpointStatus,
  webhookEndpointMachine,
} from './webhook-endpoint/machine.js';
export { type WorkflowRunContext, workflowRunContextSchema } from './workflow-run/context.js';
export {
  type GateReachedEvent,
  gateReachedEventSchema,
  type WorkflowRunEvent,
  type WorkflowRunInput,
  type WorkflowStep,
  workflowRunEventSchema,
  workflowRunInputSchema,
  workflowStepSchema,
} from './workflow-run/events.js';
export {
  projectWorkflowRun,
  WORKFLOW_RUN_STATUSES,
  type WorkflowRunMachine,
  type WorkflowRunProjection,
  type WorkflowRunStatus,
  workflowRunMachine,
} from './workflow-run/machine.js';
