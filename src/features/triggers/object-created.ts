/**
 * `object.created` triggers: the transaction that creates instances of a type (an ingest through the
 * API, a sync's page) also queues one job (kind {@link OBJECT_CREATED_JOB}) per applied workflow whose
 * trigger names that type, carrying the new instances' ids; so the work exists exactly when the
 * instances do, and survives any crash. The job starts one run per instance, with input
 * `{object: {id, slug, title, metadata}}`, in one transaction with its own completion and each
 * instance's `workflow_trigger_fires` row (`object:<id>`), so no instance starts a workflow twice.
 */
import type { ObjectsCreatedListener } from '../objects/index.js';
import { fireOnce, prepareStart, type TriggerDeps } from './fires.js';

/** The job kind that starts the runs of new instances; payload {@link ObjectCreatedPayload}. */
export const OBJECT_CREATED_JOB = 'workflow-object-created';
const MAX_ATTEMPTS = 20;

interface ObjectCreatedPayload {
  workflow: string;
  objectIds: number[];
}

interface InstanceRow {
  id: number;
  slug: string;
  title: string;
  metadata: Record<string, unknown>;
}

/** Registers the job kind; returns the listener to give the objects feature. */
export function objectCreatedTriggers(deps: TriggerDeps): ObjectsCreatedListener {
  const { db, jobs, host, clock, log, runs } = deps;

  jobs.register(
    OBJECT_CREATED_JOB,
    async (ctx) => {
      const orgId = ctx.job.orgId ?? 0;
      const { workflow, objectIds } = ctx.job.payload as ObjectCreatedPayload;
      const instances = await db.query<InstanceRow>(
        `select id, type_slug as slug, title, metadata from object_instances
          where org_id = $1 and id = any($2::bigint[]) order by id`,
        [orgId, objectIds],
      );
      const starts = await Promise.all(
        instances.map(async (object) => ({
          object,
          start: await prepareStart(runs, orgId, workflow, {
            object: { id: object.id, slug: object.slug, title: object.title, metadata: object.metadata },
          }),
        })),
      );
      await host.transact(async (tx) => {
        if (!(await ctx.complete(tx.sql))) return;
        const at = new Date(clock.now());
        for (const { object, start } of starts) {
          await fireOnce(tx, runs, {
            orgId,
            slug: workflow,
            key: `object:${object.id}`,
            type: 'object.created',
            at,
            start,
            details: { objectType: object.slug, objectId: object.id },
          });
          if ('error' in start) {
            log.warn(
              { orgId, workflow, objectId: object.id, error: start.error },
              'triggered run not started',
            );
          }
        }
      });
    },
    { maxAttempts: MAX_ATTEMPTS },
  );

  let queued = false;
  return {
    async inTransaction(sql, orgId, typeSlug, ids) {
      const workflows = await sql.prepared<{ slug: string }>(
        'trigger_object_workflows',
        `select slug from workflows
          where org_id = $1 and trigger_object_type = $2 and trigger_type = 'object.created'`,
        [orgId, typeSlug],
      );
      for (const { slug } of workflows) {
        const payload: ObjectCreatedPayload = { workflow: slug, objectIds: [...ids] };
        await jobs.enqueue(sql, { kind: OBJECT_CREATED_JOB, orgId, payload, maxAttempts: MAX_ATTEMPTS });
        queued = true;
      }
    },
    afterCommit() {
      if (!queued) return;
      queued = false;
      jobs.notifyEnqueued();
    },
  };
}
