/**
 * Artifacts (docs/api.md#artifacts): store one (bytes + SHA-256 + media type + size, the run or mission run
 * that made it, who made it), list an org's, read one's metadata or bytes. Every read has the
 * caller's org in its WHERE clause: another org's artifact is not found. A create with an
 * idempotency key that was already used answers the artifact made the first time (a tool call
 * retried after a crash makes no second artifact).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { recordAuditSql } from '../../platform/audit/audit.js';
import type { Db } from '../../platform/db/sql.js';
import { ApiError, notFound } from '../../platform/errors.js';
import { parseOrThrow } from '../../platform/http/validate.js';
import type { Clock } from '../../platform/util/clock.js';

/** A media type (`type/subtype`, optional parameters): it becomes a Content-Type header, so strictly. */
export const mediaTypeSchema = z
  .string()
  .max(255)
  .regex(
    /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}(\s*;\s*[a-z0-9!#$&^_.+-]+=("[\x20\x21\x23-\x5b\x5d-\x7e]*"|[a-z0-9!#$&^_.+-]+))*$/i,
    'must be a media type such as text/markdown or image/png',
  )
  .describe('The media type of the content (text/markdown, application/json, image/png, …).');

/** An artifact's file name: printable, no path. */
export const artifactNameSchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^/\\\p{Cc}]+$/u, 'must be a file name without slashes or control characters')
  .describe('The file name (report.md, chart.png).');

/** An artifact as the API shows it (no bytes). */
/** An artifact as the API shows it (`url`: `BASE_URL/api/v1/artifacts/<id>/content`). */
export const artifactViewSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  mediaType: z.string(),
  bytes: z.number().int(),
  sha256: z.string(),
  runId: z.number().int().nullable(),
  missionRunId: z.number().int().nullable(),
  createdBy: z.string(),
  createdAt: z.string(),
  url: z.string(),
});
export type ArtifactView = z.output<typeof artifactViewSchema>;

/** Who makes an artifact, in which org, for which run. */
export interface ArtifactMaker {
  orgId: number;
  /** `token:<id>`, `mcp`, or the run's creator. */
  actor: string;
  apiTokenId: string | null;
  runId?: number | null;
  missionRunId?: number | null;
  /** Per org: a second create with the same key answers the first artifact. */
  idempotencyKey?: string | null;
  requestId?: string | null;
}

export interface NewArtifact {
  name: string;
  mediaType: string;
  content: Buffer;
}

interface ArtifactRow {
  id: number;
  name: string;
  media_type: string;
  bytes: number;
  sha256: string;
  run_id: number | null;
  mission_run_id: number | null;
  created_by: string;
  created_at: Date;
}

const COLUMNS = 'id, name, media_type, bytes, sha256, run_id, mission_run_id, created_by, created_at';

/** The artifact is over `R3_ARTIFACT_MAX_BYTES`: VALIDATION_FAILED naming the field that carried it. */
export function artifactTooLarge(field: string, bytes: number, maxBytes: number): ApiError {
  return new ApiError(
    'VALIDATION_FAILED',
    `${field}: the artifact is ${bytes} bytes, over the limit of ${maxBytes} bytes (R3_ARTIFACT_MAX_BYTES).`,
    {
      issues: [{ field, message: `exceeds ${maxBytes} bytes`, code: 'too_big' }],
      limitBytes: maxBytes,
      bytes,
    },
  );
}

export interface ArtifactServiceDeps {
  db: Db;
  clock: Clock;
  maxBytes: number;
  baseUrl(): string;
}

export class ArtifactService {
  constructor(private readonly deps: ArtifactServiceDeps) {}

  get maxBytes(): number {
    return this.deps.maxBytes;
  }

  /** Stores `artifact` for `maker` (or answers the one its idempotency key made). */
  async create(maker: ArtifactMaker, artifact: NewArtifact, field = 'content'): Promise<ArtifactView> {
    const { db, clock, maxBytes } = this.deps;
    parseOrThrow(mediaTypeSchema, artifact.mediaType, 'mediaType');
    parseOrThrow(artifactNameSchema, artifact.name, 'name');
    const bytes = artifact.content.byteLength;
    if (bytes > maxBytes) throw artifactTooLarge(field, bytes, maxBytes);
    const sha256 = createHash('sha256').update(artifact.content).digest('hex');
    const key = maker.idempotencyKey ?? null;
    const at = new Date(clock.now());
    return db.tx(async (sql) => {
      const inserted = await sql.maybeOne<ArtifactRow>(
        `insert into artifacts (org_id, name, media_type, bytes, sha256, content, run_id, mission_run_id,
                                idempotency_key, created_by, api_token_id, created_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
         on conflict (org_id, idempotency_key) where idempotency_key is not null do nothing
         returning ${COLUMNS}`,
        [
          maker.orgId,
          artifact.name,
          artifact.mediaType,
          bytes,
          sha256,
          artifact.content,
          maker.runId ?? null,
          maker.missionRunId ?? null,
          key,
          maker.actor,
          maker.apiTokenId,
          at,
        ],
      );
      if (!inserted) {
        const first = await sql.one<ArtifactRow>(
          `select ${COLUMNS} from artifacts where org_id = $1 and idempotency_key = $2`,
          [maker.orgId, key],
        );
        return this.view(first);
      }
      await recordAuditSql(sql, {
        orgId: maker.orgId,
        apiTokenId: maker.apiTokenId,
        actor: maker.actor,
        action: 'artifact.create',
        targetKind: 'artifact',
        targetId: String(inserted.id),
        details: {
          name: artifact.name,
          mediaType: artifact.mediaType,
          bytes,
          sha256,
          runId: maker.runId ?? null,
        },
        requestId: maker.requestId ?? null,
        at,
      });
      return this.view(inserted);
    });
  }

  /** The org's artifacts in the order they were made, optionally of one run and/or mission run. */
  async list(
    orgId: number,
    filter: {
      runId?: number | undefined;
      missionRunId?: number | undefined;
      afterId?: number | undefined;
      limit: number;
    },
  ): Promise<{ items: ArtifactView[]; nextAfter: number | null }> {
    const rows = await this.deps.db.query<ArtifactRow>(
      `select ${COLUMNS} from artifacts
        where org_id = $1 and ($2::bigint is null or run_id = $2)
          and ($3::bigint is null or mission_run_id = $3) and ($4::bigint is null or id > $4)
        order by id limit $5`,
      [orgId, filter.runId ?? null, filter.missionRunId ?? null, filter.afterId ?? null, filter.limit + 1],
    );
    const more = rows.length > filter.limit;
    const items = rows.slice(0, filter.limit).map((row) => this.view(row));
    return { items, nextAfter: more ? (items.at(-1)?.id ?? null) : null };
  }

  /** The artifact an idempotency key made in the org, if any (a keyed tool call answered before). */
  async findByKey(orgId: number, idempotencyKey: string): Promise<ArtifactView | undefined> {
    const row = await this.deps.db.maybeOne<ArtifactRow>(
      `select ${COLUMNS} from artifacts where org_id = $1 and idempotency_key = $2`,
      [orgId, idempotencyKey],
    );
    return row ? this.view(row) : undefined;
  }

  /** One artifact's metadata; NOT_FOUND when it is not the org's. */
  async get(orgId: number, id: number): Promise<ArtifactView> {
    const row = await this.deps.db.maybeOne<ArtifactRow>(
      `select ${COLUMNS} from artifacts where org_id = $1 and id = $2`,
      [orgId, id],
    );
    if (!row) throw notFound('artifact', id);
    return this.view(row);
  }

  /** One artifact's bytes and metadata; NOT_FOUND when it is not the org's. */
  async content(orgId: number, id: number): Promise<{ artifact: ArtifactView; content: Buffer }> {
    const row = await this.deps.db.maybeOne<ArtifactRow & { content: Buffer }>(
      `select ${COLUMNS}, content from artifacts where org_id = $1 and id = $2`,
      [orgId, id],
    );
    if (!row) throw notFound('artifact', id);
    return { artifact: this.view(row), content: row.content };
  }

  /**
   * One artifact's bytes as base64 (no line breaks) and its metadata; NOT_FOUND when it is not the
   * org's. PostgreSQL encodes them: a bytea column travels as hex text, twice the bytes, which r3
   * would decode and then encode again as base64, several times the event loop's time of taking the
   * base64 text as it comes (docs/performance.md, "MCP").
   */
  async contentBase64(orgId: number, id: number): Promise<{ artifact: ArtifactView; base64: string }> {
    const row = await this.deps.db.maybeOne<ArtifactRow & { base64: string }>(
      `select ${COLUMNS}, replace(encode(content, 'base64'), E'\n', '') as base64
         from artifacts where org_id = $1 and id = $2`,
      [orgId, id],
    );
    if (!row) throw notFound('artifact', id);
    return { artifact: this.view(row), base64: row.base64 };
  }

  private view(row: ArtifactRow): ArtifactView {
    return {
      id: row.id,
      name: row.name,
      mediaType: row.media_type,
      bytes: row.bytes,
      sha256: row.sha256,
      runId: row.run_id,
      missionRunId: row.mission_run_id,
      createdBy: row.created_by,
      createdAt: row.created_at.toISOString(),
      url: `${this.deps.baseUrl()}/api/v1/artifacts/${row.id}/content`,
    };
  }
}
