/**
 * Transactions that tell one parent actor something, run together: group commit in the application,
 * for transactions that each make their own transitions and then one of a shared parent (parallel
 * child runs reporting to their mission run).
 *
 * A transaction of a key (the parent) that starts while another of the same key is still waiting for
 * its connection joins it instead of starting on its own; the group runs as one transaction, its
 * members' functions one after the other, and closes when its function starts. What the members tell
 * the parent they gather (`ActorTx.gather`), so the parent takes it all in one transition and one
 * write: three sibling reports cost one transaction and one write of the parent instead of three of
 * each, and they no longer hold three connections while they wait for each other on the parent's
 * row.
 *
 * A group that fails (other than the conflicts and serialization failures `transact` retries itself)
 * runs each of its members again in a transaction of its own, so a member's failure is its own.
 */
import type { ActorHost, ActorTx } from './host.js';

interface Member {
  work: (tx: ActorTx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Runs `work` in a transaction, with the others of `key` that start while it waits (see above). */
export type TransactTogether = <T>(key: string, work: (tx: ActorTx) => Promise<T>) => Promise<T>;

/**
 * Group commit over `host`; `around` wraps each transaction (the connection lane its work runs in).
 */
export function transactTogether(
  host: Pick<ActorHost, 'transact'>,
  around: <R>(fn: () => Promise<R>) => Promise<R> = (fn) => fn(),
): TransactTogether {
  const open = new Map<string, Member[]>();

  async function run(key: string, members: Member[]): Promise<void> {
    try {
      const results = await around(() =>
        host.transact(async (tx) => {
          // Closed once it has its connection: later ones start a group of their own.
          if (open.get(key) === members) open.delete(key);
          const done: unknown[] = [];
          for (const member of members) done.push(await member.work(tx));
          return done;
        }),
      );
      for (const [i, member] of members.entries()) member.resolve(results[i]);
    } catch (error) {
      if (open.get(key) === members) open.delete(key);
      if (members.length === 1) {
        members[0]?.reject(error);
        return;
      }
      await Promise.all(
        members.map((member) => around(() => host.transact(member.work)).then(member.resolve, member.reject)),
      );
    }
  }

  return <T>(key: string, work: (tx: ActorTx) => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      const member: Member = { work, resolve: resolve as (value: unknown) => void, reject };
      const group = open.get(key);
      if (group) {
        group.push(member);
        return;
      }
      const members = [member];
      open.set(key, members);
      void run(key, members);
    });
}
