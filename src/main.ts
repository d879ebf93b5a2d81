/**
 * The composition root: the platform, then the features, in the order they register (a feature
 * comes after those whose API it uses). `startApp` is what `r3 serve` runs and what tests start
 * in-process; `openApp` gives the other roles (`r3 mcp`, one-shot commands) the same features.
 */
import { artifactsFeature } from './features/artifacts/index.js';
import { connectorsFeature } from './features/connectors/index.js';
import { domainToolsFeature } from './features/domain-tools/index.js';
import { missionsFeature } from './features/missions/index.js';
import { objectsFeature } from './features/objects/index.js';
import { proposalsFeature } from './features/proposals/index.js';
import { reviewsFeature } from './features/reviews/index.js';
import { runsFeature } from './features/runs/index.js';
import { tokensFeature } from './features/tokens/index.js';
import { toolsFeature } from './features/tools/index.js';
import { triggersFeature } from './features/triggers/index.js';
import { webFeature } from './features/web/index.js';
import { webhooksFeature } from './features/webhooks/index.js';
import { workspaceFeature } from './features/workspace/index.js';
import { migrations } from './migrations.js';
import type { CliCommand } from './platform/cli.js';
import { type Config, freezeConfig } from './platform/config.js';
import { createLogger } from './platform/log.js';
import { openPlatform, type PlatformHost, type PlatformOptions } from './platform/platform.js';
import { createServing, type Serving } from './platform/serve.js';
import { systemClock } from './platform/util/clock.js';

/** Registers every feature on `platform`; resolves with their APIs, by feature. */
export function registerFeatures(platform: PlatformHost) {
  const tokens = tokensFeature.register(platform);
  const workspace = workspaceFeature.register(platform);
  const reviews = reviewsFeature.register(platform);
  const runs = runsFeature.register(platform, { workspace, reviews });
  const objects = objectsFeature.register(platform, { workspace });
  const webhooks = webhooksFeature.register(platform);
  const connectors = connectorsFeature.register(platform, { workspace, objects });
  const triggers = triggersFeature.register(platform, { workspace, runs, objects });
  const web = webFeature.register(platform);
  const artifacts = artifactsFeature.register(platform);
  const tools = toolsFeature.register(platform, { artifacts });
  const missions = missionsFeature.register(platform, { workspace, reviews, runs, artifacts });
  const domainTools = domainToolsFeature.register(platform, { workspace, objects, connectors, runs });
  const proposals = proposalsFeature.register(platform, { workspace, reviews, connectors });
  return {
    tokens,
    workspace,
    reviews,
    runs,
    objects,
    webhooks,
    connectors,
    triggers,
    web,
    artifacts,
    tools,
    missions,
    domainTools,
    proposals,
  };
}

/** The features' APIs, by feature. */
export type Features = ReturnType<typeof registerFeatures>;

/** The features' `r3` commands, each with the feature whose API it opens. */
export const FEATURE_COMMANDS: ReadonlyArray<{ feature: keyof Features; command: CliCommand<never> }> = [
  ...(tokensFeature.commands ?? []).map((command) => ({ feature: 'tokens' as const, command })),
  ...(workspaceFeature.commands ?? []).map((command) => ({ feature: 'workspace' as const, command })),
  ...(webFeature.commands ?? []).map((command) => ({ feature: 'web' as const, command })),
];

/** A process's platform with every feature registered. */
export interface OpenedApp {
  platform: PlatformHost;
  features: Features;
}

/** Opens the platform for `options.role` and registers the features (nothing runs yet). */
export async function openApp(
  config: Config,
  options: Omit<PlatformOptions, 'migrations'>,
): Promise<OpenedApp> {
  const platform = await openPlatform(config, { ...options, migrations });
  try {
    const features = registerFeatures(platform);
    // A serving process settles `baseUrl` when it listens (PORT=0), and freezes the config then.
    if (options.role !== 'serve') freezeConfig(config);
    return { platform, features };
  } catch (error) {
    await platform.stop();
    throw error;
  }
}

/** A serving r3 process: the platform, every feature's API, and the HTTP side. */
export type App = PlatformHost &
  Features['tokens'] &
  Features['workspace'] &
  Features['reviews'] &
  Features['runs'] &
  Features['objects'] &
  Features['webhooks'] &
  Features['connectors'] &
  Features['triggers'] &
  Features['web'] &
  Features['artifacts'] &
  Features['tools'] &
  Features['missions'] &
  Features['proposals'] &
  Pick<Serving, 'http' | 'lastUsed'> & {
    /** The port actually bound (PORT=0 picks a free one). */
    port: number;
    /** `http://host:port` of this process (BASE_URL may differ behind a proxy). */
    url: string;
    close(): Promise<void>;
  };

export type StartOptions = Partial<Omit<PlatformOptions, 'role' | 'migrations'>>;

/** Starts a whole r3 process (`serve` role) and resolves once it listens. */
export async function startApp(config: Config, options: StartOptions = {}): Promise<App> {
  const log = options.log ?? createLogger(config.logLevel);
  const { platform, features } = await openApp(config, {
    ...options,
    role: 'serve',
    clock: options.clock ?? systemClock,
    log,
  });
  try {
    const serving = createServing(platform);
    await platform.start();
    const { port, url } = await serving.listen();
    freezeConfig(config);
    const engine = serving.http.engine;
    if (engine.kind === 'node-http') {
      log.warn(
        { http: 'node:http', node: process.version, why: engine.detail },
        'no native uWebSockets.js build loads on this Node: serving over node:http, performance is reduced',
      );
    }
    log.info(
      {
        url,
        baseUrl: config.baseUrl,
        env: config.env,
        bus: config.natsUrl ? 'nats' : 'in-process',
        node: process.version,
        http: engine.kind === 'native' ? engine.detail : 'node:http',
      },
      'r3 listening',
    );
    let closing: Promise<void> | null = null;
    return Object.assign(
      platform,
      features.tokens,
      features.workspace,
      features.reviews,
      features.runs,
      features.objects,
      features.webhooks,
      features.connectors,
      features.triggers,
      features.web,
      features.artifacts,
      features.tools,
      features.missions,
      features.proposals,
      {
        http: serving.http,
        lastUsed: serving.lastUsed,
        port,
        url,
        close() {
          closing ??= platform.stop().then(() => log.info('r3 stopped'));
          return closing;
        },
      },
    );
  } catch (error) {
    await platform.stop();
    throw error;
  }
}
