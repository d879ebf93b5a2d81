/**
 * Missions (decisions §12): open-ended team work. Mission definitions are authored resources
 * (`missions/<slug>.yaml`, on the workspace) with their REST routes here.
 */
import { defineFeature } from '../../platform/feature.js';
import type { WorkspaceApi } from '../workspace/index.js';
import { missionRoutes } from './routes/missions.js';

/** What the missions feature offers. */
export type MissionsApi = Record<string, never>;

export const missionsFeature = defineFeature<MissionsApi, { workspace: WorkspaceApi }>({
  name: 'missions',
  register(platform, { workspace }) {
    platform.routes.add(...missionRoutes(workspace));
    return {};
  },
});
