/** Cron schedules as CronJobs take them: fields, names, steps, descriptors, and the next time. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { nextCronTime, parseCronSchedule } from './cron-schedule.js';

const at = (iso: string): number => Date.parse(iso);
const next = (schedule: string, after: string): string | undefined => {
  const t = nextCronTime(parseCronSchedule(schedule), at(after));
  return t === undefined ? undefined : new Date(t).toISOString();
};

describe('cron schedules', () => {
  test('the next time is strictly after, at a whole minute', () => {
    assert.equal(next('* * * * *', '2026-01-01T00:00:00Z'), '2026-01-01T00:01:00.000Z');
    assert.equal(next('* * * * *', '2026-01-01T00:00:30Z'), '2026-01-01T00:01:00.000Z');
    assert.equal(next('*/15 * * * *', '2026-01-01T00:14:59Z'), '2026-01-01T00:15:00.000Z');
    assert.equal(next('30 2 * * *', '2026-01-01T02:30:00Z'), '2026-01-02T02:30:00.000Z');
  });

  test('names, ranges, lists and descriptors', () => {
    assert.equal(next('0 9 * * mon-fri', '2026-01-02T10:00:00Z'), '2026-01-05T09:00:00.000Z', 'Friday after 9 -> Monday');
    assert.equal(next('0 0 1 jan,jul *', '2026-02-01T00:00:00Z'), '2026-07-01T00:00:00.000Z');
    assert.equal(next('@hourly', '2026-01-01T00:00:00Z'), '2026-01-01T01:00:00.000Z');
    assert.equal(next('@weekly', '2026-01-01T00:00:00Z'), '2026-01-04T00:00:00.000Z', 'the next Sunday');
    assert.equal(next('0 0 * * 7', '2026-01-01T00:00:00Z'), '2026-01-04T00:00:00.000Z', '7 is Sunday');
    assert.equal(next('0 0 29 2 *', '2026-03-01T00:00:00Z'), '2028-02-29T00:00:00.000Z', 'the next leap day');
  });

  test('both day fields restricted: either matches, as in cron', () => {
    assert.equal(next('0 0 13 * fri', '2026-01-01T00:00:00Z'), '2026-01-02T00:00:00.000Z', 'Friday the 2nd comes before the 13th');
  });

  test('malformed schedules are refused with the problem named', () => {
    assert.throws(() => parseCronSchedule('* * * *'), /expected exactly 5 fields, found 4/);
    assert.throws(() => parseCronSchedule('60 * * * *'), /"60" is out of range \[0, 59\]/);
    assert.throws(() => parseCronSchedule('*/0 * * * *'), /bad step "0"/);
    assert.throws(() => parseCronSchedule('5-1 * * * *'), /range 5-1 is backwards/);
  });

  test('a schedule that never fires (February 31st) has no next time', () => {
    assert.equal(nextCronTime(parseCronSchedule('0 0 31 2 *'), at('2026-01-01T00:00:00Z')), undefined);
  });
});
