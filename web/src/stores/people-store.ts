/** People: who actors are (resolved once per page load) and the org's users (the assignee picker). */
import { createStore } from '@xstate/store';
import type { Person } from '../people/person-label.js';
import type { User } from '../wire.js';

export type { User };

export const peopleStore = createStore({
  context: {
    /** Resolved actors by attribution string. */
    people: {} as Readonly<Record<string, Person>>,
    /** The org's users (null until read). */
    users: null as User[] | null,
  },
  on: {
    resolved: (context, event: { people: Person[] }) => ({
      ...context,
      people: { ...context.people, ...Object.fromEntries(event.people.map((p) => [p.actor, p])) },
    }),
    usersLoaded: (context, event: { users: User[] }) => ({ ...context, users: event.users }),
  },
});
