/**
 * The `execute_action` job: carries out an approved proposal through its source's connector, exactly
 * once (enqueued by the APPROVE transition, in its transaction).
 *
 * An attempt is three steps: EXECUTION_STARTED (a transition, so a worker that dies mid-attempt still
 * used the attempt up), the connector's `execute` with the proposal's idempotency key, then
 * EXECUTION_SUCCEEDED (the recorded result) or EXECUTION_FAILED, written in one statement with the
 * job's completion. A job claimed again after its worker died finds the proposal `executing` and
 * starts the next attempt, telling the connector that an earlier one may have taken effect
 * (`previousAttempts`): the connector then finds that effect instead of repeating it (a note by its
 * time and body, a mail by its Message-ID in `\Sent`; a deal update sets the same properties again).
 *
 * A connector failure the upstream may get over (down, slow, 429) with job attempts left is reported
 * as a retry (the proposal stays `executing` and shows the error) and the job fails, so the queue
 * runs it again after its backoff (e, e², … seconds, at most an hour). Any other failure, or the
 * last attempt's, fails the proposal. A job found anywhere but `executing` is stale and does nothing.
 */
import { z } from 'zod';
import type { ProposalContext, ProposalEvent } from '../../../machines/index.js';
import { WORKER } from '../../platform/actors/acting-as.js';
import { type ActorHost, type LoadedActor, stateName } from '../../platform/actors/host.js';
import type { Db } from '../../platform/db/sql.js';
import { validationFailed } from '../../platform/errors.js';
import type { Job, JobContext, JobHandler, JobKindOptions } from '../../platform/jobs/queue.js';
import type { Logger } from '../../platform/log.js';
import type { Clock } from '../../platform/util/clock.js';
import {
  type ActionName,
  type ActionResult,
  type ConnectionStore,
  ConnectorError,
  parseAction,
  type SourceLookup,
} from '../connectors/index.js';
import { PROPOSAL_KIND } from './proposal-kind.js';

/** The job kind (the proposal machine's `enqueueJob` names it). */
export const EXECUTE_ACTION_JOB = 'execute_action';

/** Attempts of one execution before the proposal is `failed` (about half an hour of backoff). */
export const EXECUTE_ACTION_ATTEMPTS = 8;

/** The idempotency key of proposal `id`: the same on every attempt. */
export function proposalIdempotencyKey(orgId: number, id: number): string {
  return `r3-proposal-${orgId}-${id}`;
}

const payloadSchema = z.object({ actorId: z.number().int().positive(), orgId: z.number().int().positive() });

export interface ExecuteActionDeps {
  db: Db;
  host: ActorHost;
  clock: Clock;
  log: Logger;
  connections: Pick<ConnectionStore, 'connector'>;
  sources: SourceLookup;
  /** Attempts before the proposal fails (default {@link EXECUTE_ACTION_ATTEMPTS}). */
  maxAttempts?: number;
}

type Outcome =
  | { ok: true; result: ActionResult }
  | { ok: false; error: { code: string; message: string }; retryable: boolean; cause: unknown };

/** The `execute_action` handler and its kind options. */
export function createExecuteActionJob(deps: ExecuteActionDeps): {
  handler: JobHandler;
  options: JobKindOptions;
} {
  const { db, host, clock, log } = deps;
  const maxAttempts = deps.maxAttempts ?? EXECUTE_ACTION_ATTEMPTS;
  const iso = () => new Date(clock.now()).toISOString();

  async function load(orgId: number, id: number): Promise<LoadedActor | null> {
    return host.load(db, PROPOSAL_KIND, { orgId, id });
  }

  /** Runs the action of proposal `id` (attempt `n`); never throws. */
  async function execute(
    orgId: number,
    id: number,
    n: number,
    context: ProposalContext,
    signal: AbortSignal,
  ): Promise<Outcome> {
    try {
      const row = await db.maybeOne<{ action: string; source_slug: string; params: unknown }>(
        'select action, source_slug, coalesce(approved_params, params) as params from proposals where id = $1 and org_id = $2',
        [id, orgId],
      );
      if (!row) throw new ConnectorError('NOT_FOUND', `proposal ${id} is gone`);
      const parsed = parseAction(row.action as ActionName, row.params);
      if (!parsed.ok) {
        throw new ConnectorError('REJECTED', `the params no longer validate: ${parsed.issues[0]?.message}`);
      }
      const source = await deps.sources(orgId, row.source_slug);
      if (!source) {
        throw new ConnectorError('NOT_CONFIGURED', `the source ${row.source_slug} no longer exists`);
      }
      const connector = await deps.connections.connector(orgId, source);
      try {
        const result = await connector.execute({
          action: parsed.value,
          idempotencyKey: proposalIdempotencyKey(orgId, id),
          previousAttempts: n - 1,
          firstAttemptAt: context.firstAttemptAt ?? iso(),
          signal,
        });
        return { ok: true, result };
      } finally {
        await connector.close().catch(() => undefined);
      }
    } catch (error) {
      if (error instanceof ConnectorError) {
        return {
          ok: false,
          error: { code: error.code, message: error.message },
          retryable: error.retryable,
          cause: error,
        };
      }
      // Anything else is r3's own fault: the job's retries and its onDead deal with it.
      throw error;
    }
  }

  const handler: JobHandler = async (ctx: JobContext) => {
    const { actorId, orgId } = payloadSchema.parse(ctx.job.payload);
    const found = await load(orgId, actorId);
    if (!found || stateName(found.snapshot.value) !== 'executing') return;
    const before = found.snapshot.context as ProposalContext;
    const n = before.attempts + 1;
    const start = await host.transact(
      (tx) =>
        host.send(
          tx,
          PROPOSAL_KIND,
          { orgId, id: actorId },
          { type: 'EXECUTION_STARTED', attempt: n, at: iso() },
          { actingAs: WORKER, loaded: found },
        ),
      { single: true },
    );
    // Another worker took this attempt (a duplicate job): its report will come.
    if (start.outcome !== 'applied') return;
    const context = start.actor.snapshot.context as ProposalContext;
    const outcome = await execute(orgId, actorId, n, context, ctx.signal);
    const retry = !outcome.ok && outcome.retryable && ctx.job.attempts < maxAttempts;
    const event: ProposalEvent = outcome.ok
      ? { type: 'EXECUTION_SUCCEEDED', attempt: n, result: outcome.result, at: iso() }
      : { type: 'EXECUTION_FAILED', attempt: n, error: outcome.error, retry, at: iso() };
    const reported = await host.transact(
      (tx) =>
        host.send(tx, PROPOSAL_KIND, { orgId, id: actorId }, event, {
          actingAs: WORKER,
          loaded: start.actor,
          ...(retry ? {} : { completesJob: { id: ctx.job.id, workerId: ctx.workerId } }),
        }),
      { single: true },
    );
    // A report the machine's schema refuses is r3's own fault: the job's retries and onDead (failed).
    if (reported.outcome === 'invalid') throw validationFailed(reported.issues);
    if (reported.outcome !== 'applied') {
      log.warn({ proposalId: actorId, attempt: n }, 'a proposal refused its attempt report');
      return;
    }
    if (!outcome.ok) {
      log.warn({ proposalId: actorId, attempt: n, error: outcome.error, retry }, 'proposal execution failed');
    }
    // The queue runs the job again after its backoff.
    if (!outcome.ok && retry) throw outcome.cause;
    ctx.markCompleted();
  };

  /** A job out of attempts for a fault of r3's own: the proposal fails with EXECUTION_FAILED. */
  async function onDead(job: Job, error: string): Promise<void> {
    const { actorId, orgId } = payloadSchema.parse(job.payload);
    log.error({ proposalId: actorId, error }, 'proposal execution job is dead');
    await host.transact(async (tx) => {
      const ref = { orgId, id: actorId };
      const loaded = await host.load(tx.sql, PROPOSAL_KIND, ref);
      if (!loaded || stateName(loaded.snapshot.value) !== 'executing') return;
      let attempt = (loaded.snapshot.context as ProposalContext).attempts;
      if (attempt === 0) {
        attempt = 1;
        await host.send(
          tx,
          PROPOSAL_KIND,
          ref,
          { type: 'EXECUTION_STARTED', attempt, at: iso() },
          {
            actingAs: WORKER,
          },
        );
      }
      await host.send(
        tx,
        PROPOSAL_KIND,
        ref,
        {
          type: 'EXECUTION_FAILED',
          attempt,
          error: { code: 'EXECUTION_FAILED', message: `the execution could not be carried out: ${error}` },
          retry: false,
          at: iso(),
        },
        { actingAs: WORKER },
      );
    });
  }

  return { handler, options: { maxAttempts, onDead } };
}
