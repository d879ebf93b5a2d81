/**
 * What a feature is (`src/features/<name>/index.ts` exports one, made with `defineFeature`), and how a
 * list of them registers (`registerFeatures`). A feature declares:
 *
 * - `migrations`: its numbered migrations (`{name: '<nnnn>-<words>', class}`, the files in its
 *   `migrations/` folder; the name is what the migrations table records, so it never changes);
 * - `entities`: the MikroORM entities of its tables that ORM queries read (only the workspace's
 *   authored-resource views have any: docs/architecture.md "PostgreSQL");
 * - `machines`: the machines of its persisted actor kinds, by kind (the machine's `id`); its
 *   `register` registers one actor kind per machine (`platform.actors.register`) and no other;
 * - `register`: adds its actor kinds, job kinds, routes, MCP tools, fused reads and services to the
 *   platform and returns its API (what other features and the CLI may call). Synchronous and without
 *   I/O: what must be read first (secrets, caches) goes in a service's `prepare`. Its second
 *   parameter, typed by the feature, holds the APIs of the features it uses, by their key in the list;
 * - `commands`: its `r3` commands (`ctx.open()` gives them its API).
 *
 * The one ordered list of features is src/features.ts; migrations, machines, commands and the `App`
 * type are derived from it. The order rule: a feature comes after every feature whose API it uses
 * (checked when the list registers). A feature imports the platform and other features' `index.ts`
 * only.
 */
import type { EntitySchema, MigrationObject } from '@mikro-orm/core';
import type { AnyStateMachine } from 'xstate';
import type { CliCommand } from './cli.js';
import type { Platform } from './platform.js';

/** A migration: its recorded name (`<nnnn>-<words>`, the file's name) and its class. */
export type FeatureMigration = MigrationObject;

/** Machines by actor kind (the machine's `id`). */
export type MachineMap = Readonly<Record<string, AnyStateMachine>>;

/** A feature whose `register` returns `Api`, given the APIs `Deps` of the features it uses. */
export interface Feature<Api = unknown, Deps = unknown, Machines extends MachineMap = MachineMap> {
  readonly name: string;
  /** Its migrations, in number order (see the header). */
  readonly migrations?: readonly FeatureMigration[];
  /** The MikroORM entities its ORM queries read (see the header). */
  // biome-ignore lint/suspicious/noExplicitAny: an entity of any row type
  readonly entities?: readonly EntitySchema<any>[];
  /** The machines of the actor kinds its `register` registers, by kind. */
  readonly machines?: Machines;
  /** Adds the feature to `platform` and returns its API (see the header). */
  readonly register: (platform: Platform, deps: Deps) => Api;
  /** Its `r3` commands; `ctx.open()` gives them this feature's API. */
  readonly commands?: readonly CliCommand<Api>[];
}

/**
 * Declares a feature. Its types come from `register`: annotate the deps parameter (the APIs it uses,
 * by key) and the return type (its API).
 */
export function defineFeature<Api, Deps = unknown, const Machines extends MachineMap = Record<never, never>>(
  feature: Feature<Api, Deps, Machines>,
): Feature<Api, Deps, Machines> {
  return feature;
}

/** A list of features by key (the key other features' deps name them by), in registration order. */
// biome-ignore lint/suspicious/noExplicitAny: a feature of any API and any deps
export type FeatureList = Readonly<Record<string, Feature<any, any, MachineMap>>>;

/** The APIs of a list's features, by key. */
export type ApisOf<L extends FeatureList> = { [K in keyof L]: ReturnType<L[K]['register']> };

/** Every machine of a list's features, by kind. */
export type MachinesOf<L extends FeatureList> = {
  [K in keyof L]: NonNullable<L[K]['machines']>;
}[keyof L] extends infer U
  ? { [Kind in U extends unknown ? keyof U : never]: U extends Readonly<Record<Kind, infer M>> ? M : never }
  : never;

/**
 * `list`, checked: every feature's deps are APIs of the list (that each comes before its user is
 * checked when the list registers, `registerFeatures`).
 */
export function featureList<const L extends FeatureList>(
  list: L & { [K in keyof L]: Feature<ReturnType<L[K]['register']>, ApisOf<L>, MachineMap> },
): L {
  return list;
}

/** The machines of `list`'s features, by kind; throws when two features declare one kind. */
export function machinesOf(list: FeatureList): Record<string, AnyStateMachine> {
  const machines: Record<string, AnyStateMachine> = {};
  for (const feature of Object.values(list)) {
    for (const [kind, machine] of Object.entries(feature.machines ?? {})) {
      if (kind in machines) throw new Error(`actor kind ${kind} is declared by two features`);
      if (machine.id !== kind)
        throw new Error(`feature ${feature.name}: machine ${machine.id} is declared as ${kind}`);
      machines[kind] = machine;
    }
  }
  return machines;
}

/** The MikroORM entities of `list`'s features (MikroORM must know them when the database opens). */
// biome-ignore lint/suspicious/noExplicitAny: entities of any row type
export function entitiesOf(list: FeatureList): EntitySchema<any>[] {
  return Object.values(list).flatMap((feature) => feature.entities ?? []);
}

/** The pattern of a migration's name: its four-digit number, then words. */
const MIGRATION_NAME = /^(\d{4})-[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * Every migration, the platform's (`own`) and `list`'s features', in the order of their numbers —
 * the one order rule for migrations, whoever owns them. Throws on a malformed name or a number taken
 * twice.
 */
export function migrationsOf(own: readonly FeatureMigration[], list: FeatureList): FeatureMigration[] {
  const all = [...own, ...Object.values(list).flatMap((feature) => feature.migrations ?? [])];
  const numbers = new Map<string, string>();
  for (const { name } of all) {
    const number = MIGRATION_NAME.exec(name)?.[1];
    if (!number) throw new Error(`migration name ${JSON.stringify(name)} is not <nnnn>-<words>`);
    const taken = numbers.get(number);
    if (taken) throw new Error(`migrations ${taken} and ${name} share the number ${number}`);
    numbers.set(number, name);
  }
  return all.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Every feature's `r3` commands, each with the key of the feature whose API it opens. */
export function commandsOf<L extends FeatureList>(
  list: L,
): Array<{ feature: keyof L & string; command: CliCommand<never> }> {
  return Object.entries(list).flatMap(([feature, { commands }]) =>
    (commands ?? []).map((command) => ({ feature, command: command as CliCommand<never> })),
  );
}

/**
 * Registers `list`'s features on `platform`, in order; resolves with their APIs, by key. A feature's
 * deps are the APIs registered before it: using one that comes later throws (move it after). Each
 * feature must register exactly the actor kinds of its `machines`, with those machines.
 */
export function registerFeatures<L extends FeatureList>(platform: Platform, list: L): ApisOf<L> {
  const apis: Record<string, unknown> = {};
  for (const [key, feature] of Object.entries(list)) {
    const deps = new Proxy(apis, {
      get(target, name) {
        if (typeof name === 'string' && !(name in target)) {
          throw new Error(
            name in list
              ? `feature ${feature.name} uses ${name}, which registers after it: list it later (src/features.ts)`
              : `feature ${feature.name} uses ${name}, which is no feature`,
          );
        }
        return Reflect.get(target, name);
      },
    });
    const before = new Set(platform.actors.kinds().map((def) => def.name as string));
    apis[key] = feature.register(platform, deps);
    const added = platform.actors.kinds().filter((def) => !before.has(def.name));
    const declared = feature.machines ?? {};
    for (const def of added) {
      if (declared[def.name] !== def.machine) {
        throw new Error(`feature ${feature.name} registered actor kind ${def.name}, not one of its machines`);
      }
    }
    const missing = Object.keys(declared).filter((kind) => !added.some((def) => def.name === kind));
    if (missing.length > 0) {
      throw new Error(`feature ${feature.name} registered no actor kind for ${missing.join(', ')}`);
    }
  }
  return apis as ApisOf<L>;
}
