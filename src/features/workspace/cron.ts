/**
 * Syntax check of the cron expression of a `schedule` trigger, so a typo fails at write time rather than
 * silently never firing. The scheduler (src/features/triggers, croner) owns evaluation; this only accepts
 * what it must understand: five fields (minute hour day-of-month month day-of-week), or six with a
 * leading second field, each a comma list of `*`, `n` or `n-m`, optionally `/step`; month and weekday
 * names (`JAN`, `MON`); weekday 7 = Sunday; and the macros
 * `@yearly @annually @monthly @weekly @daily @midnight @hourly`.
 */

interface CronField {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const SECOND: CronField = { name: 'second', min: 0, max: 59 };

const FIELDS: readonly CronField[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  {
    name: 'month',
    min: 1,
    max: 12,
    names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
  },
  { name: 'day of week', min: 0, max: 7, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] },
];

const MACROS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);
const ITEM = /^(\*|[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?)(?:\/(\d+))?$/;

function fieldValue(text: string, field: CronField): number | undefined {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    return n >= field.min && n <= field.max ? n : undefined;
  }
  const index = field.names?.indexOf(text.toUpperCase()) ?? -1;
  if (index < 0) return undefined;
  return field.name === 'month' ? index + 1 : index;
}

function itemError(item: string, field: CronField): string | undefined {
  const match = ITEM.exec(item);
  if (!match) return `"${item}" is not *, a value or a range`;
  const [, base = '', step] = match;
  if (step !== undefined && Number(step) < 1) return `step "/${step}" must be at least 1`;
  if (base === '*') return undefined;
  const [from = '', to] = base.split('-');
  const low = fieldValue(from, field);
  if (low === undefined) return `"${from}" is out of range ${field.min}-${field.max}`;
  if (to === undefined) return undefined;
  const high = fieldValue(to, field);
  if (high === undefined) return `"${to}" is out of range ${field.min}-${field.max}`;
  if (high < low) return `range "${base}" runs backwards`;
  return undefined;
}

/** The longest cron expression r3 accepts (a list of every minute is under 200 characters). */
export const CRON_MAX_LENGTH = 400;

/** Returns why `expression` is not a cron expression r3 accepts, or `undefined` when it is one. */
export function cronError(expression: string): string | undefined {
  if (expression.length > CRON_MAX_LENGTH) {
    return `cron is at most ${CRON_MAX_LENGTH} characters, got ${expression.length}`;
  }
  const trimmed = expression.trim();
  if (MACROS.has(trimmed.toLowerCase())) return undefined;
  const parts = trimmed.split(/\s+/);
  if (parts.length !== FIELDS.length && parts.length !== FIELDS.length + 1) {
    return `cron needs 5 fields (minute hour day-of-month month day-of-week) or 6 (second first), got ${parts.length}`;
  }
  const fields = parts.length === FIELDS.length ? FIELDS : [SECOND, ...FIELDS];
  for (const [index, field] of fields.entries()) {
    for (const item of (parts[index] ?? '').split(',')) {
      const error = itemError(item, field);
      if (error) return `cron ${field.name}: ${error}`;
    }
  }
  return undefined;
}
