/**
 * The `deliver` job: one attempt of one webhook delivery (enqueued by the delivery machine each time
 * it enters `pending`: at creation and when a retry timer fires).
 *
 * An attempt is three steps: ATTEMPT_STARTED (a transition, so a worker that dies mid-attempt still
 * used the attempt up), the POST, then ATTEMPT_SUCCEEDED or ATTEMPT_FAILED — written in one
 * statement with the attempt's row (status, duration, a capped excerpt of the answer) and the job's
 * completion. Before every attempt the target URL is checked again (SSRF guard) and the connection
 * goes to the address that check approved. Each attempt signs the stored body afresh with the
 * webhook's current secret (and, during the window after a rotation, the previous one) and goes to
 * its current URL.
 *
 * A job claimed again after its worker died finds the delivery `delivering`: it starts the next
 * attempt, or, when the lost one was the last, reports it as failed (`worker_lost`). A job that
 * finds the delivery anywhere else is stale and does nothing.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import { z } from 'zod';
import type { WebhookDeliveryContext, WebhookDeliveryEvent } from '../../../machines/index.js';
import { WORKER } from '../../platform/actors/acting-as.js';
import { type ActorHost, type LoadedActor, stateName } from '../../platform/actors/host.js';
import type { Db } from '../../platform/db/sql.js';
import type { Job, JobContext, JobHandler, JobKindOptions, JobQueue } from '../../platform/jobs/queue.js';
import type { Logger } from '../../platform/log.js';
import type { Metrics } from '../../platform/metrics/metrics.js';
import { checkTarget, type Resolver } from '../../platform/net/ssrf.js';
import type { SecretStore } from '../../platform/secrets/secret-store.js';
import { activeTraceparent, SpanKind, setHttpStatus, type Tracing } from '../../platform/tracing/tracing.js';
import { createBatchLoader } from '../../platform/util/batch-loader.js';
import type { Clock } from '../../platform/util/clock.js';
import { type DeliveryAgentPool, type DeliveryResult, postWebhook } from './deliver-http.js';
import type { EndpointSlots } from './endpoint-slots.js';
import { SIGNATURE_HEADER, signPayload, standardWebhookHeaders } from './signature.js';
import { type AttemptRow, WEBHOOK_DELIVERY_KIND } from './webhook-kinds.js';

/** The job kind (the delivery machine's `enqueueJob` names it). */
export const DELIVER_JOB = 'deliver';

/** Response bytes kept per attempt. */
export const ATTEMPT_EXCERPT_BYTES = 1024;

/** Header naming the delivery (receivers may dedupe on it: a retry keeps it). */
const DELIVERY_HEADER = 'X-Service-Delivery';
/** Header naming the event type. */
const EVENT_HEADER = 'X-Service-Event';

const payloadSchema = z.object({ actorId: z.number().int().positive(), orgId: z.number().int().positive() });

interface DeliveryRow {
  id: number;
  org_id: number;
  version: number;
  last_seq: number;
  snapshot: unknown;
  webhook_id: number;
  delivery_id: string;
  event_type: string;
  body: string;
  url: string;
  secret_sealed: string;
  old_secret_sealed: string | null;
  old_secret_expires_at: Date | null;
}

// Deliveries (as the host loads them) with what an attempt needs of their webhook: one round trip
// for all the jobs a worker pool starts together. Looked up by primary key (a join with the unnested
// pairs let the generic plan scan every delivery of each webhook); a row is only used under the
// (id, org) key it was asked for, so an id of another org never answers.
const LOAD = `
  select d.id, d.org_id, d.version, 0 as last_seq, d.snapshot, d.webhook_id, d.delivery_id, d.event_type,
         d.body, w.url, w.secret_sealed, w.old_secret_sealed, w.old_secret_expires_at
    from webhook_deliveries d
    join webhooks w on w.id = d.webhook_id and w.org_id = d.org_id
   where d.id = any($1::bigint[]) and d.org_id = any($2::bigint[])`;

export interface DeliverJobDeps {
  db: Db;
  host: ActorHost;
  jobs: JobQueue;
  clock: Clock;
  log: Logger;
  secrets: SecretStore;
  slots: EndpointSlots;
  agents: DeliveryAgentPool;
  timeoutMs: number;
  allowPrivate: boolean;
  /** Counts attempts by result (`r3_webhook_attempts_total`) and their duration. */
  metrics?: Pick<Metrics, 'webhookAttempts' | 'webhookAttemptDuration' | 'webhookDeliveries'>;
  /** A client span per attempt; its request carries the span's `traceparent`. */
  tracing?: Tracing;
  /** How long an attempt waits for a slot of its webhook before its job is put back (default 250 ms). */
  slotWaitMs?: number;
  /** How much later a put-back job is due again (default 1 s). */
  deferMs?: number;
  /** DNS for the SSRF check (tests). */
  resolver?: Resolver;
}

/** The `deliver` handler and its kind options (a dead job fails its attempt). */
export function createDeliverJob(deps: DeliverJobDeps): { handler: JobHandler; options: JobKindOptions } {
  const { db, host, jobs, clock, log, secrets, slots } = deps;
  const slotWaitMs = deps.slotWaitMs ?? 250;
  const deferMs = deps.deferMs ?? 1_000;
  const iso = () => new Date(clock.now()).toISOString();

  const rows = createBatchLoader<string, DeliveryRow | undefined>({
    batch: async (keys) => {
      const refs = keys.map((key) => key.split(':').map(Number) as [number, number]);
      const found = await db.prepared<DeliveryRow>('webhook_deliver_load', LOAD, [
        refs.map(([id]) => id),
        refs.map(([, org]) => org),
      ]);
      const byKey = new Map(found.map((row) => [`${row.id}:${row.org_id}`, row]));
      return keys.map((key) => byKey.get(key));
    },
  });

  async function load(
    actorId: number,
    orgId: number,
  ): Promise<{ row: DeliveryRow; actor: LoadedActor } | null> {
    const row = await rows.load(`${actorId}:${orgId}`);
    if (!row) return null;
    const actor = host.resolveRow(WEBHOOK_DELIVERY_KIND, row as unknown as Record<string, unknown>);
    return actor ? { row, actor } : null;
  }

  /** Attempt `n` in its span (when tracing), which the POST's `traceparent` names. Never throws. */
  function traced(row: DeliveryRow, n: number, signal: AbortSignal): Promise<DeliveryResult> {
    if (!deps.tracing?.enabled) return attempt(row, signal);
    const attributes = {
      'r3.webhook.id': row.webhook_id,
      'r3.webhook.delivery_id': row.delivery_id,
      'r3.webhook.event': row.event_type,
      'r3.webhook.attempt': n,
      'http.request.method': 'POST',
      'url.full': row.url,
    };
    return deps.tracing.inSpan('webhook attempt', { kind: SpanKind.CLIENT, attributes }, async (span) => {
      const result = await attempt(row, signal);
      if (span) {
        if (result.status !== null) setHttpStatus(span, result.status, false);
        if (result.error) span.setStatus({ code: SpanStatusCode.ERROR, message: result.error });
      }
      return result;
    });
  }

  /** The POST of one attempt, or why it was not made. Never throws. */
  async function attempt(row: DeliveryRow, signal: AbortSignal): Promise<DeliveryResult> {
    const target = await checkTarget(row.url, {
      allowPrivate: deps.allowPrivate,
      ...(deps.resolver ? { resolver: deps.resolver } : {}),
    });
    if (!target.ok) {
      return {
        status: null,
        ok: false,
        bodyExcerpt: '',
        error: `target_refused:${target.reason}`,
        durationMs: 0,
      };
    }
    const now = clock.now();
    const signing = [secrets.open(row.org_id, row.secret_sealed)];
    if (row.old_secret_sealed && row.old_secret_expires_at && row.old_secret_expires_at.getTime() > now) {
      signing.push(secrets.open(row.org_id, row.old_secret_sealed));
    }
    const t = Math.floor(now / 1000);
    return postWebhook({
      url: target.url,
      address: target.address,
      family: target.family,
      body: row.body,
      headers: {
        [SIGNATURE_HEADER]: signPayload(row.body, signing, t),
        ...standardWebhookHeaders(row.body, signing, row.delivery_id, t),
        [DELIVERY_HEADER]: row.delivery_id,
        [EVENT_HEADER]: row.event_type,
        ...traceHeader(),
      },
      timeoutMs: deps.timeoutMs,
      maxResponseBytes: ATTEMPT_EXCERPT_BYTES,
      agents: deps.agents,
      signal,
    });
  }

  /** Reports attempt `n`'s result with its attempt row; completes the job when the report is taken. */
  async function report(
    actor: LoadedActor,
    row: DeliveryRow,
    n: number,
    result: DeliveryResult,
    ctx: Pick<JobContext, 'job' | 'workerId' | 'markCompleted'> | null,
  ): Promise<boolean> {
    const at = iso();
    // `ok` is a 2xx answer, so it has a status.
    const event: WebhookDeliveryEvent =
      result.ok && result.status !== null
        ? { type: 'ATTEMPT_SUCCEEDED', attempt: n, status: result.status, at }
        : {
            type: 'ATTEMPT_FAILED',
            attempt: n,
            status: result.status ?? null,
            error: result.error ?? null,
            at,
          };
    const attemptRow: AttemptRow = {
      delivery_pk: row.id,
      attempt: n,
      org_id: row.org_id,
      url: row.url,
      response_status: result.status,
      error: result.error ?? null,
      duration_ms: result.durationMs,
      body_excerpt: result.bodyExcerpt,
      at,
    };
    const sent = await host.transact(
      (tx) =>
        host.send(tx, WEBHOOK_DELIVERY_KIND, { orgId: row.org_id, id: row.id }, event, {
          actingAs: WORKER,
          loaded: actor,
          extraRows: { attempts: [attemptRow] },
          ...(ctx ? { completesJob: { id: ctx.job.id, workerId: ctx.workerId } } : {}),
        }),
      { single: true },
    );
    if (sent.outcome !== 'applied') return false;
    ctx?.markCompleted();
    if (deps.metrics) {
      const label = attemptResult(result);
      deps.metrics.webhookAttempts.inc({ result: label });
      deps.metrics.webhookAttemptDuration.observe({ result: label }, result.durationMs / 1000);
      countEnded(sent.projection.status);
    }
    return true;
  }

  /** A delivery that ended (`delivered`, or `failed` out of attempts) counts in `r3_webhook_deliveries_total`. */
  function countEnded(status: unknown): void {
    if (status === 'delivered' || status === 'failed')
      deps.metrics?.webhookDeliveries.inc({ result: status });
  }

  /** Puts the job back for later (its webhook has no free slot): a new job, this one completed. */
  async function defer(ctx: JobContext): Promise<void> {
    await db.tx(async (sql) => {
      if (!(await ctx.complete(sql))) return;
      await jobs.enqueue(sql, {
        kind: DELIVER_JOB,
        orgId: ctx.job.orgId,
        payload: ctx.job.payload,
        runAt: clock.now() + deferMs,
      });
    });
  }

  const handler: JobHandler = async (ctx) => {
    const { actorId, orgId } = payloadSchema.parse(ctx.job.payload);
    const found = await load(actorId, orgId);
    // The delivery or its webhook was deleted: nothing to do.
    if (!found) return;
    const { row, actor } = found;
    const context = actor.snapshot.context as WebhookDeliveryContext;
    const status = stateName(actor.snapshot.value);
    if (status === 'delivering' && context.attempts >= context.maxAttempts) {
      // The worker of the last attempt died mid-attempt: that attempt failed.
      await report(actor, row, context.attempts, lost('worker_lost'), ctx);
      return;
    }
    if (status !== 'pending' && status !== 'delivering') return;
    const n = context.attempts + 1;
    if (!(await slots.acquire(row.webhook_id, slotWaitMs))) {
      await defer(ctx);
      return;
    }
    let result: DeliveryResult;
    let started: LoadedActor;
    try {
      const start = await host.transact(
        (tx) =>
          host.send(
            tx,
            WEBHOOK_DELIVERY_KIND,
            { orgId, id: actorId },
            { type: 'ATTEMPT_STARTED', attempt: n, at: iso() },
            { actingAs: WORKER, loaded: actor },
          ),
        { single: true },
      );
      // Another worker took this attempt (a duplicate job): its report will come.
      if (start.outcome !== 'applied') return;
      started = start.actor;
      result = await traced(row, n, ctx.signal);
    } finally {
      slots.release(row.webhook_id);
    }
    await report(started, row, n, result, ctx);
  };

  /** A job out of retries (its handler kept throwing): the attempt in progress, or the next one, failed. */
  async function onDead(job: Job, error: string): Promise<void> {
    const { actorId, orgId } = payloadSchema.parse(job.payload);
    const found = await load(actorId, orgId);
    if (!found) return;
    const { row, actor } = found;
    const context = actor.snapshot.context as WebhookDeliveryContext;
    const status = stateName(actor.snapshot.value);
    log.error({ deliveryId: row.delivery_id, error }, 'webhook delivery job is dead');
    if (status === 'delivering') {
      await report(actor, row, context.attempts, lost('job_dead'), null);
    } else if (status === 'pending') {
      await host.transact(async (tx) => {
        const ref = { orgId, id: actorId };
        const n = context.attempts + 1;
        const start = await host.send(
          tx,
          WEBHOOK_DELIVERY_KIND,
          ref,
          { type: 'ATTEMPT_STARTED', attempt: n, at: iso() },
          {
            actingAs: WORKER,
          },
        );
        if (start.outcome !== 'applied') return;
        const failed = await host.send(
          tx,
          WEBHOOK_DELIVERY_KIND,
          ref,
          { type: 'ATTEMPT_FAILED', attempt: n, error: 'job_dead', at: iso() },
          {
            actingAs: WORKER,
          },
        );
        if (failed.outcome === 'applied') {
          const ended = failed.projection.status;
          tx.afterCommit(() => countEnded(ended));
        }
      });
    }
  }

  return { handler, options: { onDead } };
}

/** `traceparent` of the attempt's span, when one records. */
function traceHeader(): Record<string, string> {
  const parent = activeTraceparent();
  return parent ? { traceparent: parent } : {};
}

/** An attempt's result as `r3_webhook_attempts_total` labels it (a bounded set). */
export function attemptResult(result: DeliveryResult): string {
  if (result.ok) return 'success';
  if (result.status !== null)
    return result.status >= 500 ? 'http_5xx' : result.status >= 400 ? 'http_4xx' : 'http_other';
  const error = result.error ?? '';
  if (error === 'timeout') return 'timeout';
  if (error.startsWith('target_refused')) return 'refused';
  if (error === 'worker_lost' || error === 'job_dead') return 'lost';
  if (error === 'aborted') return 'aborted';
  return 'network';
}

function lost(error: string): DeliveryResult {
  return { status: null, ok: false, bodyExcerpt: '', error, durationMs: 0 };
}
