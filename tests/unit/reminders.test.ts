import { DomainError } from '../../domain/errors';
import {
  DEFAULT_REMINDER_OFFSETS_DAYS,
  defaultReminderSchedule,
  nextReminderAt,
  reminderDueTimes,
  ReminderSchedule,
  validateOffsets,
} from '../../domain/reminders';

const ANCHOR = '2026-09-04T10:00:00.000Z';

describe('defaults', () => {
  it('3, 7, 14 days, on, nothing sent', () => {
    expect(DEFAULT_REMINDER_OFFSETS_DAYS).toEqual([3, 7, 14]);
    expect(defaultReminderSchedule()).toEqual({ status: 'on', offsets_days: [3, 7, 14], sent: [] });
    const a = defaultReminderSchedule();
    a.offsets_days.push(99);
    expect(DEFAULT_REMINDER_OFFSETS_DAYS).toEqual([3, 7, 14]);
  });
});

describe('validateOffsets', () => {
  it('returns a sorted copy', () => {
    const input = [14, 3, 7];
    expect(validateOffsets(input)).toEqual([3, 7, 14]);
    expect(input).toEqual([14, 3, 7]);
    expect(validateOffsets([1])).toEqual([1]);
    expect(validateOffsets([365, 1])).toEqual([1, 365]);
    expect(validateOffsets([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).toHaveLength(10);
  });

  it.each([
    [[]],
    [[0]],
    [[366]],
    [[-1]],
    [[1.5]],
    [['3']],
    [[3, 3]],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]],
    [null],
    [undefined],
    ['3,7'],
    [{ 0: 3 }],
    [[Number.NaN]],
    [[null]],
  ])('rejects %p with invalid_request param offsets_days', (v) => {
    try {
      validateOffsets(v);
      throw new Error('should have thrown');
    } catch (e) {
      expect(e).toBeInstanceOf(DomainError);
      const d = e as DomainError;
      expect([d.type, d.code, d.param, d.status]).toEqual(['invalid_request', 'invalid_request', 'offsets_days', 400]);
    }
  });
});

describe('reminderDueTimes', () => {
  it('adds whole UTC days to the anchor, ascending', () => {
    expect(reminderDueTimes(ANCHOR, [7, 3])).toEqual(['2026-09-07T10:00:00.000Z', '2026-09-11T10:00:00.000Z']);
  });
  it('ignores DST: always 24-hour days', () => {
    expect(reminderDueTimes('2026-10-24T12:00:00+02:00', [1])).toEqual(['2026-10-25T10:00:00.000Z']);
  });
  it('throws RangeError on a bad anchor', () => {
    expect(() => reminderDueTimes('not a date', [1])).toThrow(RangeError);
  });
});

describe('nextReminderAt (spec 2.3)', () => {
  const sched = (over: Partial<ReminderSchedule> = {}): ReminderSchedule => ({ status: 'on', offsets_days: [3, 7, 14], sent: [], ...over });

  it('first unsent offset', () => {
    expect(nextReminderAt(ANCHOR, sched())).toBe('2026-09-07T10:00:00.000Z');
    expect(nextReminderAt(ANCHOR, sched({ sent: ['2026-09-07T10:00:01.000Z'] }))).toBe('2026-09-11T10:00:00.000Z');
    expect(nextReminderAt(ANCHOR, sched({ sent: ['a', 'b'] }))).toBe('2026-09-18T10:00:00.000Z');
  });

  it('null when off, not activated, or all sent', () => {
    expect(nextReminderAt(ANCHOR, sched({ status: 'off' }))).toBeNull();
    expect(nextReminderAt(null, sched())).toBeNull();
    expect(nextReminderAt(ANCHOR, sched({ sent: ['a', 'b', 'c'] }))).toBeNull();
    expect(nextReminderAt(ANCHOR, sched({ offsets_days: [3], sent: ['a', 'b'] }))).toBeNull();
  });

  it('uses offsets in ascending order even if stored unsorted', () => {
    expect(nextReminderAt(ANCHOR, sched({ offsets_days: [14, 3] }))).toBe('2026-09-07T10:00:00.000Z');
  });

  it('may return a time in the past relative to the anchor + sent history', () => {
    expect(nextReminderAt('2020-01-01T00:00:00Z', sched())).toBe('2020-01-04T00:00:00.000Z');
  });

  it('throws RangeError on a bad anchor', () => {
    expect(() => nextReminderAt('2026-99-99', sched())).toThrow(RangeError);
  });
});
