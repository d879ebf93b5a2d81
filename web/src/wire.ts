/**
 * The API's wire types, as the generated client declares them (client/schema.d.ts, which
 * `npm run client:generate` writes from r3's OpenAPI document): the web UI names the shapes it reads
 * here instead of copying the server's by hand, so a change of the server's schema is a type error
 * in the UI, not a silent drift.
 */
import type { operations } from '../../client/schema.js';

/** The JSON body operation `Op` answers with `status`. */
type Body<Op extends keyof operations, Status extends number = 200> =
  operations[Op]['responses'] extends Record<Status, { content: { 'application/json': infer B } }>
    ? B
    : never;

/** A run (`GET /runs/:id`). */
export type Run = Body<'getRunsById'>;
/** One tool call of a run's tool loop. */
export type ToolCall = Run['toolCalls'][number];
/** One row of `GET /runs/:id/transitions`. */
export type Transition = Body<'getRunsByIdTransitions'>['transitions'][number];
/** One row of `GET /actors/:kind/:id/transitions`. */
export type ActorTransition = Body<'getActorsByKindByIdTransitions'>['transitions'][number];
/** A review item as `GET /reviews` lists it. */
export type ReviewItem = Body<'getReviews'>['reviews'][number];
/** What `GET /reviews/:kind/:id` answers: the item, its subject, and a run's steps. */
export type ReviewAnswer = Body<'getReviewsByKindById'>;
/** A run's step as its review screen draws it (`steps` of `GET /reviews/:kind/:id`). */
export type ReviewStep = NonNullable<ReviewAnswer['steps']>[number];
/** A mission run (`GET /mission-runs/:id`). */
export type MissionRun = Body<'getMissionRunsById'>;
/** An object instance, with the runs that used it (`GET /objects/:id`). */
export type ObjectInstance = Body<'getObjectsById'>;
/** A proposal (`GET /proposals/:id`). */
export type Proposal = Body<'getProposalsById'>;
/** The signed-in session (`GET /session`). */
export type Session = Body<'getSession'>['session'];
/** A token as `GET /tokens` lists it (never its secret). */
export type TokenRow = Body<'getTokens'>['tokens'][number];
/** What `POST /tokens` answers. */
export type IssuedToken = Body<'postTokens', 201>;
/** A user of the org (`GET /users`). */
export type User = Body<'getUsers'>['users'][number];
/** Who an actor is (`GET /people`). */
export type Person = Body<'getPeople'>['people'][number];
/** A webhook (`GET /webhooks`). */
export type Webhook = Body<'getWebhooks'>['webhooks'][number];
/** A delivery of a webhook (`GET /webhooks/:id/deliveries`). */
export type Delivery = Body<'getWebhooksByIdDeliveries'>['deliveries'][number];
/** A delivery with its attempts (`GET /webhooks/:id/deliveries/:deliveryId`). */
export type DeliveryDetail = Body<'getWebhooksByIdDeliveriesByDeliveryId'>;
/** An OAuth authorization request as the consent page shows it (`GET /oauth/requests/:id`). */
export type ConsentRequest = Body<'getOauthRequestsById'>['request'];
/** What the consent page's decision answers (`POST /oauth/requests/:id/decision`). */
export type ConsentDecision = Body<'postOauthRequestsByIdDecision'>;
/** An evaluation (`GET /evaluations/:id`). */
export type Evaluation = Body<'getEvaluationsById'>;
/** One pair of an evaluation: a reviewed run beside its shadow replay. */
export type EvaluationPair = Evaluation['runs'][number];
/** A skill's or workflow's quality per version (`GET /skills/:slug/quality`). */
export type Quality = Body<'getSkillsBySlugQuality'>;
/** The review policy in force for an item, and what the caller may do (`policy` of `GET /reviews/:kind/:id`). */
export type PolicyInForce = ReviewAnswer['policy'];
/** A review policy with what names it (`GET /review-policies/:slug`). */
export type ReviewPolicy = Body<'getReviewPoliciesBySlug'>;
/** One entry of the decision ledger (`GET /audit/reviews`). */
export type LedgerEntry = Body<'getAuditReviews'>['entries'][number];
/** A review policy as `GET /review-policies` lists it. */
export type ReviewPolicyRow = Body<'getReviewPolicies'>['reviewPolicies'][number];
