/**
 * Artifacts (docs/api.md#artifacts): files tools make (`create_artifact`, `generate_image`), stored per org
 * in PostgreSQL with their hash, media type and size, the run that made them and who made them; read
 * through `/api/v1/artifacts*` (scope `read:all`, tenant-isolated, served so a browser never runs them).
 */
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import { artifactResources } from './mcp-resources.js';
import { Migration0018Artifacts } from './migrations/0018-artifacts.js';
import { artifactRoutes } from './routes.js';
import { ArtifactService } from './service.js';

export type { ArtifactMaker, ArtifactView, NewArtifact } from './service.js';
export {
  ArtifactService,
  artifactNameSchema,
  artifactTooLarge,
  artifactViewSchema,
  mediaTypeSchema,
} from './service.js';

/** What the artifacts feature offers. */
export interface ArtifactsApi {
  artifacts: ArtifactService;
}

export const artifactsFeature = defineFeature({
  name: 'artifacts',
  migrations: [{ name: '0018-artifacts', class: Migration0018Artifacts }],
  register(platform: Platform): ArtifactsApi {
    const artifacts = new ArtifactService({
      db: platform.db.sql,
      clock: platform.clock,
      maxBytes: platform.config.artifacts.maxBytes,
      baseUrl: platform.baseUrl,
    });
    platform.routes.add(...artifactRoutes(artifacts));
    platform.mcp.addResources(artifactResources(artifacts));
    return { artifacts };
  },
});
