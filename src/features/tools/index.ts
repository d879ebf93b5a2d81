/**
 * Built-in agent tools (docs/mcp.md#built-in-tools), registered in the platform's agent-tool registry (and so
 * over MCP): `create_artifact` (through the artifacts feature), `run_code` (a QuickJS WebAssembly
 * sandbox in worker threads), `web_search` (SearXNG or Brave), `fetch_url` and `crawl_site` (an
 * SSRF-guarded fetcher, HTML read as Markdown) and `generate_image` (an OpenAI-compatible images API,
 * the image stored as an artifact).
 */
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { ArtifactsApi } from '../artifacts/index.js';
import { builtinTools } from './builtin-tools.js';
import { imageTool } from './image-tool.js';
import { PageReader } from './page-reader.js';
import { Sandbox } from './sandbox.js';
import { webSearchTool } from './search-tool.js';
import { WebFetcher } from './web-fetch.js';
import { webTools } from './web-tools.js';

export { WebFetcher } from './web-fetch.js';

/** What the tools feature offers. */
export interface ToolsApi {
  /** run_code's sandbox (its workers). */
  sandbox: Sandbox;
}

export const toolsFeature = defineFeature({
  name: 'tools',
  register(platform: Platform, { artifacts }: { artifacts: ArtifactsApi }): ToolsApi {
    const { workers, perOrg, queuePerOrg } = platform.config.tools.runCode;
    const sandbox = new Sandbox({
      pool: { size: workers, spares: 1, perOwner: perOrg, queuePerOwner: queuePerOrg },
    });
    platform.agentTools.add(...builtinTools({ artifacts: artifacts.artifacts, sandbox }));
    const fetcher = new WebFetcher({ allowPrivate: platform.config.tools.allowPrivate });
    const reader = new PageReader();
    platform.agentTools.add(webSearchTool(platform.config.tools.webSearch), ...webTools({ fetcher, reader }));
    platform.agentTools.add(
      imageTool({
        artifacts: artifacts.artifacts,
        model: platform.config.tools.imageModel,
        openai: platform.config.model.openai,
      }),
    );
    platform.addService({
      name: 'run_code sandbox',
      roles: ['serve', 'worker'],
      start() {
        // The spare worker loads the WebAssembly module in the background, so a first call does not
        // wait for it (nor, later, for a replacement: see Sandbox).
        void sandbox
          .warm()
          .catch((error) => platform.log.warn({ err: error }, 'run_code sandbox did not start'));
      },
      stop: () => sandbox.close(),
    });
    platform.addService({
      name: 'page reader',
      roles: ['serve', 'worker'],
      start() {},
      stop: () => reader.close(),
    });
    return { sandbox };
  },
});
