/**
 * Transactions that tell one parent actor something, run together: group commit in the application,
 * for transactions that each make their own transitions and then one of a shared parent (parallel
 * child runs reporting to their mission run).
 *
 * An item of a key (the parent) that arrives while a transaction of the same key is still waiting for
 * its connection joins it instead of starting one of its own; the group's transaction runs all of its
 * items at once (`run`: several sends written in one statement, `ActorHost.sendMany`) and closes when
 * its function starts. What the items tell the parent they gather (`ActorTx.gather`), so the parent
 * takes it all in one transition and one write: three sibling reports cost one transaction, one write
 * of the children and one of the parent instead of three of each, and no longer hold three
 * connections while they wait for each other on the parent's row.
 *
 * A group that fails (other than the conflicts and serialization failures `transact` retries itself)
 * runs each of its items again in a transaction of its own, so an item's failure is its own.
 */
import type { ActorHost, ActorTx } from './host.js';

interface Member<I, R> {
  item: I;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

/** Runs `item` in a transaction, with the others of `key` that arrive while it waits (see above). */
export type TransactTogether<I, R> = (key: string, item: I) => Promise<R>;

/**
 * Group commit over `host`: `run` makes the transitions of `items` in `tx` and answers each one's
 * outcome, in order; `around` wraps each transaction (the connection lane its work runs in).
 */
export function transactTogether<I, R>(
  host: Pick<ActorHost, 'transact'>,
  run: (tx: ActorTx, items: I[]) => Promise<R[]>,
  around: <T>(fn: () => Promise<T>) => Promise<T> = (fn) => fn(),
): TransactTogether<I, R> {
  const open = new Map<string, Array<Member<I, R>>>();

  const alone = async (item: I): Promise<R> => {
    const [result] = await around(() => host.transact((tx) => run(tx, [item])));
    return result as R;
  };

  async function start(key: string, members: Array<Member<I, R>>): Promise<void> {
    try {
      const results = await around(() =>
        host.transact((tx) => {
          // Closed once it has its connection: later items start a group of their own.
          if (open.get(key) === members) open.delete(key);
          return run(
            tx,
            members.map((m) => m.item),
          );
        }),
      );
      for (const [i, member] of members.entries()) member.resolve(results[i] as R);
    } catch (error) {
      if (open.get(key) === members) open.delete(key);
      if (members.length === 1) {
        members[0]?.reject(error);
        return;
      }
      await Promise.all(members.map((member) => alone(member.item).then(member.resolve, member.reject)));
    }
  }

  return (key, item) =>
    new Promise<R>((resolve, reject) => {
      const member = { item, resolve, reject };
      const group = open.get(key);
      if (group) {
        group.push(member);
        return;
      }
      const members = [member];
      open.set(key, members);
      void start(key, members);
    });
}
