/**
 * `sync.everyMinutes`: each scheduled source has one recurring job (kind
 * {@link SCHEDULED_SYNC_JOB}, keyed by org and source) on the job queue's durable timers. When it
 * is due it starts a sync (or finds one running) and schedules itself `everyMinutes` after now, so
 * times missed while no node ran are not replayed. A sweep (at start and every minute, in every
 * serving process) starts the jobs of sources that became scheduled; a job whose source is no
 * longer scheduled ends itself, and one whose interval changed is rescheduled by the new interval.
 */
import type { Db } from '../../../platform/db/sql.js';
import type { JobQueue } from '../../../platform/jobs/queue.js';
import { ensureRecurring, registerRecurring } from '../../../platform/jobs/recurring.js';
import type { Logger } from '../../../platform/log.js';
import type { PlatformService } from '../../../platform/platform.js';
import type { Clock } from '../../../platform/util/clock.js';
import type { SourceLookup } from '../source-config.js';
import type { SyncService } from './sync-service.js';

/** The job kind of a source's sync schedule; payload `{slug, everyMinutes}`. */
export const SCHEDULED_SYNC_JOB = 'source-sync-schedule';
/** How often the sweep looks for newly scheduled sources. */
const SWEEP_MS = 60_000;
/** The actor a scheduled sync is attributed to. */
const SCHEDULE_ACTOR = { actor: 'schedule', apiTokenId: null, requestId: null };

const MINUTE = 60_000;

export interface ScheduledSyncsDeps {
  db: Db;
  jobs: JobQueue;
  clock: Clock;
  log: Logger;
  syncs: SyncService;
  sources: SourceLookup;
  /** Every org's scheduled sources (the applied manifests with `sync.everyMinutes`). */
  scheduled: () => Promise<Array<{ orgId: number; slug: string; everyMinutes: number }>>;
}

/** The schedule key of a source. */
const keyOf = (orgId: number, slug: string) => `${SCHEDULED_SYNC_JOB}:${orgId}:${slug}`;

/** Registers the schedule's job kind and returns the sweep (a platform service). */
export function scheduledSyncs(deps: ScheduledSyncsDeps): PlatformService & { sweep(): Promise<number> } {
  const { db, jobs, clock, log } = deps;
  registerRecurring(jobs, db, SCHEDULED_SYNC_JOB, async (job) => {
    const orgId = job.orgId ?? 0;
    const { slug } = job.payload as { slug: string; everyMinutes: number };
    const source = await deps.sources(orgId, slug);
    const every = source?.sync?.everyMinutes;
    if (!source || !every) return null;
    try {
      await deps.syncs.request(orgId, slug, { trigger: 'schedule', by: SCHEDULE_ACTOR });
    } catch (error) {
      // A source that cannot sync now (no credentials yet) keeps its schedule: it may be set later.
      log.warn({ err: error, orgId, source: slug }, 'scheduled sync not started');
    }
    return { runAt: clock.now() + every * MINUTE, payload: { slug, everyMinutes: every } };
  });

  async function sweep(): Promise<number> {
    let started = 0;
    for (const { orgId, slug, everyMinutes } of await deps.scheduled()) {
      const fresh = await ensureRecurring(jobs, db, {
        kind: SCHEDULED_SYNC_JOB,
        key: keyOf(orgId, slug),
        orgId,
        runAt: clock.now() + everyMinutes * MINUTE,
        payload: { slug, everyMinutes },
      });
      if (fresh) started++;
    }
    return started;
  }

  let timer: NodeJS.Timeout | null = null;
  return {
    name: 'scheduled-syncs',
    sweep,
    async start() {
      await sweep().catch((error) => log.warn({ err: error }, 'sync schedule sweep failed'));
      timer = setInterval(() => {
        sweep().catch((error) => log.warn({ err: error }, 'sync schedule sweep failed'));
      }, SWEEP_MS);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
