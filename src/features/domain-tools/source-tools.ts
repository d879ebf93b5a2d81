/**
 * The domain tools that read one upstream item cache-first, or sync a source (docs/mcp.md#domain-tools):
 *
 * - `get_meeting_transcript {meetingId}`: the synced meeting (by UUID or Zoom meeting id) if any
 *   (`source: "cache"`, `upserted: null`); else read live from Zoom and upserted (`source: "live"`,
 *   `upserted: "created"|"updated"|null`).
 * - `get_mail_thread {threadId, max_age_minutes?, force_refresh?}`: the synced thread when it was
 *   read upstream at most `max_age_minutes` ago (15) and no refresh is forced; else read live over
 *   IMAP and upserted. `fetchedAt` says when it was read upstream.
 * - `freshen_source {source}`: starts the sync `POST /sources/:slug/sync` starts (or answers the one
 *   running).
 *
 * An upstream failure is a tool error: TOOL_UNAVAILABLE without credentials, TOOL_TIMEOUT when the
 * upstream did not answer in time, TOOL_FAILED otherwise, with the connector's message.
 */
import { z } from 'zod';
import { access } from '../../platform/auth/guard.js';
import {
  notFound,
  toolFailed,
  toolTimeout,
  toolUnavailable,
  validationFailed,
} from '../../platform/errors.js';
import { READ_ONLY } from '../../platform/mcp/tool.js';
import { type AgentToolDef, defineAgentTool } from '../../platform/tools/registry.js';
import type { Clock } from '../../platform/util/clock.js';
import {
  bareId,
  ConnectorError,
  type ConnectorsApi,
  type SourceConfig,
  threadMessages,
  turnsFromLines,
} from '../connectors/index.js';
import type { RecordQueries, StoredRecord } from '../objects/index.js';
import { slugSchema } from '../workspace/index.js';
import type { ActingAgents } from './acting-agent.js';

/** What the source tools use. */
export interface SourceToolDeps {
  acting: ActingAgents;
  records: RecordQueries;
  connectors: Pick<ConnectorsApi, 'live' | 'syncs'>;
  clock: Clock;
}

/** A connector's failure as the tool error to answer. */
function upstreamError(error: unknown, source: string): unknown {
  if (!(error instanceof ConnectorError)) return error;
  const details = { source, upstream: error.code };
  if (error.code === 'NOT_CONFIGURED') return toolUnavailable(error.message, details);
  if (error.code === 'TIMEOUT') return toolTimeout(error.message, details);
  return toolFailed(error.message, details);
}

/** Reads `externalId` live from each source in turn until one has it. */
async function fetchLive(
  deps: SourceToolDeps,
  orgId: number,
  sources: readonly SourceConfig[],
  record: string,
  externalId: string,
  signal: AbortSignal | undefined,
) {
  for (const source of sources) {
    try {
      const found = await deps.connectors.live.fetch(orgId, source, record, externalId, signal);
      if (found) return found;
    } catch (error) {
      throw upstreamError(error, source.slug);
    }
  }
  return null;
}

/** The sources of `sources` that map `record`, each with its type. */
function mapped(sources: readonly SourceConfig[], record: string) {
  return sources.flatMap((source) => {
    const type = source.sync?.objectTypes[record];
    return type ? [{ source, type }] : [];
  });
}

const turnSchema = z.object({
  speaker: z.string().nullable(),
  start: z.number(),
  end: z.number(),
  text: z.string(),
});

const transcriptResult = z.object({
  meetingId: z.string(),
  title: z.string(),
  startedAt: z.string().nullable(),
  transcript: z.array(turnSchema),
  source: z.enum(['cache', 'live']),
  upserted: z.enum(['created', 'updated']).nullable(),
});

const messageSchema = z.object({
  messageId: z.string(),
  inReplyTo: z.string().nullable(),
  references: z.array(z.string()),
  from: z.string(),
  to: z.array(z.string()),
  cc: z.array(z.string()),
  subject: z.string(),
  date: z.string(),
  text: z.string(),
  mailbox: z.string(),
});

const threadResult = z.object({
  threadId: z.string(),
  subject: z.string(),
  messages: z.array(messageSchema),
  source: z.enum(['cache', 'live']),
  fetchedAt: z.string(),
});

function transcriptOf(stored: Pick<StoredRecord, 'title' | 'content' | 'metadata'>) {
  const timing = Array.isArray(stored.metadata.turns)
    ? (stored.metadata.turns as Array<{ speaker: string | null; start: number; end: number }>)
    : [];
  const startedAt = stored.metadata.startedAt;
  return {
    title: stored.title,
    startedAt: typeof startedAt === 'string' ? startedAt : null,
    transcript: turnsFromLines(stored.content, timing),
  };
}

function threadOf(threadId: string, stored: Pick<StoredRecord, 'title' | 'content' | 'metadata'>) {
  const subject = stored.metadata.subject;
  return {
    threadId,
    subject: typeof subject === 'string' ? subject : stored.title,
    messages: threadMessages(stored.content, stored.metadata),
  };
}

/** `get_meeting_transcript`, `get_mail_thread` and `freshen_source`. */
export function sourceTools(deps: SourceToolDeps): AgentToolDef[] {
  const { acting, records } = deps;
  return [
    defineAgentTool({
      name: 'get_meeting_transcript',
      title: 'Meeting transcript',
      group: 'domain',
      description:
        'The transcript of a recorded meeting (Zoom meeting UUID or id) as speaker turns ' +
        '{speaker, start, end, text} (seconds). Cache first: a synced meeting is answered from r3 ' +
        '(source "cache"); otherwise it is read from Zoom and stored (source "live", upserted ' +
        '"created"|"updated"|null).',
      args: z.strictObject({
        meetingId: z
          .string()
          .min(1)
          .max(300)
          .regex(/\S/, 'must not be blank')
          .describe('Zoom meeting UUID or id.'),
      }),
      result: transcriptResult,
      idempotency: 'safe',
      uses: ['run', 'mcp'],
      access: access.read,
      agentScoped: true,
      // Reads: a miss is read live and kept as the next sync would keep it, which changes no answer.
      hints: { ...READ_ONLY, openWorldHint: true },
      async execute({ meetingId }, call) {
        const name = 'get_meeting_transcript';
        const scope = await acting.resolve(call, name);
        const sources = mapped(acting.ofKind(scope, 'meetings', name), 'meeting');
        for (const { source, type } of sources) {
          const cached = await records.find(
            scope.orgId,
            { source: source.slug, type },
            meetingId,
            'meetingId',
          );
          if (cached) return { meetingId, ...transcriptOf(cached), source: 'cache' as const, upserted: null };
        }
        const live = await fetchLive(
          deps,
          scope.orgId,
          sources.map((s) => s.source),
          'meeting',
          meetingId,
          call.signal,
        );
        if (!live) throw notFound('meeting', meetingId);
        return { meetingId, ...transcriptOf(live.record), source: 'live' as const, upserted: live.upserted };
      },
    }),
    defineAgentTool({
      name: 'get_mail_thread',
      title: 'Mail thread',
      group: 'domain',
      description:
        'A mail thread (its root Message-ID) with every message {messageId, from, to, cc, subject, date, ' +
        'text, …}, oldest first. Answered from r3 when it was read from the mailbox at most ' +
        'max_age_minutes ago (default 15) unless force_refresh; otherwise read over IMAP and stored. ' +
        '`source` says which ("cache"|"live"), `fetchedAt` when it was read from the mailbox.',
      args: z.strictObject({
        threadId: z
          .string()
          .min(1)
          .max(1_000)
          .describe('The thread root Message-ID (angle brackets optional).'),
        max_age_minutes: z
          .number()
          .int()
          .min(0)
          .max(525_600)
          .default(15)
          .describe('Oldest cached copy to accept, in minutes (default 15).'),
        force_refresh: z.boolean().default(false).describe('Read the mailbox even when the cache is fresh.'),
      }),
      result: threadResult,
      idempotency: 'safe',
      uses: ['run', 'mcp'],
      access: access.read,
      agentScoped: true,
      // Reads: a miss is read live and kept as the next sync would keep it, which changes no answer.
      hints: { ...READ_ONLY, openWorldHint: true },
      async execute(args, call) {
        const name = 'get_mail_thread';
        const threadId = bareId(args.threadId);
        if (threadId === '' || /[\s<>"]/.test(threadId)) {
          throw validationFailed([{ field: 'arguments.threadId', message: 'must be a Message-ID' }]);
        }
        const scope = await acting.resolve(call, name);
        const sources = mapped(acting.ofKind(scope, 'mail', name), 'thread');
        let cached: { stored: StoredRecord; source: SourceConfig } | null = null;
        for (const { source, type } of sources) {
          const stored = await records.find(scope.orgId, { source: source.slug, type }, threadId);
          if (stored) {
            cached = { stored, source };
            break;
          }
        }
        const now = deps.clock.now();
        if (cached && !args.force_refresh) {
          const fetchedAt = cached.stored.syncedAt ?? cached.stored.updatedAt;
          if (now - Date.parse(fetchedAt) < args.max_age_minutes * 60_000) {
            return { ...threadOf(threadId, cached.stored), source: 'cache' as const, fetchedAt };
          }
        }
        // Live: the source that holds it first, then the others.
        const order = sources
          .map((s) => s.source)
          .sort((a, b) => Number(b.slug === cached?.source.slug) - Number(a.slug === cached?.source.slug));
        const live = await fetchLive(deps, scope.orgId, order, 'thread', threadId, call.signal);
        if (!live) throw notFound('thread', threadId);
        return {
          ...threadOf(threadId, live.record),
          source: 'live' as const,
          fetchedAt: new Date(now).toISOString(),
        };
      },
    }),
    defineAgentTool({
      name: 'freshen_source',
      title: 'Sync a source now',
      group: 'domain',
      description:
        'Starts a sync of a connected source (what changed upstream since the last one), as POST ' +
        '/sources/:slug/sync does, or answers the one already running: {syncId, status}.',
      args: z.strictObject({ source: slugSchema.describe('The source slug.') }),
      result: z.object({ syncId: z.number().int(), status: z.enum(['running', 'completed', 'failed']) }),
      idempotency: 'safe',
      uses: ['run', 'mcp'],
      access: access.write,
      agentScoped: true,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      async execute(args, call) {
        const scope = await acting.resolve(call, 'freshen_source');
        const source = acting.named(scope, args.source, 'freshen_source');
        const { sync } = await deps.connectors.syncs.request(scope.orgId, source.slug, {
          trigger: 'tool',
          by: { actor: call.actor, apiTokenId: call.apiTokenId, requestId: call.requestId },
        });
        return { syncId: sync.syncId, status: sync.status };
      },
    }),
  ];
}
