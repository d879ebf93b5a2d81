/**
 * Features that own themselves (src/platform/feature.ts): a list registers in order, each feature
 * given the APIs of those before it (one that uses a later one is refused, naming both); a feature
 * registers exactly the actor kinds of its machines; migrations of every owner are ordered by number,
 * each number once; r3's own list (src/features.ts) derives every shipped migration, by name and in
 * order, and every actor kind's machine (that each feature registers its kinds is checked at every
 * start of an app: every app test).
 */
import { Migration } from '@mikro-orm/migrations';
import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { z } from 'zod';
import { featureEntities, featureMachines } from '../../src/features.js';
import { migrations } from '../../src/migrations.js';
import { createActorHost } from '../../src/platform/actors/host.js';
import type { ActorKindDef } from '../../src/platform/actors/kind.js';
import type { Db } from '../../src/platform/db/sql.js';
import {
  defineFeature,
  featureList,
  machinesOf,
  migrationsOf,
  registerFeatures,
} from '../../src/platform/feature.js';
import { createLogger } from '../../src/platform/log.js';
import type { Platform } from '../../src/platform/platform.js';
import { systemClock } from '../../src/platform/util/clock.js';

/** A platform with an actor host (nothing of it touches the database here) and nothing else. */
function fakePlatform(): Platform {
  const actors = createActorHost({ db: {} as Db, clock: systemClock, log: createLogger('silent') });
  return { actors } as unknown as Platform;
}

const alpha = createMachine({ id: 'alpha', initial: 'idle', states: { idle: {} } });
const beta = createMachine({ id: 'beta', initial: 'idle', states: { idle: {} } });

/** A kind of `machine` good enough to register (never transitioned here). */
function kindOf(machine: typeof alpha): ActorKindDef {
  return {
    name: machine.id,
    machine,
    eventSchema: z.never(),
    table: `${machine.id}s`,
    sequence: `${machine.id}s_id_seq`,
    contextSchema: z.unknown(),
    columns: {},
    project: () => ({}),
    runEvents: false,
  } as unknown as ActorKindDef;
}

/** A migration that does nothing (never run here). */
class Noop extends Migration {
  override async up(): Promise<void> {}
}

describe('registerFeatures', () => {
  it('registers in order, giving each feature the APIs before it, and answers the APIs by key', () => {
    const seen: string[] = [];
    const first = defineFeature({
      name: 'first',
      register: (): { count: number } => {
        seen.push('first');
        return { count: 1 };
      },
    });
    const second = defineFeature({
      name: 'second',
      register: (_platform: Platform, { first }: { first: { count: number } }): { doubled: number } => {
        seen.push('second');
        return { doubled: first.count * 2 };
      },
    });
    const apis = registerFeatures(fakePlatform(), featureList({ first, second }));
    expect(seen).toEqual(['first', 'second']);
    expect(apis).toEqual({ first: { count: 1 }, second: { doubled: 2 } });
  });

  it('refuses a feature that uses one listed after it, naming both', () => {
    const later = defineFeature({ name: 'later', register: (): { x: number } => ({ x: 1 }) });
    const early = defineFeature({
      name: 'early',
      register: (_platform: Platform, { later }: { later: { x: number } }): number => later.x,
    });
    expect(() => registerFeatures(fakePlatform(), featureList({ early, later }))).toThrow(
      'feature early uses later, which registers after it',
    );
  });

  it('registers the actor kinds of a feature its machines declare', () => {
    const platform = fakePlatform();
    const owner = defineFeature({
      name: 'owner',
      machines: { alpha },
      register: (p: Platform): null => {
        p.actors.register(kindOf(alpha));
        return null;
      },
    });
    registerFeatures(platform, featureList({ owner }));
    expect(platform.actors.kinds().map((def) => def.name)).toEqual(['alpha']);
  });

  it('refuses a feature that registers a kind it does not declare, or declares one it does not register', () => {
    const stray = defineFeature({
      name: 'stray',
      machines: { alpha },
      register: (p: Platform): null => {
        p.actors.register(kindOf(alpha));
        p.actors.register(kindOf(beta));
        return null;
      },
    });
    expect(() => registerFeatures(fakePlatform(), featureList({ stray }))).toThrow(
      'feature stray registered actor kind beta, not one of its machines',
    );
    const idle = defineFeature({ name: 'idle', machines: { alpha }, register: (): null => null });
    expect(() => registerFeatures(fakePlatform(), featureList({ idle }))).toThrow(
      'feature idle registered no actor kind for alpha',
    );
  });

  it("checks at compile time that a feature's deps are features of the list", () => {
    const lonely = defineFeature({
      name: 'lonely',
      register: (_platform: Platform, { missing }: { missing: number }): number => missing,
    });
    // @ts-expect-error `missing` is no feature of the list
    expect(() => registerFeatures(fakePlatform(), featureList({ lonely }))).toThrow(
      'feature lonely uses missing, which is no feature',
    );
  });
});

describe('migrationsOf', () => {
  const m = (name: string) => ({ name, class: Noop });

  it("orders the platform's and the features' migrations by number", () => {
    const list = featureList({
      a: defineFeature({ name: 'a', migrations: [m('0004-a'), m('0002-a')], register: () => null }),
      b: defineFeature({ name: 'b', migrations: [m('0003-b')], register: () => null }),
    });
    expect(migrationsOf([m('0001-own'), m('0005-own')], list).map((x) => x.name)).toEqual([
      '0001-own',
      '0002-a',
      '0003-b',
      '0004-a',
      '0005-own',
    ]);
  });

  it('refuses a number taken twice and a name that is not <nnnn>-<words>', () => {
    const twice = featureList({
      a: defineFeature({ name: 'a', migrations: [m('0002-a')], register: () => null }),
    });
    expect(() => migrationsOf([m('0002-own')], twice)).toThrow(
      'migrations 0002-own and 0002-a share the number 0002',
    );
    expect(() => migrationsOf([m('2-own')], {})).toThrow('is not <nnnn>-<words>');
  });
});

describe('machinesOf', () => {
  it('refuses a kind two features declare, and a machine declared under another kind', () => {
    const one = defineFeature({ name: 'one', machines: { alpha }, register: () => null });
    const two = defineFeature({ name: 'two', machines: { alpha }, register: () => null });
    expect(() => machinesOf(featureList({ one, two }))).toThrow(
      'actor kind alpha is declared by two features',
    );
    const misnamed = defineFeature({ name: 'misnamed', machines: { beta: alpha }, register: () => null });
    expect(() => machinesOf(featureList({ misnamed }))).toThrow('machine alpha is declared as beta');
  });
});

describe("r3's features (src/features.ts)", () => {
  it('derive every shipped migration, under its recorded name, in the order it shipped', () => {
    // What migrations tables record: a shipped name never changes, nor its place among the others.
    const shipped = [
      '0001-foundation',
      '0002-resources',
      '0003-actors',
      '0004-reviews',
      '0005-webhooks',
      '0006-queue-tables',
      '0007-batched-auth',
      '0008-outbox-delete',
      '0009-run-events-cascade',
      '0010-auth-epoch',
      '0011-outbox-one-index',
      '0012-outbox-batches',
      '0014-connectors',
      '0015-external-ids',
      '0016-workers',
      '0017-web-sessions',
      '0018-artifacts',
      '0019-proposals',
      '0020-missions',
      '0021-workflow-triggers',
      '0022-tool-calls',
      '0023-schedule-due-index',
      '0024-record-pages',
      '0025-record-projection',
      '0026-record-terms',
      '0027-job-priority',
    ];
    const names = migrations.map((x) => x.name);
    expect(names.filter((name) => shipped.includes(name))).toEqual(shipped);
    expect([...names].sort()).toEqual(names);
  });

  it("derive every actor kind's machine, each under its own id", () => {
    expect(Object.keys(featureMachines).sort()).toEqual([
      'mission-run',
      'proposal',
      'review-item',
      'skill-run',
      'webhook-delivery',
      'webhook-endpoint',
      'workflow-run',
    ]);
    for (const [kind, machine] of Object.entries(featureMachines)) expect(machine.id).toBe(kind);
  });

  it("derive MikroORM's entities: the authored-resource tables the workspace's views read, and no other", () => {
    expect(featureEntities.map((entity) => entity.meta.tableName).sort()).toEqual([
      'agents',
      'missions',
      'object_types',
      'review_policies',
      'skills',
      'sources',
      'workflows',
    ]);
  });
});
