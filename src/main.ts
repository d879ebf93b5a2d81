/**
 * The composition root: the platform, then the features (src/features.ts, in the order they
 * register). `startApp` is what `r3 serve` runs and what tests start in-process; `openApp` gives the
 * other roles (`r3 mcp`, one-shot commands) the same features.
 */
import { FEATURES, type Features, featureEntities } from './features.js';
import { migrations } from './migrations.js';
import { type Config, freezeConfig } from './platform/config.js';
import { registerFeatures } from './platform/feature.js';
import { createLogger } from './platform/log.js';
import { openPlatform, type PlatformHost, type PlatformOptions } from './platform/platform.js';
import { createServing, type Serving } from './platform/serve.js';
import { systemClock } from './platform/util/clock.js';

/** A process's platform with every feature registered. */
export interface OpenedApp {
  platform: PlatformHost;
  features: Features;
}

/** Opens the platform for `options.role` and registers the features (nothing runs yet). */
export async function openApp(
  config: Config,
  options: Omit<PlatformOptions, 'migrations' | 'entities'>,
): Promise<OpenedApp> {
  const platform = await openPlatform(config, { ...options, migrations, entities: featureEntities });
  try {
    const features = registerFeatures(platform, FEATURES);
    // A serving process settles `baseUrl` when it listens (PORT=0), and freezes the config then.
    if (options.role !== 'serve') freezeConfig(config);
    return { platform, features };
  } catch (error) {
    await platform.stop();
    throw error;
  }
}

/** Every feature's API in one (their members' names are distinct). */
type AllApis = UnionToIntersection<Features[keyof Features]>;
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void
  ? I
  : never;

/** A serving r3 process: the platform, every feature's API, and the HTTP side. */
export type App = PlatformHost &
  AllApis &
  Pick<Serving, 'http' | 'lastUsed'> & {
    /** The port actually bound (PORT=0 picks a free one). */
    port: number;
    /** `http://host:port` of this process (BASE_URL may differ behind a proxy). */
    url: string;
    close(): Promise<void>;
  };

export type StartOptions = Partial<Omit<PlatformOptions, 'role' | 'migrations' | 'entities'>>;

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
    const apis = Object.values(features) as AllApis[];
    return Object.assign(platform, ...apis, {
      http: serving.http,
      lastUsed: serving.lastUsed,
      port,
      url,
      close() {
        closing ??= platform.stop().then(() => log.info('r3 stopped'));
        return closing;
      },
    }) as App;
  } catch (error) {
    await platform.stop();
    throw error;
  }
}
