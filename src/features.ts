/**
 * The features, in the one list r3 has of them: the order they register in (a feature comes after
 * every feature whose API it uses; `registerFeatures` checks it), keyed by the name their users' deps
 * give them. Adding a feature is adding its line here. Derived from this list: the migrations
 * (src/migrations.ts), the ORM's entities (`featureEntities`), the actor kinds' machines (`featureMachines`, and the `KindMachines` type the
 * actor host is typed by), the `r3` commands (`FEATURE_COMMANDS`) and the features' APIs (`Features`,
 * src/main.ts's `App`).
 */
import { artifactsFeature } from './features/artifacts/index.js';
import { connectorsFeature } from './features/connectors/index.js';
import { domainToolsFeature } from './features/domain-tools/index.js';
import { evaluationsFeature } from './features/evaluations/index.js';
import { missionsFeature } from './features/missions/index.js';
import { oauthFeature } from './features/oauth/index.js';
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
import {
  type ApisOf,
  commandsOf,
  entitiesOf,
  featureList,
  type MachinesOf,
  machinesOf,
} from './platform/feature.js';

/** Every feature, in registration order, by key. */
export const FEATURES = featureList({
  tokens: tokensFeature,
  workspace: workspaceFeature,
  reviews: reviewsFeature,
  runs: runsFeature,
  objects: objectsFeature,
  webhooks: webhooksFeature,
  connectors: connectorsFeature,
  triggers: triggersFeature,
  web: webFeature,
  artifacts: artifactsFeature,
  tools: toolsFeature,
  missions: missionsFeature,
  domainTools: domainToolsFeature,
  proposals: proposalsFeature,
  oauth: oauthFeature,
  evaluations: evaluationsFeature,
});

/** The features' APIs, by key. */
export type Features = ApisOf<typeof FEATURES>;

/** Every persisted actor kind's machine, by kind (= the machine's `id`). */
export type FeatureMachines = MachinesOf<typeof FEATURES>;

declare module './platform/actors/kind.js' {
  // The actor host's kinds are the features' (see `KindMachines`).
  interface KindMachines extends FeatureMachines {}
}

/** Every persisted actor kind's machine, by kind. */
export const featureMachines = machinesOf(FEATURES) as FeatureMachines;

/** The MikroORM entities the features' ORM queries read. */
export const featureEntities = entitiesOf(FEATURES);

/** The features' `r3` commands, each with the key of the feature whose API it opens. */
export const FEATURE_COMMANDS = commandsOf(FEATURES);
