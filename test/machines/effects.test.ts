import { describe, expect, it } from 'vitest';
import { initialTransition } from 'xstate';
import { EFFECT_TYPES, effectActions, toEffects } from '../../machines/shared/effects.js';
import { workflowRunMachine } from '../../machines/workflow-run/machine.js';

describe('effect vocabulary', () => {
  it('implements every effect as a no-op for setup()', () => {
    expect(Object.keys(effectActions).sort()).toEqual([...EFFECT_TYPES].sort());
    for (const implementation of Object.values(effectActions)) {
      expect(implementation(undefined, { event: 'started' } as never)).toBeUndefined();
    }
  });

  it('gives the host plain {type, params} effects in emission order', () => {
    const [, actions] = initialTransition(workflowRunMachine, {
      runId: 1,
      slug: 'w',
      steps: [{ name: 'gate', type: 'approve', title: 'Check' }],
      at: '2025-03-01T10:00:00.000Z',
    });
    expect(toEffects(actions)).toEqual([
      { type: 'recordEvent', params: { event: 'started' } },
      { type: 'enqueueJob', params: { job: 'execute_step', step: 'gate', attempt: 1 } },
    ]);
  });

  it('drops anything that is not an effect', () => {
    expect(
      toEffects([
        { type: 'xstate.raise', params: {} },
        { type: 'notify', params: { signal: 'x' } },
      ]),
    ).toEqual([{ type: 'notify', params: { signal: 'x' } }]);
  });
});
