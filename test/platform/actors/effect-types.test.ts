/**
 * Typed effects (src/platform/actors/kind.ts), checked by the type checker (`npm run typecheck`):
 * a kind's effects are the union its machine's `setup` names, discriminated by `type`, each with its
 * own params; its handlers are one per effect the host does not perform itself, each taking its own
 * effect's params, so no handler casts. A kind that misses a handler, or a handler that takes another
 * effect's params, does not compile.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type {
  NotifyParams,
  RecordEventParams,
  skillRunMachine,
  webhookEndpointMachine,
} from '../../../machines/index.js';
import type { EffectContext, EffectHandlers, EffectOf } from '../../../src/platform/actors/kind.js';

describe('typed effects', () => {
  it("type a kind's effects by its machine: a union discriminated by type, each with its params", () => {
    type SkillRunEffect = EffectOf<typeof skillRunMachine>;
    expectTypeOf<SkillRunEffect['type']>().toEqualTypeOf<
      'closeReview' | 'enqueueJob' | 'openReview' | 'recordEvent' | 'updateReview'
    >();
    expectTypeOf<
      Extract<SkillRunEffect, { type: 'recordEvent' }>['params']
    >().toEqualTypeOf<RecordEventParams>();
    // The host performs enqueueJob; the kind handles the rest.
    expectTypeOf<keyof EffectHandlers<typeof skillRunMachine>>().toEqualTypeOf<
      'closeReview' | 'openReview' | 'recordEvent' | 'updateReview'
    >();
    expectTypeOf<
      Parameters<EffectHandlers<typeof webhookEndpointMachine>['notify']>[0]
    >().toEqualTypeOf<NotifyParams>();
  });

  it("give a handler its machine's events and snapshot", () => {
    type Ctx = EffectContext<typeof skillRunMachine>;
    expectTypeOf<Extract<Ctx['event'], { type: 'APPROVE' }>['note']>().toEqualTypeOf<
      string | null | undefined
    >();
    expectTypeOf<Ctx['after']['context']['runId']>().toEqualTypeOf<number>();
  });

  it('refuse a kind without a handler for an effect, or a handler of other params', () => {
    // @ts-expect-error the endpoint's machine emits notify, which needs a handler
    const missing: EffectHandlers<typeof webhookEndpointMachine> = {};
    const other: EffectHandlers<typeof webhookEndpointMachine> = {
      // @ts-expect-error notify's params are NotifyParams, not a run event's
      notify: (_params: RecordEventParams) => undefined,
    };
    expect([missing, Object.keys(other)]).toEqual([{}, ['notify']]);
  });
});
