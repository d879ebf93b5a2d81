/**
 * The review queue: `review-item` actors (one per waiting subject), the queue's routes (list,
 * decide, assign, snooze), and the contract by which other features put their subjects in it:
 * register the kind (`subjects.register`), then open and close items from their own transitions
 * (`items.open`/`items.close`). The queue knows no subject: a decision goes to the subject's owner.
 */
import { reviewItemMachine } from '../../../machines/index.js';
import { reader } from '../../platform/actors/tx.js';
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { WorkspaceApi } from '../workspace/index.js';
import { auditCommand } from './audit-cli.js';
import { ReviewDecisions } from './decisions.js';
import { createReviewItems, type ReviewItems } from './items.js';
import { ReviewLedger } from './ledger.js';
import { ledgerRoutes } from './ledger-routes.js';
import { reviewTools } from './mcp-tools.js';
import { Migration0004Reviews } from './migrations/0004-reviews.js';
import { Migration0036ReviewSubjectIndex } from './migrations/0036-review-subject-index.js';
import { Migration0037ReviewEdits } from './migrations/0037-review-edits.js';
import { Migration0040ReviewSummary } from './migrations/0040-review-summary.js';
import { Migration0042ReviewLedger } from './migrations/0042-review-ledger.js';
import { Migration0043ReviewLedgerPending } from './migrations/0043-review-ledger-pending.js';
import { Migration0044ReviewPolicies } from './migrations/0044-review-policies.js';
import { Migration0045ReviewApprovals } from './migrations/0045-review-approvals.js';
import { Migration0054ReviewRounds } from './migrations/0054-review-rounds.js';
import { Migration0055ReviewDeciding } from './migrations/0055-review-deciding.js';
import { Migration0056ReviewDeadlines } from './migrations/0056-review-deadlines.js';
import { ReviewPolicies } from './policy/in-force.js';
import { reviewPolicyRoutes } from './policy/routes.js';
import { ReviewPolicyViews } from './policy/views.js';
import { reviewStreamRoutes } from './queue-stream.js';
import { reviewItemKind } from './review-item-kind.js';
import { reviewRoutes } from './routes.js';
import { ReviewService } from './service.js';
import type { ReviewKind, ReviewSubject } from './subjects.js';

export {
  type DecisionRequest,
  ifMatchRevision,
  type ReviewDecisions,
} from './decisions.js';
export type { ReviewDecision, ReviewItems, ReviewSubjectRef } from './items.js';
export type { PolicyInForce, PolicyNamer, ReviewPolicies } from './policy/in-force.js';
export {
  REVIEW_EVENT_TYPES,
  type ReviewEventData,
  type ReviewEventType,
  reviewEventData,
  reviewEventDataSchema,
  reviewEventPayloadSchema,
  reviewWebhookType,
} from './review-events.js';
export { REVIEW_ITEM_KIND } from './review-item-kind.js';
export { delaySecondsSchema } from './routes.js';
export type { ReviewService } from './service.js';
export {
  badEdit,
  changeRequestAudit,
  changeRequestEvent,
  type Decider,
  decisionEvent,
  REVIEW_KINDS,
  REVIEW_STATUS_OF_KIND,
  type ReviewKind,
  type ReviewStep,
  type ReviewSubject,
  type SubjectChangeRequest,
  type SubjectDecision,
  type SubjectOutcome,
  subjectOutcome,
} from './subjects.js';
export { draftSummary, oneLineSummary } from './summary.js';

/** What the reviews feature offers. */
export interface ReviewsApi {
  reviews: ReviewService;
  /** The one choke point of decisions: every path that decides an item calls it. */
  decisions: ReviewDecisions;
  /** Open and close items from the owner's transitions. */
  reviewItems: ReviewItems;
  /** The decision ledger (read side: the API's list, `r3 audit verify|export`). */
  ledger: ReviewLedger;
  /**
   * Review policies (decisions.md §16): `inForce(orgId, {kind, id})` is the policy an item follows
   * (policy/in-force.ts).
   */
  reviewPolicies: ReviewPolicies;
  /** Where owners register the subjects of their kinds of item. */
  reviewSubjects: { register(kind: ReviewKind, subject: ReviewSubject): void };
}

export const reviewsFeature = defineFeature({
  name: 'reviews',
  migrations: [
    { name: '0004-reviews', class: Migration0004Reviews },
    { name: '0036-review-subject-index', class: Migration0036ReviewSubjectIndex },
    { name: '0037-review-edits', class: Migration0037ReviewEdits },
    { name: '0040-review-summary', class: Migration0040ReviewSummary },
    { name: '0042-review-ledger', class: Migration0042ReviewLedger },
    { name: '0043-review-ledger-pending', class: Migration0043ReviewLedgerPending },
    { name: '0044-review-policies', class: Migration0044ReviewPolicies },
    { name: '0045-review-approvals', class: Migration0045ReviewApprovals },
    { name: '0054-review-rounds', class: Migration0054ReviewRounds },
    { name: '0055-review-deciding', class: Migration0055ReviewDeciding },
    { name: '0056-review-deadlines', class: Migration0056ReviewDeadlines },
  ],
  commands: [auditCommand],
  machines: { 'review-item': reviewItemMachine },
  register(platform: Platform, { workspace }: { workspace: WorkspaceApi }): ReviewsApi {
    const ledger = new ReviewLedger(platform.db.sql, platform.log);
    const policies = new ReviewPolicies(platform.db.sql, workspace.workspace);
    const subjects = new Map<ReviewKind, ReviewSubject>();
    const decisions = new ReviewDecisions({
      db: platform.db.sql,
      host: platform.actors,
      clock: platform.clock,
      subjects,
      policies,
      log: platform.log,
    });
    platform.actors.register(reviewItemKind(ledger, decisions));
    const reviews = new ReviewService({
      db: platform.db.sql,
      host: platform.actors,
      clock: platform.clock,
      subjects,
      decisions,
      policies,
    });
    platform.routes.add(
      ...reviewRoutes(reviews),
      ...reviewStreamRoutes(platform.bus),
      ...ledgerRoutes(ledger),
      ...reviewPolicyRoutes(workspace, new ReviewPolicyViews(platform.db.sql)),
    );
    platform.mcp.add(...reviewTools(decisions));
    return {
      ledger,
      reviewPolicies: policies,
      reviews,
      decisions,
      // An item opens with the terms of the policy in force (deadline, required approvals), read in
      // the opening transaction.
      reviewItems: createReviewItems(
        platform.actors,
        platform.log,
        async (tx, subject) => (await policies.inForce(subject.orgId, subject, reader(tx))).rules,
      ),
      reviewSubjects: {
        register(kind, subject) {
          if (subjects.has(kind)) throw new Error(`review subject ${kind} registered twice`);
          subjects.set(kind, subject);
        },
      },
    };
  },
});
