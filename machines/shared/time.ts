/**
 * Time arithmetic on ISO strings. Machines never read the clock: every instant comes from an event's
 * `at` (or the input's), so replaying the same events gives the same snapshot.
 */

/** `at` plus `ms` milliseconds, as an ISO UTC string. */
export function addMs(at: string, ms: number): string {
  return new Date(Date.parse(at) + ms).toISOString();
}

/** Whether instant `a` is strictly after instant `b` (both ISO strings). */
export function isAfter(a: string, b: string): boolean {
  return Date.parse(a) > Date.parse(b);
}

/** Whether two ISO strings name the same instant (`…00Z` and `…00.000Z` do). */
export function isSameInstant(a: string, b: string): boolean {
  return Date.parse(a) === Date.parse(b);
}
