/**
 * Pins the billing calendar's interval arithmetic (domain/subscriptions.ts `addIntervals`,
 * `periodOf`, `periodAt`; issue 26 item 7): months and years keep the anchor's day of month clamped
 * to the target month's last day, and its UTC time of day; days and weeks are fixed lengths. Written
 * against the hand-kept arithmetic before the date library replaced it; `referenceAddIntervals`
 * below is that arithmetic, kept as the oracle of the sweep. Every case also runs with the process
 * again in child processes in time zones with DST and odd offsets: the calendar is UTC and must not
 * see the local zone.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { addIntervals, periodAt, periodOf, type BillingPlan, type SubscriptionInterval } from '../../domain/subscriptions';

const DAY_MS = 86_400_000;
const at = (s: string) => Date.parse(s);
const iso = (ms: number) => new Date(ms).toISOString();

/** The arithmetic as it was hand-kept. */
function referenceAddIntervals(anchorMs: number, interval: SubscriptionInterval, k: number): number {
  if (interval === 'day') return anchorMs + k * DAY_MS;
  if (interval === 'week') return anchorMs + k * 7 * DAY_MS;
  const a = new Date(anchorMs);
  const months = interval === 'month' ? k : 12 * k;
  const total = a.getUTCMonth() + months;
  const y = a.getUTCFullYear() + Math.floor(total / 12);
  const m = ((total % 12) + 12) % 12;
  const d = Math.min(a.getUTCDate(), new Date(Date.UTC(y, m + 1, 0)).getUTCDate());
  return Date.UTC(y, m, d, a.getUTCHours(), a.getUTCMinutes(), a.getUTCSeconds(), a.getUTCMilliseconds());
}

const CASES: Array<[string, SubscriptionInterval, number, string]> = [
  // Jan 31 + months: clamped to the month's last day, back to the 31st when the month has one.
  ['2027-01-31T09:30:00.000Z', 'month', 0, '2027-01-31T09:30:00.000Z'],
  ['2027-01-31T09:30:00.000Z', 'month', 1, '2027-02-28T09:30:00.000Z'],
  ['2027-01-31T09:30:00.000Z', 'month', 2, '2027-03-31T09:30:00.000Z'],
  ['2027-01-31T09:30:00.000Z', 'month', 3, '2027-04-30T09:30:00.000Z'],
  ['2027-01-31T09:30:00.000Z', 'month', 11, '2027-12-31T09:30:00.000Z'],
  ['2027-01-31T09:30:00.000Z', 'month', 12, '2028-01-31T09:30:00.000Z'],
  ['2027-01-31T09:30:00.000Z', 'month', 13, '2028-02-29T09:30:00.000Z'],
  // Leap years: Feb 29 exists in 2028, not in 2100, in 2000.
  ['2028-01-31T00:00:00.000Z', 'month', 1, '2028-02-29T00:00:00.000Z'],
  ['2100-01-31T00:00:00.000Z', 'month', 1, '2100-02-28T00:00:00.000Z'],
  ['2000-01-31T00:00:00.000Z', 'month', 1, '2000-02-29T00:00:00.000Z'],
  ['2028-02-29T12:00:00.000Z', 'year', 1, '2029-02-28T12:00:00.000Z'],
  ['2028-02-29T12:00:00.000Z', 'year', 4, '2032-02-29T12:00:00.000Z'],
  ['2028-02-29T12:00:00.000Z', 'month', 12, '2029-02-28T12:00:00.000Z'],
  ['2028-02-29T12:00:00.000Z', 'month', 1, '2028-03-29T12:00:00.000Z'],
  // Anchors on the 29th, 30th and 31st.
  ['2027-01-29T23:59:59.999Z', 'month', 1, '2027-02-28T23:59:59.999Z'],
  ['2027-01-29T23:59:59.999Z', 'month', 2, '2027-03-29T23:59:59.999Z'],
  ['2027-01-30T00:00:00.001Z', 'month', 1, '2027-02-28T00:00:00.001Z'],
  ['2027-01-30T00:00:00.001Z', 'month', 2, '2027-03-30T00:00:00.001Z'],
  ['2027-03-31T18:45:07.250Z', 'month', 1, '2027-04-30T18:45:07.250Z'],
  ['2027-03-31T18:45:07.250Z', 'month', 3, '2027-06-30T18:45:07.250Z'],
  ['2027-08-31T00:00:00.000Z', 'month', 1, '2027-09-30T00:00:00.000Z'],
  ['2027-05-31T00:00:00.000Z', 'month', 9, '2028-02-29T00:00:00.000Z'],
  // Across year ends, many months, years.
  ['2027-11-15T00:00:00.000Z', 'month', 14, '2029-01-15T00:00:00.000Z'],
  ['2027-12-31T23:00:00.000Z', 'month', 2, '2028-02-29T23:00:00.000Z'],
  ['2027-06-15T06:00:00.000Z', 'month', 120, '2037-06-15T06:00:00.000Z'],
  ['2027-06-15T06:00:00.000Z', 'year', 3, '2030-06-15T06:00:00.000Z'],
  // Around the DST changes of Europe and the US (irrelevant: UTC).
  ['2027-02-28T01:30:00.000Z', 'month', 1, '2027-03-28T01:30:00.000Z'],
  ['2027-03-14T02:30:00.000Z', 'month', 1, '2027-04-14T02:30:00.000Z'],
  ['2027-10-31T01:30:00.000Z', 'month', 1, '2027-11-30T01:30:00.000Z'],
  ['2027-11-07T06:30:00.000Z', 'week', 1, '2027-11-14T06:30:00.000Z'],
  // Days and weeks: fixed lengths.
  ['2027-01-01T00:00:00.000Z', 'week', 2, '2027-01-15T00:00:00.000Z'],
  ['2027-01-01T00:00:00.000Z', 'day', 45, '2027-02-15T00:00:00.000Z'],
  ['2027-01-31T10:00:00.000Z', 'day', 29, '2027-03-01T10:00:00.000Z'],
  ['2028-02-28T10:00:00.000Z', 'day', 1, '2028-02-29T10:00:00.000Z'],
  ['2027-01-31T10:00:00.000Z', 'week', 0, '2027-01-31T10:00:00.000Z'],
  // Backwards (not used by the calendar, pinned all the same).
  ['2027-03-31T00:00:00.000Z', 'month', -1, '2027-02-28T00:00:00.000Z'],
  ['2027-01-15T00:00:00.000Z', 'month', -13, '2025-12-15T00:00:00.000Z'],
];

/** Months and years from every anchor day of 2027-2029 at several times of day (0..40 months, 0..5 years). */
function sweep(add: (anchorMs: number, interval: SubscriptionInterval, k: number) => number): number[] {
  const out: number[] = [];
  for (let day = Date.UTC(2027, 0, 1); day < Date.UTC(2030, 0, 1); day += DAY_MS) {
    for (const t of [0, 1, 5_400_000, 43_200_123, DAY_MS - 1]) {
      for (let k = 0; k <= 40; k += 1) out.push(add(day + t, 'month', k));
      for (let k = 0; k <= 5; k += 1) out.push(add(day + t, 'year', k));
    }
  }
  return out;
}

const digest = (xs: readonly number[]) => createHash('sha256').update(xs.join(',')).digest('hex');

test('the table of cases', () => {
  for (const [anchor, interval, k, expected] of CASES) {
    expect([anchor, interval, k, iso(addIntervals(at(anchor), interval, k))]).toEqual([anchor, interval, k, expected]);
  }
});

test('the sweep equals the hand-kept arithmetic', () => {
  const got = sweep(addIntervals);
  const want = sweep(referenceAddIntervals);
  const firstDiff = got.findIndex((v, i) => v !== want[i]);
  expect(firstDiff === -1 ? null : [firstDiff, iso(got[firstDiff]), iso(want[firstDiff])]).toBeNull();
});

/**
 * The same table and sweep in a fresh Node process whose local time zone is `tz` (jest's sandbox
 * cannot change the zone of its own process): domain/subscriptions.ts is compiled with swc on load.
 */
function inZone(tz: string): { offsetJan: number; offsetJul: number; table: string[]; sweep: string } {
  const child = `
    const fs = require('node:fs');
    const swc = require('@swc/core');
    require.extensions['.ts'] = (m, filename) => {
      const { code } = swc.transformSync(fs.readFileSync(filename, 'utf8'), { filename, jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } });
      m._compile(code, filename);
    };
    const { addIntervals } = require(${JSON.stringify(path.resolve(__dirname, '../../domain/subscriptions.ts'))});
    const input = JSON.parse(fs.readFileSync(0, 'utf8'));
    const sweep = new Function('DAY_MS', 'return ' + input.sweep)(${DAY_MS});
    const iso = (ms) => new Date(ms).toISOString();
    process.stdout.write(JSON.stringify({
      offsetJan: new Date(Date.UTC(2027, 0, 15)).getTimezoneOffset(),
      offsetJul: new Date(Date.UTC(2027, 6, 15)).getTimezoneOffset(),
      table: input.cases.map(([a, i, k]) => iso(addIntervals(Date.parse(a), i, k))),
      sweep: require('node:crypto').createHash('sha256').update(sweep(addIntervals).join(',')).digest('hex'),
    }));`;
  const r = spawnSync(process.execPath, ['-e', child], {
    cwd: path.resolve(__dirname, '../..'),
    env: { ...process.env, TZ: tz },
    input: JSON.stringify({ cases: CASES, sweep: sweep.toString() }),
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`child in ${tz} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

test.each([
  ['America/New_York', 300, 240],
  ['Europe/Berlin', -60, -120],
  ['Australia/Lord_Howe', -660, -630],
  ['Pacific/Chatham', -825, -765],
  ['Asia/Kolkata', -330, -330],
  ['America/St_Johns', 210, 150],
])('the table and the sweep do not depend on the local time zone (%s)', (tz, offsetJan, offsetJul) => {
  const got = inZone(tz);
  expect([got.offsetJan, got.offsetJul]).toEqual([offsetJan, offsetJul]); // the zone did apply
  expect(got.table).toEqual(CASES.map((c) => c[3]));
  expect(got.sweep).toBe(digest(sweep(referenceAddIntervals)));
});

test('periods of a quarterly plan anchored on the 31st, and the period containing an instant', () => {
  const plan: BillingPlan = { anchorMs: at('2027-01-31T00:00:00.000Z'), interval: 'month', intervalCount: 3, cycles: null };
  const starts = Array.from({ length: 9 }, (_, n) => iso(periodOf(plan, n).startMs));
  expect(starts).toEqual([
    '2027-01-31T00:00:00.000Z',
    '2027-04-30T00:00:00.000Z',
    '2027-07-31T00:00:00.000Z',
    '2027-10-31T00:00:00.000Z',
    '2028-01-31T00:00:00.000Z',
    '2028-04-30T00:00:00.000Z',
    '2028-07-31T00:00:00.000Z',
    '2028-10-31T00:00:00.000Z',
    '2029-01-31T00:00:00.000Z',
  ]);
  for (let n = 0; n < 8; n += 1) {
    const { startMs, endMs } = periodOf(plan, n);
    expect(endMs).toBe(periodOf(plan, n + 1).startMs);
    expect(periodAt(plan, startMs)).toBe(n);
    expect(periodAt(plan, endMs - 1)).toBe(n);
  }
  const yearly: BillingPlan = { anchorMs: at('2028-02-29T08:00:00.000Z'), interval: 'year', intervalCount: 1, cycles: 3 };
  expect([0, 1, 2, 3, 4].map((n) => iso(periodOf(yearly, n).startMs))).toEqual([
    '2028-02-29T08:00:00.000Z',
    '2029-02-28T08:00:00.000Z',
    '2030-02-28T08:00:00.000Z',
    '2031-02-28T08:00:00.000Z',
    '2032-02-29T08:00:00.000Z',
  ]);
  expect(periodAt(yearly, at('2031-02-28T07:59:59.999Z'))).toBe(2);
});
