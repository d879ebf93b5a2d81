/** A person named on a page: their user and token name, the attribution itself on hover. */
import { personLabel } from '../people/person-label.js';
import { peopleStore } from '../stores/people-store.js';
import { useSelector } from '../stores/use-selector.js';

export function PersonName({ actor }: { actor: string }) {
  const person = useSelector(peopleStore, (c) => c.people[actor]);
  return <span title={actor}>{personLabel(actor, person)}</span>;
}
