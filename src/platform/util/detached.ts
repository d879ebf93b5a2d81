/**
 * An equal string that does not keep alive the text `s` was cut from.
 *
 * V8 represents a slice of 13 or more characters as a view onto its parent string, and a
 * concatenation as a pair of pointers to its parts: a short key cut from a large text keeps the
 * whole text alive for as long as the key lives. Whatever holds strings for long (the in-process
 * stream keeps every message id for the duplicate window) stores this copy: concatenating and
 * cutting again makes V8 copy the characters into a string of their own (about 60 ns for an id).
 */
export function detached(s: string): string {
  return `${s} `.slice(0, -1);
}
