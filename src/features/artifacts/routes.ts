/**
 * `/api/v1/artifacts` (docs/api.md#artifacts, extension endpoints, scope `read:all`): list the org's
 * artifacts (of one run or mission run), one artifact's metadata, and its bytes. Another org's artifact is
 * 404.
 *
 * The bytes are served with their media type, `X-Content-Type-Options: nosniff` (every answer has it),
 * `Content-Security-Policy: sandbox` (a page opened from it runs no script and has no origin), and
 * `Content-Disposition: attachment` for everything but raster images: HTML, SVG, JavaScript, PDF and
 * anything unknown are downloaded, never rendered on r3's origin.
 */
import { z } from 'zod';
import { access } from '../../platform/auth/guard.js';
import { notFound } from '../../platform/errors.js';
import { idCursorSchema, limitSchema, nextCursor } from '../../platform/http/pagination.js';
import { ok, type RawReply } from '../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../platform/http/server.js';
import { type ArtifactService, artifactViewSchema } from './service.js';

/** Media types a browser shows without running anything: the only ones served inline. */
const INLINE_MEDIA_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/bmp',
]);

const idParams = z.object({ id: z.string() });
const positiveId = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** An artifact id from the path; anything that is not one names no artifact (404). */
export function artifactId(raw: string): number {
  const id = /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw notFound('artifact', raw);
  return id;
}

/** `attachment` (or `inline` for a raster image) with the name, ASCII-safe and RFC 5987-encoded. */
export function contentDisposition(name: string, mediaType: string): string {
  const essence = (mediaType.split(';')[0] ?? '').trim().toLowerCase();
  const kind = INLINE_MEDIA_TYPES.has(essence) ? 'inline' : 'attachment';
  const ascii = name.replace(/[^\x20-\x7e]|["\\%;]/g, '_');
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

export function artifactRoutes(artifacts: ArtifactService): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/artifacts',
      access: access.read,
      query: z.strictObject({
        runId: positiveId.optional(),
        missionRunId: positiveId.optional(),
        limit: limitSchema,
        cursor: idCursorSchema.optional(),
      }),
      summary:
        "Extension: the org's artifacts in the order they were made, of one run (runId) and/or mission run (missionRunId): {artifacts, nextCursor}.",
      responses: {
        200: {
          description: 'A page of artifacts (metadata only).',
          schema: z.object({ artifacts: z.array(artifactViewSchema), nextCursor: z.string().nullable() }),
        },
      },
      handler: async ({ principal, query }) => {
        const page = await artifacts.list(principal.orgId, {
          runId: query.runId,
          missionRunId: query.missionRunId,
          afterId: query.cursor,
          limit: query.limit,
        });
        return ok({ artifacts: page.items, nextCursor: nextCursor(page.nextAfter) });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/artifacts/:id',
      access: access.read,
      params: idParams,
      summary: "Extension: one artifact's metadata.",
      responses: { 200: { description: 'The artifact.', schema: artifactViewSchema } },
      handler: async ({ principal, params }) =>
        ok(await artifacts.get(principal.orgId, artifactId(params.id))),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/artifacts/:id/content',
      access: access.read,
      params: idParams,
      summary:
        "Extension: the artifact's bytes with its media type; Content-Disposition attachment unless a raster image.",
      responses: {
        200: {
          description: 'The bytes, as the artifact’s media type.',
          contentType: 'application/octet-stream',
        },
      },
      handler: async ({ principal, params }): Promise<RawReply> => {
        const { artifact, content } = await artifacts.content(principal.orgId, artifactId(params.id));
        return {
          kind: 'raw',
          status: 200,
          body: content,
          contentType: artifact.mediaType,
          headers: {
            'Content-Disposition': contentDisposition(artifact.name, artifact.mediaType),
            'Content-Security-Policy': 'sandbox',
            ETag: `"${artifact.sha256}"`,
          },
        };
      },
    }),
  ];
}
