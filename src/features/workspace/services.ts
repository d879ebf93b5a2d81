/** The services of the workspace feature (what its routes, tools and other features use). */
import type { AppliedResources } from './applied.js';
import type { ResourceViews } from './resource-views.js';
import type { WorkspaceStore } from './store.js';

export interface WorkspaceServices {
  /** The one write path of authored resources (workspace files → version → apply). */
  workspace: WorkspaceStore;
  /** Authored resources in their REST/MCP wire shapes. */
  resources: ResourceViews;
  /** Applied manifests with their workspaceSha, for the runtime. */
  applied: AppliedResources;
}
