/**
 * The org's artifacts as MCP resources (docs/mcp.md#resources): `r3://artifacts/<id>`, listed in the
 * order they were made; reading one gives its bytes with its media type — as `text` when the media
 * type is textual, else base64 in `blob`. Another org's artifact is not found.
 */
import { access } from '../../platform/auth/guard.js';
import { artifactUri, isTextMediaType, type ResourceSource } from '../../platform/mcp/resources.js';
import { artifactId } from './routes.js';
import type { ArtifactService } from './service.js';

export function artifactResources(artifacts: ArtifactService): ResourceSource {
  return {
    collection: 'artifacts',
    access: access.read,
    async list(principal, page) {
      const afterId = page.after === undefined ? undefined : Number(page.after);
      const listed = await artifacts.list(principal.orgId, {
        limit: page.limit,
        ...(Number.isSafeInteger(afterId) ? { afterId } : {}),
      });
      return {
        items: listed.items.map((artifact) => ({
          uri: artifactUri(artifact.id),
          name: artifact.name,
          description:
            artifact.runId === null
              ? `Artifact ${artifact.id}, made by ${artifact.createdBy}.`
              : `Artifact ${artifact.id} of run ${artifact.runId}.`,
          mimeType: artifact.mediaType,
          size: artifact.bytes,
        })),
        nextAfter: listed.nextAfter === null ? null : String(listed.nextAfter),
      };
    },
    async read(principal, key) {
      // Read as base64, what a blob is: no hex text to decode and encode again (service.ts).
      const { artifact, base64 } = await artifacts.contentBase64(principal.orgId, artifactId(key));
      const uri = artifactUri(artifact.id);
      return isTextMediaType(artifact.mediaType)
        ? [{ uri, mimeType: artifact.mediaType, text: Buffer.from(base64, 'base64').toString('utf8') }]
        : [{ uri, mimeType: artifact.mediaType, blob: base64 }];
    },
  };
}
