/**
 * Fair shares of a pool (run_code's sandbox workers): a queue per owner (an org), at most `perOwner`
 * of an owner's jobs running at once, and the next job taken round-robin across the owners that may
 * start one — so an owner that floods the pool waits behind its own jobs while another owner's job
 * starts at the next free place. An owner's queue holds at most `queuePerOwner` jobs.
 */

/** How the pool is shared. */
export interface FairShare {
  /** Jobs of one owner running at once. */
  perOwner: number;
  /** Jobs of one owner waiting at once; beyond it `push` refuses. */
  queuePerOwner: number;
}

export class FairQueue<Job> {
  /** Waiting jobs by owner; the map's order is the round-robin order (an owner served goes last). */
  private readonly waiting = new Map<string, Job[]>();
  private readonly running = new Map<string, number>();

  constructor(readonly share: FairShare) {}

  /** Queues a job of `owner`; false when the owner's queue is full. */
  push(owner: string, job: Job): boolean {
    const queue = this.waiting.get(owner);
    if (queue && queue.length >= this.share.queuePerOwner) return false;
    if (queue) queue.push(job);
    else this.waiting.set(owner, [job]);
    return true;
  }

  /**
   * The next job that may start, taken from the first owner in round-robin order below its share
   * and accepted by `may` (given what the owner runs and has waiting, this job included); that owner
   * then goes last. The job counts as running until `finished`. Undefined when none may start.
   */
  take(may: (load: { running: number; waiting: number }) => boolean = () => true): Job | undefined {
    for (const [owner, queue] of this.waiting) {
      const running = this.running.get(owner) ?? 0;
      if (running >= this.share.perOwner || !may({ running, waiting: queue.length })) continue;
      const job = queue.shift() as Job;
      this.waiting.delete(owner);
      if (queue.length > 0) this.waiting.set(owner, queue);
      this.running.set(owner, running + 1);
      return job;
    }
    return undefined;
  }

  /** A job `take` gave has ended: its owner may start another. */
  finished(owner: string): void {
    const count = (this.running.get(owner) ?? 0) - 1;
    if (count > 0) this.running.set(owner, count);
    else this.running.delete(owner);
  }

  /** How many waiting jobs could start now, given free places (each owner's share counted). */
  get startable(): number {
    let count = 0;
    for (const [owner, queue] of this.waiting) {
      count += Math.min(queue.length, Math.max(0, this.share.perOwner - (this.running.get(owner) ?? 0)));
    }
    return count;
  }

  /** How many jobs wait, all owners together. */
  get size(): number {
    let count = 0;
    for (const queue of this.waiting.values()) count += queue.length;
    return count;
  }

  /** Removes and answers every waiting job. */
  drain(): Job[] {
    const jobs = [...this.waiting.values()].flat();
    this.waiting.clear();
    return jobs;
  }
}
