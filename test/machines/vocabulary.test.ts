/**
 * The vocabulary (machines/shared/vocabulary.ts) against the machines: the run statuses are exactly
 * the two run machines' top-level states, each final status is a final state recording the run event
 * of its name, and the events that end a stream are events runs record.
 */
import { describe, expect, it } from 'vitest';
import { MISSION_RUN_STATUSES, missionRunMachine } from '../../machines/mission-run/machine.js';
import { PROPOSAL_STATUSES, proposalMachine } from '../../machines/proposal/machine.js';
import { MISSION_EVENT_NAMES, PROPOSAL_EVENT_NAMES, RUN_EVENT_NAMES } from '../../machines/shared/effects.js';
import {
  FINAL_MISSION_RUN_STATUSES,
  FINAL_PROPOSAL_STATUSES,
  FINAL_RUN_STATUSES,
  RUN_STATUSES,
  SKILL_RUN_DECISION_EVENTS,
} from '../../machines/shared/vocabulary.js';
import { SKILL_RUN_STATUSES, skillRunMachine } from '../../machines/skill-run/machine.js';
import { WORKFLOW_RUN_STATUSES, workflowRunMachine } from '../../machines/workflow-run/machine.js';

type Machine =
  | typeof skillRunMachine
  | typeof workflowRunMachine
  | typeof missionRunMachine
  | typeof proposalMachine;

/**
 * The machine's top-level states a snapshot can rest in (those left at once by an eventless
 * transition, `starting` and the like, are never stored), and those of them that are final.
 */
function states(machine: Machine): { all: string[]; final: string[] } {
  const nodes = Object.entries(machine.root.states).filter(([, n]) => n.always === undefined);
  return {
    all: nodes.map(([key]) => key),
    final: nodes.filter(([, n]) => n.type === 'final').map(([key]) => key),
  };
}

describe('the vocabulary', () => {
  it('lists every run status once: the skill and workflow machines’ resting states, no other', () => {
    const union = new Set([...states(skillRunMachine).all, ...states(workflowRunMachine).all]);
    expect(new Set(RUN_STATUSES)).toEqual(union);
    expect(new Set([...SKILL_RUN_STATUSES, ...WORKFLOW_RUN_STATUSES])).toEqual(union);
    expect(new Set(RUN_STATUSES).size).toBe(RUN_STATUSES.length);
  });

  it('names as final exactly the run machines’ final states, each a run event', () => {
    for (const machine of [skillRunMachine, workflowRunMachine]) {
      expect(new Set(states(machine).final)).toEqual(new Set(FINAL_RUN_STATUSES));
    }
    for (const name of [...FINAL_RUN_STATUSES, ...SKILL_RUN_DECISION_EVENTS]) {
      expect(RUN_EVENT_NAMES).toContain(name);
    }
  });

  it('names as final exactly the mission run machine’s final states, each a mission event', () => {
    expect(new Set(states(missionRunMachine).all)).toEqual(new Set(MISSION_RUN_STATUSES));
    expect(new Set(states(missionRunMachine).final)).toEqual(new Set(FINAL_MISSION_RUN_STATUSES));
    for (const name of FINAL_MISSION_RUN_STATUSES) expect(MISSION_EVENT_NAMES).toContain(name);
  });

  it('names as final exactly the proposal machine’s final states, each a proposal event', () => {
    expect(new Set(states(proposalMachine).all)).toEqual(new Set(PROPOSAL_STATUSES));
    expect(new Set(states(proposalMachine).final)).toEqual(new Set(FINAL_PROPOSAL_STATUSES));
    for (const name of FINAL_PROPOSAL_STATUSES) expect(PROPOSAL_EVENT_NAMES).toContain(name);
  });
});
