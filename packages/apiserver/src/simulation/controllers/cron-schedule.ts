/**
 * Standard cron schedules, as CronJobs take them (robfig/cron's standard parser): five fields
 * (minute, hour, day of month, month, day of week) with `*`, `?`, lists, ranges, steps and month
 * and weekday names, or a descriptor (`@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`,
 * `@midnight`, `@hourly`). Times are UTC: a `timeZone` other than UTC is refused by the caller. As
 * in cron, when both day fields are restricted a day matching either runs.
 */

/** A parsed schedule. */
export interface CronSchedule {
  readonly minutes: ReadonlySet<number>;
  readonly hours: ReadonlySet<number>;
  readonly daysOfMonth: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  readonly daysOfWeek: ReadonlySet<number>;
  readonly dayOfMonthRestricted: boolean;
  readonly dayOfWeekRestricted: boolean;
}

const descriptors: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const monthNames = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const dayNames = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/** Parses a schedule; throws an Error naming the problem. */
export function parseCronSchedule(text: string): CronSchedule {
  const expanded = descriptors[text.trim().toLowerCase()] ?? text;
  const fields = expanded.trim().split(/\s+/);
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: ${text}`);
  const [minute, hour, dayOfMonth, month, dayOfWeek] = fields as [string, string, string, string, string];
  const daysOfWeek = parseField(dayOfWeek, 0, 7, dayNames);
  // 7 is Sunday too.
  if (daysOfWeek.has(7)) daysOfWeek.add(0);
  return {
    minutes: parseField(minute, 0, 59),
    hours: parseField(hour, 0, 23),
    daysOfMonth: parseField(dayOfMonth, 1, 31),
    months: parseField(month, 1, 12, monthNames, 1),
    daysOfWeek,
    dayOfMonthRestricted: !isWildcard(dayOfMonth),
    dayOfWeekRestricted: !isWildcard(dayOfWeek),
  };
}

/** The first time strictly after `afterMs` (epoch ms) that `schedule` fires, at a whole minute; undefined if none within 5 years. */
export function nextCronTime(schedule: CronSchedule, afterMs: number): number | undefined {
  const t = new Date(Math.floor(afterMs / 60_000) * 60_000 + 60_000);
  const limit = afterMs + 5 * 366 * 86_400_000;
  while (t.getTime() <= limit) {
    if (!schedule.months.has(t.getUTCMonth() + 1)) {
      t.setUTCMonth(t.getUTCMonth() + 1, 1);
      t.setUTCHours(0, 0, 0, 0);
      continue;
    }
    if (!dayMatches(schedule, t)) {
      t.setUTCDate(t.getUTCDate() + 1);
      t.setUTCHours(0, 0, 0, 0);
      continue;
    }
    if (!schedule.hours.has(t.getUTCHours())) {
      t.setUTCHours(t.getUTCHours() + 1, 0, 0, 0);
      continue;
    }
    if (!schedule.minutes.has(t.getUTCMinutes())) {
      t.setUTCMinutes(t.getUTCMinutes() + 1, 0, 0);
      continue;
    }
    return t.getTime();
  }
  return undefined;
}

function dayMatches(schedule: CronSchedule, t: Date): boolean {
  const byMonthDay = schedule.daysOfMonth.has(t.getUTCDate());
  const byWeekDay = schedule.daysOfWeek.has(t.getUTCDay());
  if (schedule.dayOfMonthRestricted && schedule.dayOfWeekRestricted) return byMonthDay || byWeekDay;
  return byMonthDay && byWeekDay;
}

function isWildcard(field: string): boolean {
  return field === '*' || field === '?';
}

function parseField(field: string, min: number, max: number, names: readonly string[] = [], nameBase = 0): Set<number> {
  const values = new Set<number>();
  const value = (text: string): number => {
    const named = names.indexOf(text.toLowerCase());
    const n = named >= 0 ? named + nameBase : /^\d+$/.test(text) ? Number(text) : NaN;
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${JSON.stringify(text)} is out of range [${min}, ${max}] in ${JSON.stringify(field)}`);
    return n;
  };
  for (const part of field.split(',')) {
    const [range = '', stepText] = part.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1) throw new Error(`bad step ${JSON.stringify(stepText)} in ${JSON.stringify(field)}`);
    let low: number;
    let high: number;
    if (isWildcard(range)) {
      low = min;
      high = max;
    } else if (range.includes('-')) {
      const [from = '', to = ''] = range.split('-');
      low = value(from);
      high = value(to);
      if (low > high) throw new Error(`range ${range} is backwards in ${JSON.stringify(field)}`);
    } else {
      low = value(range);
      high = stepText === undefined ? low : max;
    }
    for (let n = low; n <= high; n += step) values.add(n);
  }
  return values;
}
