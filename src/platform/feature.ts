/**
 * What a feature is (`src/features/<name>/index.ts` exports one): a name, a `register` that adds the
 * feature's actor kinds, job kinds, routes, MCP tools, fused reads and services to the platform and
 * returns its API (what other features and the CLI may call), and its `r3` commands.
 *
 * `deps` are the APIs of the features it uses, passed by the composition root (src/main.ts), which
 * registers features in order: a feature comes after those it uses. A feature imports the platform
 * and other features' `index.ts` only.
 */
import type { CliCommand } from './cli.js';
import type { Platform } from './platform.js';

/** A feature whose `register` returns `Api`, given the APIs `Deps` of the features it uses. */
export interface Feature<Api, Deps = void> {
  readonly name: string;
  /**
   * Adds the feature to `platform` and returns its API. Synchronous and without I/O: what must be
   * read first (secrets, caches) goes in a service's `prepare` (`platform.addService`).
   */
  register(platform: Platform, deps: Deps): Api;
  /** Its `r3` commands; `ctx.open()` gives them this feature's API. */
  readonly commands?: readonly CliCommand<Api>[];
}

/** Declares a feature (types `commands` by what `register` returns). */
export function defineFeature<Api, Deps = void>(feature: Feature<Api, Deps>): Feature<Api, Deps> {
  return feature;
}
