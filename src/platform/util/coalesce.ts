/**
 * A background pass that many wake-ups share: `trigger()` starts the pass, or — while one is
 * running — asks for one more round once it finishes, so a burst of wake-ups costs at most two
 * passes and passes never overlap. The timer scheduler and the outbox relay run on it.
 */
export interface CoalescedRunner {
  trigger(): void;
  /** The pass in progress, if any (await it to stop cleanly). */
  readonly current: Promise<void> | null;
}

export function coalescedRunner(options: {
  /** One round of work. */
  run: () => Promise<void>;
  /** False once the owner stops: no new rounds start. */
  active: () => boolean;
  /** A failed round ends the pass (the next trigger or poll retries). */
  onError: (error: unknown) => void;
  /** Runs once after each pass (e.g. schedule the next poll). */
  after?: () => Promise<void>;
}): CoalescedRunner {
  let current: Promise<void> | null = null;
  let again = false;
  return {
    trigger() {
      if (!options.active()) return;
      if (current) {
        again = true;
        return;
      }
      current = (async () => {
        do {
          again = false;
          try {
            await options.run();
          } catch (error) {
            options.onError(error);
            break;
          }
        } while (again && options.active());
        await options.after?.();
      })().finally(() => {
        current = null;
      });
    },
    get current() {
      return current;
    },
  };
}
