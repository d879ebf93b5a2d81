/**
 * Reading people: who actors are (`GET /api/v1/people`, 100 at a time, each actor once per page
 * load) and the org's users (`GET /api/v1/users`, every page, once).
 */
import { api } from '../api.js';
import { peopleStore, type User } from '../stores/people-store.js';
import type { Person } from './person-label.js';

/** Actors asked for already (answered or on the way). */
const asked = new Set<string>();

/** Resolves the actors of `actors` not resolved yet (failures leave them as they read). */
export async function namePeople(actors: ReadonlyArray<string | null | undefined>): Promise<void> {
  const fresh = [...new Set(actors)].filter((a): a is string => !!a && !asked.has(a));
  for (const actor of fresh) asked.add(actor);
  for (let at = 0; at < fresh.length; at += 100) {
    const batch = fresh.slice(at, at + 100);
    const query = batch.map((a) => `actor=${encodeURIComponent(a)}`).join('&');
    try {
      const { people } = await api<{ people: Person[] }>('GET', `/people?${query}`);
      peopleStore.trigger.resolved({ people });
    } catch {
      for (const actor of batch) asked.delete(actor);
    }
  }
}

let users: Promise<void> | null = null;

/** Reads the org's users once (at most 1,000). */
export function loadUsers(): Promise<void> {
  users ??= (async () => {
    const all: User[] = [];
    let cursor: string | null = null;
    do {
      const page: { users: User[]; nextCursor: string | null } = await api(
        'GET',
        `/users?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      all.push(...page.users);
      cursor = page.nextCursor;
    } while (cursor && all.length < 1_000);
    peopleStore.trigger.usersLoaded({ users: all });
  })().catch(() => {
    users = null;
  });
  return users;
}
