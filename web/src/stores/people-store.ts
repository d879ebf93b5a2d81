/** People: who actors are (resolved once per page load) and the org's users (the assignee picker). */
import { createStore } from '@xstate/store';
import type { Person } from '../people/person-label.js';

/** A user of the org, as `GET /api/v1/users` lists it. */
export interface User {
  id: string;
  role: string;
  createdAt: string;
}

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
