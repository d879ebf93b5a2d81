/**
 * The unified review queue (docs/api.md "Review queue"), as REST and MCP use it: list
 * an org's open review items, and decide, assign or snooze one.
 *
 * Terminology:
 * - item: a row of `review_items` (a `review-item` actor). Its identity in the API is `{kind, id}`,
 *   `id` being its run's: a run has at most one open item at a time.
 * - open: not decided and not cancelled. An item is open exactly while its run waits (a pending
 *   skill run, a paused workflow run): both change in one transaction.
 * - active: open and not hidden by a snooze. A snooze ends at `snoozed_until` by a query-time
 *   condition, so the item is back the moment the clock passes it; the durable WAKE timer then tidies
 *   the item's state (and publishes `woken`) when the scheduler gets to it.
 * - lane: the items assigned to one user, or the unassigned ones (the triage lane).
 * - view: a lane (or all of them), whether snoozed items show, only overdue ones (or none of them),
 *   an order (oldest first, or soonest due first), a page size and a position; what a decide,
 *   assign or snooze answers with (the refreshed queue).
 * - due: an item whose policy sets `dueIn` has `due_at` (its deadline's `dueAt`); it is overdue from
 *   that instant on, by a query-time condition as a snooze's end is (the deadline's DUE timer then
 *   publishes `overdue` and applies `onTimeout` when the scheduler gets to it).
 *
 * Deciding goes through the choke point (decisions.ts), which checks the revision and dispatches to
 * the owning service (runs: approve/reject; a workflow's reject cancels it), whose transition closes
 * the item in the same transaction. Assigning and snoozing are transitions
 * of the item itself. Every change is attributed to the caller (`token:<id>` or `mcp`) in the
 * transition log and an audit row; the approve capability is checked by the route, before any of this.
 */
import type { DeferredDecision, ReviewAssignEvent, ReviewSnoozeEvent } from '../../../machines/index.js';
import { actingAs } from '../../platform/actors/acting-as.js';
import {
  type ActorHost,
  actorStatus,
  type LoadedActor,
  type TransitionAudit,
} from '../../platform/actors/host.js';
import type { Principal } from '../../platform/auth/principal.js';
import type { Db } from '../../platform/db/sql.js';
import { notFound, validationFailed } from '../../platform/errors.js';
import { type BatchLoader, createBatchLoader, createSharedReader } from '../../platform/util/batch-loader.js';
import type { Clock } from '../../platform/util/clock.js';
import { type BatchRequest, gone, type ReviewDecisions } from './decisions.js';
import { approversText, callerView, isApprover, policyView } from './policy/enforce.js';
import { type ReviewPolicies, runFactsColumns, runFactsJoins } from './policy/in-force.js';
import { REVIEW_ITEM_KIND } from './review-item-kind.js';
import { revisionOf } from './revision.js';
import { REVIEW_STATUS_OF_KIND, type ReviewKind, type ReviewStep, type ReviewSubject } from './subjects.js';

export { REVIEW_KINDS, REVIEW_STATUS_OF_KIND, type ReviewKind } from './subjects.js';

/** A review item as the API shows it. */
export interface ReviewView {
  kind: ReviewKind;
  /** The run's id. */
  id: number;
  title: string;
  /**
   * What the item is about in one line: the draft's first 200 characters (skill, workflow, mission),
   * the proposed action's description (action); null while there is none.
   */
  summary: string | null;
  /**
   * An open item: what its subject is while it waits (`REVIEW_STATUS_OF_KIND`), or `deciding` while
   * a decision taken with a delay waits for `effectiveAt`; a closed one (only `GET /reviews/:kind/:id`
   * shows those): `decided` or `cancelled`.
   */
  status: (typeof REVIEW_STATUS_OF_KIND)[ReviewKind] | 'deciding' | 'decided' | 'cancelled';
  /** While `deciding`: when the decision takes effect (until then `POST /reviews/undo` withdraws it); else null. */
  effectiveAt: string | null;
  /** While `deciding`: the decision waiting (its action, edits, reason, who and when); else null. */
  decision: DecidingView | null;
  /** What a reviewer saw (see revision.ts); null once the item is closed. */
  revision: string | null;
  /** How many times the subject's draft was sent back (request_changes) before this item opened. */
  rounds: number;
  /** A user id of the org, or null (the triage lane). */
  assignedTo: string | null;
  /** Set while a snooze is pending (only listed with `includeSnoozed`, or once it has passed). */
  snoozedUntil: string | null;
  note: string | null;
  /** The skill's or workflow's slug. */
  slug: string | null;
  /** The gate a workflow run waits at; null for skill runs. */
  pausedAt: string | null;
  /** When the run asked for review. */
  createdAt: string;
  /** Whole seconds since `createdAt`, by the server's clock. */
  ageSeconds: number;
  /** When the item is due (the policy in force's `dueIn` after it opened; moved by an escalation), or null. */
  dueAt: string | null;
  /** Whether `dueAt` has passed, by the server's clock (false without one). */
  overdue: boolean;
  /** The run's review screen. */
  reviewUrl: string;
  /** The run's resource (`/api/v1/runs/<id>`). */
  pollUrl: string;
  /** How many distinct users must approve (its review policy's `required` as it opened). */
  required: number;
  /** The approvals so far of an item that needs several (`{by: <user id>, at}`), oldest first. */
  approvals: Array<{ by: string; at: string }>;
}

/** A decision waiting for its `effectiveAt`, as the API shows it. */
export interface DecidingView {
  action: 'approve' | 'reject';
  edits: Record<string, unknown> | null;
  reason: string | null;
  by: string;
  /** When the reviewer decided. */
  at: string;
}

/** The queue's orders: oldest first (`created`), or soonest due first with items without a due time last (`due`). */
export const REVIEW_SORTS = ['created', 'due'] as const;

/** An order of the queue. */
export type ReviewSort = (typeof REVIEW_SORTS)[number];

/** Where a page ends: the last item's position in the queue's order (by age, or by due time). */
export type ReviewPosition = { createdAt: string; itemId: number } | { dueAt: string | null; itemId: number };

/** Which items `list` returns. */
export interface ReviewQuery {
  /** A user id (that user's lane), null (the unassigned lane), or undefined (every lane). */
  assignedTo?: string | null | undefined;
  /** Also list items whose snooze has not passed yet. */
  includeSnoozed?: boolean | undefined;
  /** Only the items due by now (true), or only the others (false); undefined: both. */
  overdue?: boolean | undefined;
  /** The order (default `created`); a position must be of the same order. */
  sort?: ReviewSort | undefined;
  limit: number;
  /** Start after this position (keyset pagination). */
  after?: ReviewPosition | undefined;
}

/** A page of the queue, in the query's order; `next` is null on the last page. */
export interface ReviewPage {
  reviews: ReviewView[];
  next: ReviewPosition | null;
}

/** One review item, as the API names it. */
export interface ReviewRef {
  kind: ReviewKind;
  id: number;
}

/** Arguments of `decide`. */
export interface DecideArgs extends ReviewRef {
  /** `request_changes`: the draft goes back to the model with `reason` (skill runs, mission plans). */
  action: 'approve' | 'reject' | 'request_changes';
  /** Recorded with the decision: the review's `reason` on reject, its `note` on approve. */
  reason?: string | null | undefined;
  /** The human the caller acts for (the run's `review.onBehalfOf`). */
  reviewedBy?: string | null | undefined;
  /** The revision the reviewer saw (checked by the choke point, decisions.ts). */
  revision?: string | null | undefined;
  /** Edits before approve, of the kind's shape (checked by the choke point). */
  edits?: Record<string, unknown> | null | undefined;
  requestId?: string | null | undefined;
  /** Seconds before the decision takes effect (0–30; the choke point's delay stage). */
  delaySeconds?: number | undefined;
}

/** Arguments of `assign`. */
export interface AssignArgs extends ReviewRef {
  /** A user id of the caller's org, or null to send the item back to the triage lane. */
  assignedTo: string | null;
  note?: string | null | undefined;
  requestId?: string | null | undefined;
}

/** Arguments of `snooze`. */
export interface SnoozeArgs extends ReviewRef {
  /** ISO 8601 instant (any offset), after the server's now. */
  until: string;
  requestId?: string | null | undefined;
}

export interface ReviewServiceDeps {
  db: Db;
  host: ActorHost;
  clock: Clock;
  /** The subjects of each kind of item, as their owners registered them. */
  subjects: ReadonlyMap<ReviewKind, ReviewSubject>;
  /** The choke point every decision goes through. */
  decisions: ReviewDecisions;
  /** The review policy in force for an item. */
  policies: Pick<ReviewPolicies, 'inForce' | 'inForceOfRow'>;
}

interface ItemRow {
  id: number;
  version: number;
  /** Whether the item is in the queue (only `get` reads closed ones). */
  open: boolean;
  /** The item's own status (`decided`, `cancelled` for a closed one). */
  status: string;
  kind: ReviewKind;
  run_id: number;
  title: string;
  summary: string | null;
  rounds: number;
  assigned_to: string | null;
  snoozed_until: Date | null;
  note: string | null;
  created_at: Date;
  due_at: Date | null;
  /** The decision waiting while `deciding` (the projection of the item's `deciding`), else null. */
  deciding: DeferredDecision | null;
  slug: string | null;
  paused_at: string | null;
  required: number;
  approvals: Array<{ by: string; at: string }>;
}

/**
 * An item with what its view shows of its run. Missions and actions have no row in `runs`: the join
 * is for skill and workflow items only.
 */
const VIEW_COLUMNS = `i.id, i.version, i.open, i.status, i.kind, i.run_id, i.title, i.summary, i.rounds, i.assigned_to,
         i.snoozed_until, i.note, i.created_at, i.due_at, i.deciding, r.slug, r.paused_at, i.required, i.approvals`;
const VIEW_FROM = `from review_items i
    left join runs r on i.kind in ('skill', 'workflow') and r.id = i.run_id and r.org_id = i.org_id`;
const ITEM_SELECT = `select ${VIEW_COLUMNS}
    ${VIEW_FROM}`;

/** The latest item of subject `$3` of kind `$2` in org `$1`: its open one, else its last closed one. */
const LATEST_ITEM = `${ITEM_SELECT}
   where i.org_id = $1 and i.kind = $2 and i.run_id = $3
   order by i.open desc, i.id desc
   limit 1`;

/** The prefix of a run's policy facts in `LATEST_RUN_ITEM`'s row. */
const FACTS = 'facts_';

/**
 * `LATEST_ITEM` of skill and workflow runs, concurrent review pages' together (a batch per
 * statement, src/platform/util/batch-loader.ts): each key's latest item, with the facts of the policy
 * in force read from the run it joins (`runFactsColumns`) — one statement for several pages, where
 * each read its item, then the run again for its policy.
 */
const LATEST_RUN_ITEMS = `select x.ord, v.*
    from unnest($1::bigint[], $2::text[], $3::bigint[]) with ordinality as x(key_org_id, key_kind, key_id, ord)
    cross join lateral (
      select ${VIEW_COLUMNS}, ${runFactsColumns('r', FACTS)}
        ${VIEW_FROM}
        ${runFactsJoins('r')}
       where i.org_id = x.key_org_id and i.kind = x.key_kind and i.run_id = x.key_id
       order by i.open desc, i.id desc
       limit 1) v`;

/** A run's latest item as a key of the batched read. */
interface RunItemKey {
  orgId: number;
  kind: ReviewKind;
  id: number;
}

/** The batched read of runs' latest items (`LATEST_RUN_ITEMS`). */
function latestRunItems(db: Db): BatchLoader<RunItemKey, ItemRow | undefined> {
  return createBatchLoader({
    async batch(keys) {
      const rows = await db.prepared<ItemRow & { ord: number }>('reviews_get_run', LATEST_RUN_ITEMS, [
        keys.map((k) => k.orgId),
        keys.map((k) => k.kind),
        keys.map((k) => k.id),
      ]);
      const found: Array<ItemRow | undefined> = keys.map(() => undefined);
      for (const row of rows) found[Number(row.ord) - 1] = row;
      return found;
    },
  });
}

/**
 * The list statement of one variant and its values. Each variant is its own prepared statement with
 * a fixed text, so each plans against the index that serves it: `review_items_lane` for a lane
 * (`assigned_to = $n` or `is null`, then age order), `review_items_queue` for every lane,
 * `review_items_due` for the due order (and for `overdue`, a range of it).
 */
function listStatement(
  orgId: number,
  now: number,
  query: ReviewQuery,
): { name: string; text: string; values: unknown[] } {
  const values: unknown[] = [orgId];
  const param = (value: unknown) => `$${values.push(value)}`;
  const where = ['i.org_id = $1', 'i.open'];
  const nowIso = new Date(now).toISOString();
  let lane = 'all';
  if (query.assignedTo === null) {
    lane = 'unassigned';
    where.push('i.assigned_to is null');
  } else if (query.assignedTo !== undefined) {
    lane = 'user';
    where.push(`i.assigned_to = ${param(query.assignedTo)}`);
  }
  if (query.includeSnoozed !== true) {
    where.push(`(i.snoozed_until is null or i.snoozed_until <= ${param(nowIso)})`);
  }
  if (query.overdue === true) where.push(`i.due_at <= ${param(nowIso)}`);
  if (query.overdue === false) where.push(`(i.due_at is null or i.due_at > ${param(nowIso)})`);
  const byDue = query.sort === 'due';
  const after = query.after;
  let position = 'first';
  if (after && 'dueAt' in after) {
    if (after.dueAt === null) {
      position = 'after_undue';
      where.push(`i.due_at is null and i.id > ${param(after.itemId)}::bigint`);
    } else {
      // Nulls sort last: after a due item come the later ones, then every item without a due time.
      position = 'after_due';
      where.push(
        `((i.due_at, i.id) > (${param(after.dueAt)}::timestamptz, ${param(after.itemId)}::bigint) or i.due_at is null)`,
      );
    }
  } else if (after) {
    position = 'after';
    where.push(
      `(i.created_at, i.id) > (${param(after.createdAt)}::timestamptz, ${param(after.itemId)}::bigint)`,
    );
  }
  const text = `${ITEM_SELECT}
   where ${where.join(' and ')}
   order by ${byDue ? 'i.due_at nulls last, i.id' : 'i.created_at, i.id'}
   limit ${param(query.limit + 1)}`;
  const overdue = query.overdue === undefined ? 'any' : query.overdue ? 'overdue' : 'notdue';
  const name = `reviews_list_${lane}_${query.includeSnoozed === true ? 'all' : 'active'}_${overdue}_${byDue ? 'due' : 'created'}_${position}`;
  return { name, text, values };
}

/** Where a page of `query`'s order ends when `row` is its last item. */
function positionOf(row: ItemRow, query: ReviewQuery): ReviewPosition {
  return query.sort === 'due'
    ? { dueAt: row.due_at?.toISOString() ?? null, itemId: row.id }
    : { createdAt: row.created_at.toISOString(), itemId: row.id };
}

export class ReviewService {
  /** Runs' latest items, read in batches (`LATEST_RUN_ITEMS`). */
  private readonly runItems: BatchLoader<RunItemKey, ItemRow | undefined>;

  /**
   * Pages of the queue; identical ones asked for in one turn (the refreshed page of many concurrent
   * decisions) share one statement, read at that statement's `now` (`createSharedReader`).
   */
  private readonly pages: BatchLoader<
    { orgId: number; query: ReviewQuery },
    { now: number; rows: ItemRow[] }
  >;

  constructor(private readonly deps: ReviewServiceDeps) {
    this.runItems = latestRunItems(deps.db);
    this.pages = createSharedReader({
      idOf: ({ orgId, query }) => JSON.stringify([orgId, query]),
      read: async ({ orgId, query }) => {
        const now = deps.clock.now();
        const statement = listStatement(orgId, now, query);
        return {
          now,
          rows: await deps.db.prepared<ItemRow>(statement.name, statement.text, statement.values),
        };
      },
    });
  }

  /**
   * A page of the org's queue, oldest first (or soonest due first, `sort: 'due'`): active items unless
   * `includeSnoozed`, only the overdue ones with `overdue`.
   */
  async list(principal: Principal, query: ReviewQuery): Promise<ReviewPage> {
    const { now, rows } = await this.pages.load({ orgId: principal.orgId, query });
    const more = rows.length > query.limit;
    const page = more ? rows.slice(0, query.limit) : rows;
    const last = page.at(-1);
    return {
      reviews: page.map((row) => this.view(row, now)),
      next: more && last ? positionOf(last, query) : null,
    };
  }

  /**
   * The item `{kind, id}` of the caller's org — its open one, else its last closed one — and its
   * subject as the subject's own GET answers it, and its steps when its kind has them (runs). 404 when
   * the subject never waited for review (or is another org's, or of another kind).
   */
  async get(
    principal: Principal,
    ref: ReviewRef,
  ): Promise<{
    review: ReviewView;
    subject: unknown;
    steps?: ReviewStep[];
    policy: ReturnType<typeof policyView>;
  }> {
    const subject = this.deps.subjects.get(ref.kind);
    if (!subject) throw notFound(`${ref.kind} review`, ref.id);
    const run = ref.kind === 'skill' || ref.kind === 'workflow';
    const row = run
      ? await this.runItems.load({ orgId: principal.orgId, kind: ref.kind, id: ref.id })
      : (
          await this.deps.db.prepared<ItemRow>('reviews_get', LATEST_ITEM, [
            principal.orgId,
            ref.kind,
            ref.id,
          ])
        )[0];
    if (!row) throw notFound(`${ref.kind} review`, ref.id);
    const { policies } = this.deps;
    const [view, steps, policy] = await Promise.all([
      subject.view(principal, ref.id),
      subject.steps?.(principal, ref.id),
      run
        ? policies.inForceOfRow(principal.orgId, ref, row as unknown as Record<string, unknown>, FACTS)
        : policies.inForce(principal.orgId, ref),
    ]);
    const review = this.view(row, this.deps.clock.now());
    return {
      review,
      subject: view,
      ...(steps === undefined ? {} : { steps }),
      policy: policyView(policy, callerView(principal, policy, review.approvals)),
    };
  }

  /**
   * Decides item `{kind, id}` through the choke point (decisions.ts): approve or reject its skill
   * run, resume (approve) or cancel (reject) its workflow or mission run, execute (approve) or drop
   * (reject) its proposal. 404 for no such item in the org; 409 when it is no longer in the queue
   * (also when another reviewer wins a race for it) or `revision` is stale.
   */
  async decide(principal: Principal, args: DecideArgs): Promise<void> {
    await this.deps.decisions.decide(principal, args);
  }

  /** Undoes the delayed decision of item `{kind, id}` through the choke point (decisions.ts `undo`). */
  undo(principal: Principal, ref: ReviewRef, requestId: string | null = null): Promise<void> {
    return this.deps.decisions.undo(principal, ref, requestId);
  }

  /** Decides a batch through the choke point, all or nothing (decisions.ts `decideBatch`); how many. */
  decideBatch(principal: Principal, request: BatchRequest): Promise<number> {
    return this.deps.decisions.decideBatch(principal, request);
  }

  /**
   * Routes item `{kind, id}` to a user of the org, or back to the triage lane (null), replacing the
   * note. 400 when `assignedTo` is not a user of the org; 404 and 409 as for `decide`.
   */
  async assign(principal: Principal, args: AssignArgs): Promise<void> {
    const role = args.assignedTo === null ? null : await this.roleOf(principal.orgId, args.assignedTo);
    if (args.assignedTo !== null && role === null) {
      throw validationFailed([
        {
          field: 'body.assignedTo',
          message: `is not a user of this organization: ${JSON.stringify(args.assignedTo)}`,
        },
      ]);
    }
    const target = await this.target(principal, args);
    if (args.assignedTo !== null && role !== null)
      await this.checkAssignee(principal, args, args.assignedTo, role);
    const event: ReviewAssignEvent = {
      type: 'ASSIGN',
      assignedTo: args.assignedTo,
      note: args.note ?? null,
      by: principal.actor,
      at: this.now(),
    };
    await this.transition(principal, args, target, event, {
      action: 'review.assign',
      targetKind: 'run',
      targetId: String(args.id),
      details: {
        kind: args.kind,
        reviewItemId: target.row.id,
        assignedTo: args.assignedTo,
        note: args.note ?? null,
      },
      requestId: args.requestId ?? null,
    });
  }

  /**
   * Hides item `{kind, id}` from the active queue until `until` (a durable WAKE timer; snoozing again
   * replaces it). 400 when `until` is not after the server's now; 404 and 409 as for `decide`.
   */
  async snooze(principal: Principal, args: SnoozeArgs): Promise<void> {
    const at = this.deps.clock.now();
    const until = Date.parse(args.until);
    if (!(until > at)) {
      throw validationFailed([
        { field: 'body.until', message: `must be in the future (now is ${new Date(at).toISOString()})` },
      ]);
    }
    const target = await this.target(principal, args);
    const untilIso = new Date(until).toISOString();
    const event: ReviewSnoozeEvent = {
      type: 'SNOOZE',
      until: untilIso,
      by: principal.actor,
      at: new Date(at).toISOString(),
    };
    await this.transition(principal, args, target, event, {
      action: 'review.snooze',
      targetKind: 'run',
      targetId: String(args.id),
      details: { kind: args.kind, reviewItemId: target.row.id, until: untilIso },
      requestId: args.requestId ?? null,
    });
  }

  /** The open item `{kind, id}` of the caller's org: 404 when there is no such subject, 409 when it has none. */
  private async target(principal: Principal, ref: ReviewRef): Promise<LoadedActor> {
    const target = await this.deps.decisions.target(principal, ref);
    if (!target.item) throw gone(ref, target.status);
    return target.item;
  }

  /** Sends `event` to the target item in one statement; 409 when the item refuses it (it closed). */
  private async transition(
    principal: Principal,
    ref: ReviewRef,
    target: LoadedActor,
    event: ReviewAssignEvent | ReviewSnoozeEvent,
    audit: TransitionAudit,
  ): Promise<void> {
    const { host } = this.deps;
    const result = await host.transact(
      (tx) =>
        host.send(tx, REVIEW_ITEM_KIND, { orgId: principal.orgId, id: target.row.id }, event, {
          actingAs: actingAs(principal),
          loaded: target,
          audit,
        }),
      { single: true },
    );
    if (result.outcome === 'applied') return;
    if (result.outcome === 'invalid') throw validationFailed(result.issues);
    const status = result.outcome === 'refused' ? actorStatus(result.actor) : 'gone';
    throw gone(ref, status);
  }

  /** The role of user `userId` of the org, or null when it has no such user. */
  private async roleOf(orgId: number, userId: string): Promise<string | null> {
    const rows = await this.deps.db.prepared<{ role: string }>(
      'reviews_user_role',
      'select role from users where org_id = $1 and id = $2',
      [orgId, userId],
    );
    return rows[0]?.role ?? null;
  }

  /** 400 when the review policy in force does not let `userId` decide the item (decisions.md §16). */
  private async checkAssignee(
    principal: Principal,
    ref: ReviewRef,
    userId: string,
    role: string,
  ): Promise<void> {
    const { rules } = await this.deps.policies.inForce(principal.orgId, ref);
    if (!rules.approvers || isApprover(rules, { id: userId, role })) return;
    throw validationFailed([
      {
        field: 'body.assignedTo',
        message: `${JSON.stringify(userId)} is not an approver of this item (approvers: ${approversText(rules.approvers)})`,
      },
    ]);
  }

  private subject(kind: ReviewKind): ReviewSubject {
    const subject = this.deps.subjects.get(kind);
    if (!subject) throw new Error(`no review subject of kind ${kind} is registered`);
    return subject;
  }

  private view(row: ItemRow, now: number): ReviewView {
    const createdAt = row.created_at.toISOString();
    const subject = this.subject(row.kind);
    const deciding = row.status === 'deciding' ? row.deciding : null;
    return {
      kind: row.kind,
      id: row.run_id,
      title: row.title,
      summary: row.summary,
      status: deciding
        ? 'deciding'
        : row.open
          ? REVIEW_STATUS_OF_KIND[row.kind]
          : (row.status as 'decided' | 'cancelled'),
      effectiveAt: deciding?.effectiveAt ?? null,
      decision: deciding && {
        action: deciding.action,
        edits: deciding.edits,
        reason: deciding.reason,
        by: deciding.by,
        at: deciding.at,
      },
      revision: row.open ? revisionOf(row.id, row.version) : null,
      rounds: row.rounds,
      assignedTo: row.assigned_to,
      snoozedUntil: row.snoozed_until?.toISOString() ?? null,
      note: row.note,
      slug: row.slug,
      pausedAt: row.paused_at,
      createdAt,
      ageSeconds: Math.max(0, Math.floor((now - row.created_at.getTime()) / 1000)),
      dueAt: row.due_at?.toISOString() ?? null,
      overdue: row.due_at !== null && row.due_at.getTime() <= now,
      reviewUrl: subject.reviewUrl(row.run_id),
      pollUrl: subject.pollUrl(row.run_id),
      required: row.required,
      approvals: row.approvals,
    };
  }

  private now(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }
}
