/** The inspector: the actor's kind and id, its machine's layout, its transitions, the replay step. */
import { createStore } from '@xstate/store';
import type { Layout } from '../inspect/statechart-layout.js';
import type { ActorTransition } from '../wire.js';

export type { ActorTransition };

export interface InspectorContext {
  kind: string;
  id: string;
  layout: Layout | null;
  transitions: ActorTransition[];
  /** The replay position: how many transitions are applied (the last one by default). */
  step: number;
  /** Follow new transitions (the slider at the end) or stay where the person put it. */
  atEnd: boolean;
  notFound: boolean;
  error: string | null;
}

export const inspectorStore = createStore({
  context: {
    kind: '',
    id: '',
    layout: null,
    transitions: [],
    step: 0,
    atEnd: true,
    notFound: false,
    error: null,
  } as InspectorContext,
  on: {
    opened: (_, event: { kind: string; id: string }) => ({
      kind: event.kind,
      id: event.id,
      layout: null,
      transitions: [],
      step: 0,
      atEnd: true,
      notFound: false,
      error: null,
    }),
    laidOut: (context, event: { layout: Layout }) => ({ ...context, layout: event.layout }),
    transitionsLoaded: (context, event: { transitions: ActorTransition[] }) => ({
      ...context,
      transitions: event.transitions,
      step: context.atEnd ? event.transitions.length : Math.min(context.step, event.transitions.length),
    }),
    stepped: (context, event: { step: number }) => ({
      ...context,
      step: event.step,
      atEnd: event.step >= context.transitions.length,
    }),
    missing: (context) => ({ ...context, notFound: true }),
    failed: (context, event: { error: string }) => ({ ...context, error: event.error }),
  },
});
