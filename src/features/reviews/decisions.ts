/**
 * The one choke point of review decisions (decisions.md §15): every path that decides a review item
 * — `POST /reviews/decide`, `POST /runs/:id/approve|reject`, the MCP tools (`runtime_approve_draft`,
 * `runtime_reject_draft`, `mission_approve`) and the web UI, which calls those routes — comes here,
 * and only here is a subject's owner asked to decide (`ReviewSubject.decide`). What a decision must
 * satisfy is checked here, in the decision's own transaction:
 *
 * - the item: the subject's open one (404 for none in the org, 409 when it has left the queue);
 * - the revision the reviewer saw (`revision` in the body, or `If-Match`): not the item's current one
 *   → 409 `{reason: "stale", revision: <current>}`, nothing changed. It is checked again on every
 *   attempt of the transaction: a reviewer who lost a race reads the item closed (revision null).
 *
 * - a change request (`action: "request_changes"`, decisions.md §15): `checkChangeRequest` — a reason,
 *   a kind whose owner takes one (skill runs, mission plans; else 400), fewer than
 *   `MAX_REVIEW_ROUNDS` rounds so far (else 409 `{reason: "max_rounds"}`); the owner's
 *   `requestChanges` then sends the draft back instead of `decide`.
 * - the review policy in force (`checkPolicy`, policy/enforce.ts, decisions.md §16): only its
 *   approvers decide (403 `not_an_approver`), the run's starter does not approve under
 *   `selfApproval: false` (403 `self_approval`), and while an item needs more approvals than it has
 *   (`required`), an approval is recorded on the item (APPROVAL: a new revision, ledger `approval`)
 *   instead of reaching the owner; the same user twice is 409 `already_approved`. Counted in the
 *   transaction, from the item it reads, so two approvers racing cannot both be "not the last".
 *
 * The owner's transition closes the item in the same transaction, from the copy read here
 * (`TransactOptions.loaded`), so a decision reads the item once.
 *
 * One decision is r3's own: an item whose deadline passes under a policy with `onTimeout: reject` is
 * rejected as `system:timeout` (`rejectOnTimeout`, in the deadline timer's transaction). No reviewer
 * takes it, so no reviewer's check applies; it reaches the owner as every other decision does.
 *
 * Stages with a module of their own:
 * - delay (delay.ts, decisions.md §15 "Undo"): `delaySeconds` > 0 hands the decision to the item
 *   instead (`deciding` until `effectiveAt`, a durable timer), which dispatches it to the owner then,
 *   unless undone (`undo`). A deciding item refuses any other decision (409).
 */

import { MAX_REVIEW_ROUNDS } from '../../../machines/index.js';
import { actingAs } from '../../platform/actors/acting-as.js';
import type { ActorHost, ActorTx, LoadedActor } from '../../platform/actors/host.js';
import type { MachineKind } from '../../platform/actors/kind.js';
import type { Attribution } from '../../platform/auth/attribution.js';
import type { Principal } from '../../platform/auth/principal.js';
import type { Db } from '../../platform/db/sql.js';
import { type ApiError, conflict, notFound, validationFailed } from '../../platform/errors.js';
import type { Logger } from '../../platform/log.js';
import { type BatchLoader, createBatchLoader } from '../../platform/util/batch-loader.js';
import type { Clock } from '../../platform/util/clock.js';
import {
  DecisionDelay,
  type Deferred,
  deciding,
  deferEvent,
  isDeciding,
  MAX_DELAY_SECONDS,
} from './delay.js';
import { ITEM_COLUMNS, readOpenItem } from './items.js';
import { alreadyApproved, checkPolicy, quorumStep } from './policy/enforce.js';
import {
  type PolicyInForce,
  type ReviewPolicies,
  runFactsColumns,
  runFactsJoins,
} from './policy/in-force.js';
import { REVIEW_ITEM_KIND } from './review-item-kind.js';
import { revisionOf } from './revision.js';
import {
  badEdit,
  type Decider,
  type ReviewKind,
  type ReviewSubject,
  type SubjectChangeRequest,
  type SubjectDecision,
} from './subjects.js';

/** A decision as a caller asks for it. */
export interface DecisionRequest {
  /** The item's kind; undefined names a run (skill or workflow) by its id (`/runs/:id/approve`). */
  kind?: ReviewKind | undefined;
  /** The subject's id (the run, mission run or proposal). */
  id: number;
  /** `request_changes`: send the draft back to the model with `reason` (skill runs, mission plans). */
  action: 'approve' | 'reject' | 'request_changes';
  /**
   * Recorded with the decision: the review's `reason` on reject, its `note` on approve; on
   * request_changes the reason the model is told (required).
   */
  reason?: string | null | undefined;
  /** The human the caller acts for (the subject's `review.onBehalfOf`). */
  reviewedBy?: string | null | undefined;
  /** The revision the reviewer saw; absent: not checked. */
  revision?: string | null | undefined;
  /** Edits before approve, of the kind's shape (decisions.md §15); absent or null: none. */
  edits?: Record<string, unknown> | null | undefined;
  requestId?: string | null | undefined;
  /** How the audit row names the call (default `review.decide`). */
  auditAction?: string | undefined;
  /** The 409 when the subject refuses in `status` (default: the item is no longer in the queue). */
  refusal?: ((status: string) => ApiError) | undefined;
  /** Seconds before the decision takes effect, 0–30 (default 0: at once); see delay.ts. */
  delaySeconds?: number | undefined;
}

/** A batch of decisions (`POST /reviews/decide-batch`): one action on 1–100 items, all or nothing. */
export interface BatchRequest {
  items: ReadonlyArray<{ kind: ReviewKind; id: number; revision?: string | null | undefined }>;
  action: 'approve' | 'reject';
  reason?: string | null | undefined;
  reviewedBy?: string | null | undefined;
  requestId?: string | null | undefined;
  /** Seconds before the decisions take effect, 0–30 (default 0: at once); see delay.ts. */
  delaySeconds?: number | undefined;
}

/** Why a batch's item could not be decided (`details.items[].reason` of its 409). */
export type BatchRefusal = 'not_found' | 'stale' | 'not_open';

/** The item a decision was taken on. */
export interface Decided {
  kind: ReviewKind;
  id: number;
}

export interface ReviewDecisionsDeps {
  db: Db;
  host: ActorHost;
  clock: Clock;
  subjects: ReadonlyMap<ReviewKind, ReviewSubject>;
  log: Logger;
  /** The review policy in force for an item (policy/in-force.ts). */
  policies: Pick<ReviewPolicies, 'inForce' | 'inForceOfRow'>;
}

/** Who rejects an item whose deadline passed (decisions §16: "rejects as `system:timeout`"). */
export const TIMEOUT: Attribution = { actor: 'system:timeout', apiTokenId: null };

/** A subject and its open item, as the queue read them before a transaction. */
export interface Target {
  kind: ReviewKind;
  /** Null when the subject has no open item (`status` says what it is). */
  item: LoadedActor | null;
  /** The subject's status. */
  status: string;
  /** A decision's target only (`ReviewDecisions.target` with `forDecision`): the subject's actor. */
  subject?: LoadedActor | null;
  /** A decision's target only, when read with it: the policy in force for the item. */
  policy?: Promise<PolicyInForce>;
}

/**
 * The subject {kind, id} in the org (a row of `table`), and its open item if it has one (with what a
 * load reads). Subjects in `runs` are of the item's kind only.
 */
function targetStatement(table: string): string {
  if (!/^[a-z_]+$/.test(table)) throw new Error(`bad review subject table ${JSON.stringify(table)}`);
  return `
  select r.status as run_status, ${ITEM_COLUMNS}
    from ${table} r
    left join review_items i on i.org_id = r.org_id and i.kind = $3 and i.run_id = r.id and i.open
   where r.id = $1 and r.org_id = $2${table === 'runs' ? ' and r.kind = $3' : ''}`;
}

/** The prefixes of a decision's target columns: the subject's actor row, and a run's policy facts. */
const SUBJECT = 'subject.';
const FACTS = 'facts_';

/**
 * Decisions' targets when their subject is a run whose transition decides it (`ReviewSubject.actors`),
 * concurrent decisions' together (a batch per statement, src/platform/util/batch-loader.ts): each
 * key's run (of its kind, in its org) and open item as `targetStatement('runs')` reads them, with the
 * run as the host loads it (`ActorHost.loadColumns`) and the facts of the policy in force
 * (`runFactsColumns`) — one statement for several decisions, where each read the policy on one
 * connection, its target on another and the run again in its transaction.
 */
function decideTargetStatement(host: ActorHost, actors: readonly MachineKind[]): string {
  return `
  select x.ord, r.status as run_status, ${ITEM_COLUMNS}, ${host.loadColumns(actors, 'r', SUBJECT)},
         ${runFactsColumns('r', FACTS)}
    from unnest($1::bigint[], $2::bigint[], $3::text[]) with ordinality as x(key_id, key_org_id, key_kind, ord)
    join runs r on r.id = x.key_id and r.org_id = x.key_org_id and r.kind = x.key_kind
    left join review_items i on i.org_id = r.org_id and i.kind = x.key_kind and i.run_id = r.id and i.open
    ${runFactsJoins('r')}`;
}

/** A decision's target as a key of the batched read. */
interface TargetKey {
  orgId: number;
  kind: ReviewKind;
  id: number;
}

/** The batched read of decisions' targets of run subjects of `actors` (`decideTargetStatement`). */
function decideTargets(
  db: Db,
  host: ActorHost,
  actors: readonly MachineKind[],
): BatchLoader<TargetKey, Record<string, unknown> | undefined> {
  const text = decideTargetStatement(host, actors);
  return createBatchLoader({
    async batch(keys) {
      const rows = await db.prepared<Record<string, unknown>>('reviews_target_runs_with_subject', text, [
        keys.map((k) => k.id),
        keys.map((k) => k.orgId),
        keys.map((k) => k.kind),
      ]);
      const found: Array<Record<string, unknown> | undefined> = keys.map(() => undefined);
      for (const row of rows) found[Number(row.ord) - 1] = row;
      return found;
    },
  });
}

/** A kind's fused target read: its subjects' actor kinds, and the batched read. */
interface FusedTarget {
  actors: readonly MachineKind[];
  targets: BatchLoader<TargetKey, Record<string, unknown> | undefined>;
}

/** A run of either kind and its open item (a run's own routes name it by id only). */
const RUN_TARGET = `
  select r.status as run_status, r.kind as subject_kind, ${ITEM_COLUMNS}
    from runs r
    left join review_items i on i.org_id = r.org_id and i.kind = r.kind and i.run_id = r.id and i.open
   where r.id = $1 and r.org_id = $2`;

/** 409: the item is not in the queue any more; `state` is its subject's status or the item's. */
export function gone(ref: { kind: ReviewKind; id: number }, state: string): ApiError {
  return conflict(`Review item ${ref.kind} ${ref.id} is no longer in the queue (${state}).`, {
    kind: ref.kind,
    id: ref.id,
    status: state,
  });
}

/** 409: `revision` is not the item's current one (`current`: null once the item closed). */
export function stale(ref: { kind: ReviewKind; id: number }, revision: string, current: string | null) {
  return conflict(
    `Review item ${ref.kind} ${ref.id} changed since revision ${revision}: ${current === null ? 'it is no longer open' : `it is now ${current}`}.`,
    { reason: 'stale', revision: current },
  );
}

/** 409 of a batch: the items it could not decide, and why; nothing was decided. */
function batchRefused(items: Array<{ kind: ReviewKind; id: number; reason: BatchRefusal }>): ApiError {
  return conflict(
    `Nothing was decided: ${items.length} of the batch's items cannot be (${items.map((i) => `${i.kind} ${i.id}: ${i.reason}`).join(', ')}).`,
    { items },
  );
}

/** The current revision of an open item. */
export function currentRevision(item: LoadedActor): string {
  return revisionOf(item.row.id, item.row.version);
}

/**
 * The revision an `If-Match` header names (`"<revision>"`, weak or not; of several, the first), or
 * undefined for none or `*` (any current one).
 */
export function ifMatchRevision(header: string | undefined): string | undefined {
  const first = header?.split(',')[0]?.trim();
  if (!first || first === '*') return undefined;
  return first.replace(/^W\//, '').replace(/^"(.*)"$/, '$1') || undefined;
}

/**
 * An approval's edits in the kind's shape, or null for none: 400 `VALIDATION_FAILED` (naming
 * `body.edits…`) for edits with a reject, for a kind that takes none, or of the wrong shape.
 */
function checkEdits(
  kind: ReviewKind,
  subject: ReviewSubject,
  request: DecisionRequest,
): Record<string, unknown> | null {
  const edits = request.edits;
  if (edits == null) return null;
  if (request.action !== 'approve') throw badEdit('', `edits go with approve only, not ${request.action}`);
  if (!subject.edits) throw badEdit('', `a ${kind} item takes no edits`);
  const parsed = subject.edits.safeParse(edits);
  if (!parsed.success) {
    throw validationFailed(
      parsed.error.issues.map((issue) => ({
        field: ['body', 'edits', ...issue.path.map(String)].join('.'),
        message: issue.message,
      })),
    );
  }
  return parsed.data;
}

/**
 * The change request of `request`, or null when it asks for none (decisions.md §15): 400
 * `VALIDATION_FAILED` without a reason (`body.reason`) or for a kind that takes none (`body.action`);
 * 409 `CONFLICT` `{reason: "max_rounds", rounds}` once the subject's draft went back
 * `MAX_REVIEW_ROUNDS` times (the open item knows how many: its `rounds`).
 */
function checkChangeRequest(
  kind: ReviewKind,
  subject: ReviewSubject,
  request: DecisionRequest,
  item: LoadedActor,
  audit: SubjectDecision['audit'],
): SubjectChangeRequest | null {
  if (request.action !== 'request_changes') return null;
  const reason = request.reason?.trim();
  if (!reason) {
    throw validationFailed([
      { field: 'body.reason', message: 'request_changes needs a reason: what the next draft must change' },
    ]);
  }
  if (!subject.requestChanges) {
    throw validationFailed([
      {
        field: 'body.action',
        message: `a ${kind} item takes no request_changes (skill runs and mission plans do)`,
      },
    ]);
  }
  const rounds = Number((item.snapshot.context as { rounds?: number }).rounds ?? 0);
  if (rounds >= MAX_REVIEW_ROUNDS) {
    throw conflict(
      `Review item ${kind} ${request.id} went back ${rounds} times already: at most ${MAX_REVIEW_ROUNDS} rounds of changes; approve or reject it.`,
      { reason: 'max_rounds', rounds, maxRounds: MAX_REVIEW_ROUNDS },
    );
  }
  return {
    reason,
    reviewedBy: request.reviewedBy ?? null,
    requestId: request.requestId ?? null,
    audit: { action: audit.action, details: { ...audit.details, round: rounds + 1 } },
  };
}

/**
 * A request's delay in seconds: 0 for none; 400 `VALIDATION_FAILED` (naming `body.delaySeconds`) for
 * anything but a whole number of 0–30 seconds.
 */
function checkDelay(delaySeconds: number | undefined): number {
  if (delaySeconds === undefined) return 0;
  if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > MAX_DELAY_SECONDS) {
    throw validationFailed([
      {
        field: 'body.delaySeconds',
        message: `must be a whole number of seconds from 0 to ${MAX_DELAY_SECONDS}`,
      },
    ]);
  }
  return delaySeconds;
}

export class ReviewDecisions {
  private readonly delay: DecisionDelay;
  /** Each kind's fused target read (`fusedTarget`), or null: it has none. */
  private readonly fused = new Map<ReviewKind, FusedTarget | null>();
  private runTargetsLoader: FusedTarget['targets'] | undefined;

  constructor(private readonly deps: ReviewDecisionsDeps) {
    this.delay = new DecisionDelay(deps);
  }

  /**
   * The subject and its open item: 404 when the org has no such subject (or none of that kind), 409
   * when it has no open item (unless `allowClosed`: then `item` is null). `forDecision`: a run
   * subject's actor and its policy's facts are read with them (`fusedTarget`), for `decide`.
   */
  async target(
    principal: Pick<Principal, 'orgId'>,
    ref: { kind?: ReviewKind | undefined; id: number },
    forDecision = false,
  ): Promise<Target> {
    const { db, host } = this.deps;
    let row: Record<string, unknown> | undefined;
    let kind: ReviewKind;
    const fused = forDecision && ref.kind !== undefined ? this.fusedTarget(ref.kind) : undefined;
    if (fused && ref.kind !== undefined) {
      kind = ref.kind;
      row = await fused.targets.load({ orgId: principal.orgId, kind, id: ref.id });
      if (!row) throw notFound(`${kind} review`, ref.id);
      const item = row.id === null ? null : host.resolveRow(REVIEW_ITEM_KIND, row);
      const policy = this.deps.policies.inForceOfRow(principal.orgId, { kind, id: ref.id }, row, FACTS);
      policy.catch(() => undefined);
      return {
        kind,
        item,
        status: String(row.run_status),
        subject: host.resolvePrefixed(fused.actors, row, SUBJECT),
        policy,
      };
    }
    if (ref.kind === undefined) {
      row = (
        await db.prepared<Record<string, unknown>>('reviews_target_run', RUN_TARGET, [
          ref.id,
          principal.orgId,
        ])
      )[0];
      if (!row) throw notFound('run', ref.id);
      kind = row.subject_kind as ReviewKind;
    } else {
      kind = ref.kind;
      // A kind no feature registered has no items: every id is unknown.
      const subject = this.deps.subjects.get(kind);
      if (!subject) throw notFound(`${kind} review`, ref.id);
      const table = subject.table ?? 'runs';
      row = (
        await db.prepared<Record<string, unknown>>(`reviews_target_${table}`, targetStatement(table), [
          ref.id,
          principal.orgId,
          kind,
        ])
      )[0];
      if (!row) throw notFound(`${kind} review`, ref.id);
    }
    const item = row.id === null ? null : host.resolveRow(REVIEW_ITEM_KIND, row);
    return { kind, item, status: String(row.run_status) };
  }

  /**
   * The target statement of a decision on a `kind` item that reads the subject's actor and the
   * policy's facts with it (`decideTargetStatement`), or undefined when its subject is not a run
   * deciding by its own transition.
   */
  private fusedTarget(kind: ReviewKind): FusedTarget | undefined {
    const cached = this.fused.get(kind);
    if (cached !== undefined) return cached ?? undefined;
    const subject = this.deps.subjects.get(kind);
    const actors = subject?.actors;
    const runs = (subject?.table ?? 'runs') === 'runs' && (kind === 'skill' || kind === 'workflow');
    // Run kinds share one table, so one batched read serves them all.
    const built = actors && runs ? { actors, targets: this.runTargets(actors) } : null;
    this.fused.set(kind, built);
    return built ?? undefined;
  }

  /** The batched read of run subjects' targets (one for the kinds of `runs`). */
  private runTargets(actors: readonly MachineKind[]): FusedTarget['targets'] {
    this.runTargetsLoader ??= decideTargets(this.deps.db, this.deps.host, actors);
    return this.runTargetsLoader;
  }

  /**
   * Decides the item: the choke point (see the header). 404 no such subject in the org; 409 stale
   * revision, or the item is no longer in the queue (`request.refusal` words it for the caller).
   */
  async decide(principal: Principal, request: DecisionRequest): Promise<Decided> {
    const delaySeconds = checkDelay(request.delaySeconds);
    // The policy in force is read with the target (a run's facts in its statement) or beside it (one
    // round trip, not two), and enforced after the item's own checks.
    const policy =
      request.kind === undefined || this.fusedTarget(request.kind)
        ? undefined
        : this.policyOf(principal, request.kind, request.id);
    const target = await this.target(principal, request, true);
    const ref = { kind: target.kind, id: request.id };
    const refused = (status: string) => request.refusal?.(status) ?? gone(ref, status);
    const first = target.item;
    if (request.revision != null && (first === null || currentRevision(first) !== request.revision)) {
      throw stale(ref, request.revision, first && currentRevision(first));
    }
    if (!first) throw refused(target.status);
    if (isDeciding(first)) throw deciding(ref, first);
    await this.checkPolicy(principal, ref, request.action, policy ?? target.policy);
    const subject = this.subject(target.kind);
    const edits = checkEdits(target.kind, subject, request);
    const decider: Decider = { orgId: principal.orgId, actingAs: actingAs(principal) };
    const decision: SubjectDecision = {
      // A change request goes to the owner's `requestChanges` instead (`changes`, below).
      action: request.action === 'approve' ? 'approve' : 'reject',
      reason: request.reason ?? null,
      reviewedBy: request.reviewedBy ?? null,
      requestId: request.requestId ?? null,
      audit: {
        action: request.auditAction ?? 'review.decide',
        details: {
          kind: target.kind,
          action: request.action,
          reviewItemId: first.row.id,
          ...(edits ? { edited: true } : {}),
        },
      },
      edits,
    };
    const changes = checkChangeRequest(target.kind, subject, request, first, decision.audit);
    if (delaySeconds > 0) {
      if (changes) {
        throw validationFailed([
          {
            field: 'body.delaySeconds',
            message: 'goes with approve or reject; request_changes is taken at once',
          },
        ]);
      }
      await this.applyDelay({ principal, ref, first, subject, decider, decision, delaySeconds, request });
      return ref;
    }
    await this.deps.host.transact(
      async (tx) => {
        // A later attempt lost a race: the item is read again, and its revision checked again.
        const item = tx.attempt === 1 ? first : await this.openItem(tx, principal.orgId, ref);
        if (request.revision != null && (item === null || currentRevision(item) !== request.revision)) {
          throw stale(ref, request.revision, item && currentRevision(item));
        }
        if (item && isDeciding(item)) throw deciding(ref, item);
        if (item && request.action === 'approve' && quorumStep(item, principal, ref, edits) === 'record') {
          await this.recordApproval(tx, principal, item, ref, decision);
          return;
        }
        const outcome =
          changes && subject.requestChanges
            ? await subject.requestChanges(tx, decider, request.id, changes)
            : await subject.decide(tx, decider, request.id, decision);
        // A reviewer who named the revision they saw lost a race for the item: it is closed, stale.
        if ('refused' in outcome) {
          throw request.revision != null
            ? stale(ref, request.revision, null)
            : refused(outcome.refused.status);
        }
      },
      // The subject's row as the target read it: its transition starts from it (on a first attempt;
      // the write's version check covers its age).
      { loaded: target.subject ? [first, target.subject] : [first] },
    );
    return ref;
  }

  /**
   * Decides every item of `request` in one transaction, or none (decisions.md §15): an item unknown
   * in the org, stale or no longer open → 409 `details.items: [{kind, id, reason}]` naming each such
   * item, nothing decided. Each item goes through the same checks and owners as `decide`.
   */
  async decideBatch(principal: Principal, request: BatchRequest): Promise<number> {
    const delaySeconds = checkDelay(request.delaySeconds);
    const refusals: Array<{ kind: ReviewKind; id: number; reason: BatchRefusal }> = [];
    // The items' policies are read with their targets (a run's facts in its statement, the runs'
    // targets in batches) or beside them, all at once, and enforced once every item is known to be
    // open and current.
    const policies = request.items.map((ref) =>
      this.fusedTarget(ref.kind) ? undefined : this.policyOf(principal, ref.kind, ref.id),
    );
    const read = await Promise.all(
      request.items.map(async (ref) => {
        try {
          const target = await this.target(principal, ref, true);
          const item = target.item;
          if (!item || isDeciding(item)) refusals.push({ kind: ref.kind, id: ref.id, reason: 'not_open' });
          else if (ref.revision != null && currentRevision(item) !== ref.revision) {
            refusals.push({ kind: ref.kind, id: ref.id, reason: 'stale' });
          }
          return target;
        } catch (error) {
          if ((error as ApiError).code !== 'NOT_FOUND') throw error;
          refusals.push({ kind: ref.kind, id: ref.id, reason: 'not_found' });
          return null;
        }
      }),
    );
    if (refusals.length > 0) throw batchRefused(refusals);
    for (const [index, ref] of request.items.entries()) {
      await this.checkPolicy(principal, ref, request.action, policies[index] ?? read[index]?.policy);
    }
    const targets = read.map((target) => target?.item ?? null);
    // The items, and the subjects' rows as their targets read them: their transitions start from them.
    const loaded = read.flatMap((target) =>
      [target?.item, target?.subject].filter((actor): actor is LoadedActor => actor != null),
    );
    const decider: Decider = { orgId: principal.orgId, actingAs: actingAs(principal) };
    const now = this.deps.clock.now();
    await this.deps.host.transact(
      async (tx) => {
        const refused: typeof refusals = [];
        for (const [index, ref] of request.items.entries()) {
          const first = targets[index] as LoadedActor;
          const item = tx.attempt === 1 ? first : await this.openItem(tx, principal.orgId, ref);
          if (!item) {
            refused.push({ kind: ref.kind, id: ref.id, reason: ref.revision != null ? 'stale' : 'not_open' });
            continue;
          }
          if (ref.revision != null && currentRevision(item) !== ref.revision) {
            refused.push({ kind: ref.kind, id: ref.id, reason: 'stale' });
            continue;
          }
          if (isDeciding(item)) {
            refused.push({ kind: ref.kind, id: ref.id, reason: 'not_open' });
            continue;
          }
          const decision: SubjectDecision = {
            action: request.action,
            reason: request.reason ?? null,
            reviewedBy: request.reviewedBy ?? null,
            requestId: request.requestId ?? null,
            audit: {
              action: 'review.decide_batch',
              details: { kind: ref.kind, action: request.action, reviewItemId: item.row.id },
            },
            edits: null,
          };
          if (request.action === 'approve' && quorumStep(item, principal, ref, null) === 'record') {
            await this.recordApproval(tx, principal, item, ref, decision);
            continue;
          }
          // The delay stage: each item takes the decision to hold until effectiveAt (delay.ts).
          const notTaken =
            delaySeconds > 0
              ? (await this.delay.deferIn(
                  tx,
                  decider,
                  ref,
                  item,
                  deferEvent(decider, decision, now, delaySeconds),
                )) !== null
              : 'refused' in (await this.subject(ref.kind).decide(tx, decider, ref.id, decision));
          if (notTaken) refused.push({ kind: ref.kind, id: ref.id, reason: 'not_open' });
        }
        // Any refusal rolls the whole batch back.
        if (refused.length > 0) throw batchRefused(refused);
      },
      { loaded },
    );
    return request.items.length;
  }

  /**
   * Rejects the subject of item `ref`, whose deadline (`dueAt`) passed under `onTimeout: reject`, as
   * `system:timeout`, in `tx` (the deadline timer's, after the item's DUE transition). A subject that
   * no longer takes a decision is logged: the item's own close (or cancel) is then on its way.
   */
  async rejectOnTimeout(
    tx: ActorTx,
    ref: { orgId: number; kind: ReviewKind; id: number; itemId: number },
    dueAt: string,
  ): Promise<void> {
    const outcome = await this.subject(ref.kind).decide(tx, { orgId: ref.orgId, actingAs: TIMEOUT }, ref.id, {
      action: 'reject',
      reason: `not decided by ${dueAt}`,
      reviewedBy: null,
      requestId: null,
      audit: {
        action: 'review.timeout',
        details: { kind: ref.kind, action: 'reject', reviewItemId: ref.itemId, dueAt },
      },
      edits: null,
    });
    if ('refused' in outcome) {
      this.deps.log.warn(
        { kind: ref.kind, id: ref.id, status: outcome.refused.status },
        'a timed-out review subject took no rejection',
      );
    }
  }

  /**
   * The delay stage (delay.ts): `decision`, checked as for `decide`, goes to the item as DEFER, its
   * timer due `delaySeconds` from now. An approval's edits are first tried on the owner and rolled
   * back (their 400 now, not at `effectiveAt`). The item is re-read and re-checked on a retry.
   */
  private async applyDelay(args: {
    principal: Principal;
    ref: Decided;
    first: LoadedActor;
    subject: ReviewSubject;
    decider: Decider;
    decision: SubjectDecision;
    delaySeconds: number;
    request: DecisionRequest;
  }): Promise<void> {
    const { principal, ref, first, subject, decider, decision, request } = args;
    const refused = (status: string) => request.refusal?.(status) ?? gone(ref, status);
    if (decision.edits) {
      const tried = await this.delay.dryRun(subject, decider, ref.id, first, decision);
      if (tried) throw refused(tried.refused);
    }
    const event = deferEvent(decider, decision, this.deps.clock.now(), args.delaySeconds);
    await this.deps.host.transact(
      async (tx) => {
        const item = tx.attempt === 1 ? first : await this.openItem(tx, principal.orgId, ref);
        if (request.revision != null && (item === null || currentRevision(item) !== request.revision)) {
          throw stale(ref, request.revision, item && currentRevision(item));
        }
        if (!item) throw gone(ref, 'closed');
        if (isDeciding(item)) throw deciding(ref, item);
        // An approval that does not decide (quorum) is recorded at once: there is nothing to hold.
        if (request.action === 'approve' && quorumStep(item, principal, ref, decision.edits) === 'record') {
          await this.recordApproval(tx, principal, item, ref, decision);
          return;
        }
        const status = await this.delay.deferIn(tx, decider, ref, item, event);
        if (status !== null) throw refused(status);
      },
      { single: true },
    );
  }

  /**
   * Undoes the delayed decision of item `{kind, id}` (`POST /reviews/undo`): the item is open again
   * with a new revision. 404 no such subject in the org; 409 when it holds no decision, or the
   * decision's `effectiveAt` has come.
   */
  async undo(principal: Principal, ref: Decided, requestId: string | null = null): Promise<void> {
    const target = await this.target(principal, ref);
    await this.delay.undo(principal, ref, target.item, target.status, requestId);
  }

  /** A delayed decision takes effect (the item's `dispatchDecision`, in the timer's transaction). */
  takeEffect(
    tx: ActorTx,
    item: { orgId: number; kind: ReviewKind; runId: number; reviewItemId: number },
    deferred: Deferred,
  ): Promise<void> {
    return this.delay.takeEffect(tx, item, deferred);
  }

  /**
   * The stage `checkPolicy`: the review policy in force for the item lets `principal` take `action`
   * (403 `not_an_approver` / `self_approval` otherwise; policy/enforce.ts).
   */
  private async checkPolicy(
    principal: Principal,
    ref: Decided,
    action: string,
    read: Promise<PolicyInForce> = this.policyOf(principal, ref.kind, ref.id),
  ): Promise<void> {
    checkPolicy(principal, await read, action);
  }

  /** The policy in force for item {kind, id}, read now; a failed read fails whoever awaits it. */
  private policyOf(principal: Principal, kind: ReviewKind, id: number): Promise<PolicyInForce> {
    const read = this.deps.policies.inForce(principal.orgId, { kind, id });
    // Not awaited when the decision fails before its policy stage.
    read.catch(() => undefined);
    return read;
  }

  /**
   * Records `principal`'s approval on `item`, which needs more (APPROVAL: the item stays open with a
   * new revision; the ledger's `approval`). 409 when the item refuses it (the user approved already).
   */
  private async recordApproval(
    tx: ActorTx,
    principal: Principal,
    item: LoadedActor,
    ref: Decided,
    decision: SubjectDecision,
  ): Promise<void> {
    const at = new Date(this.deps.clock.now()).toISOString();
    const result = await this.deps.host.send(
      tx,
      REVIEW_ITEM_KIND,
      { orgId: principal.orgId, id: item.row.id },
      { type: 'APPROVAL', by: principal.userId, at },
      {
        actingAs: actingAs(principal),
        loaded: item,
        audit: {
          action: 'review.approval',
          targetKind: 'run',
          targetId: String(ref.id),
          details: { ...decision.audit.details, by: principal.userId },
          requestId: decision.requestId,
        },
      },
    );
    if (result.outcome === 'refused') throw alreadyApproved(ref, principal.userId);
    if (result.outcome !== 'applied') throw gone(ref, result.outcome);
  }

  private openItem(tx: ActorTx, orgId: number, ref: Decided): Promise<LoadedActor | null> {
    return readOpenItem(this.deps.host, tx, { orgId, kind: ref.kind, id: ref.id });
  }

  private subject(kind: ReviewKind): ReviewSubject {
    const subject = this.deps.subjects.get(kind);
    if (!subject) throw new Error(`no review subject of kind ${kind} is registered`);
    return subject;
  }
}
