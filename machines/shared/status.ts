/**
 * The status of a snapshot: its top-level state name. Transient states (`starting`, `advancing`,
 * `routing`) are left within the same macrostep, so a snapshot the host holds is never in one; a
 * value outside `statuses` is a programming error, hence a throw rather than a 409.
 */
export function statusOf<S extends string>(value: unknown, statuses: readonly S[], kind: string): S {
  const found = statuses.find((status) => status === value);
  if (found === undefined) {
    throw new Error(`${kind}: snapshot value ${JSON.stringify(value)} is not a status`);
  }
  return found;
}
