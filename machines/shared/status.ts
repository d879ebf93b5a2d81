/**
 * The status of a snapshot: its top-level state name (the key of a compound state's value, e.g.
 * `running` of `{running: 'awaitingModel'}`). Transient states (`starting`, `advancing`,
 * `routing`) are left within the same macrostep, so a snapshot the host holds is never in one; a
 * value outside `statuses` is a programming error, hence a throw rather than a 409.
 */
export function statusOf<S extends string>(value: unknown, statuses: readonly S[], kind: string): S {
  const top =
    value !== null && typeof value === 'object' && Object.keys(value).length === 1
      ? Object.keys(value)[0]
      : value;
  const found = statuses.find((status) => status === top);
  if (found === undefined) {
    throw new Error(`${kind}: snapshot value ${JSON.stringify(value)} is not a status`);
  }
  return found;
}
