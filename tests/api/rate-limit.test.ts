/**
 * Per-credential-class rate limiting (spec 8) on the shared PostgreSQL store: the budget is per
 * (class, subject), spans processes (the store is the database), and overflowing it is a
 * `429 rate_limit_error` carrying a Retry-After hint.
 */
import { consume } from '../../api/middleware/rate-limit';
import { errorBody } from '../../api/middleware/errors';
import { DomainError } from '../../domain/errors';
import { resetConfig } from '../../lib/config';
import { db } from '../../lib/db';
import { connectDb } from '../helpers/api';

beforeAll(async () => {
  process.env.RATE_LIMIT_ANONYMOUS = '3';
  process.env.RATE_LIMIT_PUBLIC_TOKEN = '400';
  resetConfig();
  await connectDb();
});

/**
 * The limiter's clock (rate-limiter-flexible and the leases read `Date.now()`) is frozen for each
 * test and moved by hand: a window ends when the test says so, never because a loaded machine was
 * slow. Every other timer (the database pool's, the event loop's) stays real.
 */
let clockMs = Date.parse('2026-09-04T12:00:00.000Z');
beforeEach(() => {
  clockMs += 3_600_000;
  jest.useFakeTimers({
    now: clockMs,
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
});
afterEach(() => {
  jest.useRealTimers();
});

/** Moves the frozen clock `ms` forward. */
function advanceClock(ms: number): void {
  jest.setSystemTime(Date.now() + ms);
}

test('the fourth request in a second is refused with 429 rate_limit_error and Retry-After', async () => {
  const subject = `ip-${Date.now()}`;
  for (let i = 0; i < 3; i++) await consume('anonymous', subject);
  let err: unknown;
  try {
    await consume('anonymous', subject);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(DomainError);
  const d = err as DomainError;
  expect(d.status).toBe(429);
  expect(errorBody(d, 'req_x')).toMatchObject({ error: { type: 'rate_limit_error', code: 'rate_limited', request_id: 'req_x' } });
  expect(Number(d.details?.retry_after_seconds)).toBeGreaterThanOrEqual(1);
  // The budget lives in the shared store, not in this process.
  const rows = await db().query(`SELECT points FROM rate_limits WHERE key = $1`, [`anonymous:${subject}`]);
  expect(rows[0].points).toBeGreaterThanOrEqual(4);
  // Another subject has its own budget.
  await expect(consume('anonymous', `${subject}-other`)).resolves.toBeUndefined();
});

test('the budget refills after its window', async () => {
  const subject = `ip-refill-${Date.now()}`;
  for (let i = 0; i < 3; i++) await consume('anonymous', subject);
  await expect(consume('anonymous', subject)).rejects.toBeInstanceOf(DomainError);
  // One millisecond before the window ends the budget is still spent; at its end it is whole again.
  advanceClock(999);
  await expect(consume('anonymous', subject)).rejects.toBeInstanceOf(DomainError);
  advanceClock(1);
  await expect(consume('anonymous', subject)).resolves.toBeUndefined();
});

test('a high budget is leased in blocks (a twentieth of it): the limit holds exactly with a fraction of the store writes', async () => {
  const subject = `ip-lease-${Date.now()}`;
  // 420 concurrent consumes inside one window (the clock is frozen): leases are single-flight, so
  // this is 21 store round trips.
  const results = await Promise.allSettled(Array.from({ length: 420 }, () => consume('public_token', subject)));
  for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(DomainError);
  const allowed = results.filter((r) => r.status === 'fulfilled').length;
  // Exact: the budget, no more, no less.
  expect({ allowed, refused: 420 - allowed }).toEqual({ allowed: 400, refused: 20 });
  const rows = await db().query(`SELECT points FROM rate_limits WHERE key = $1`, [`public_token:${subject}`]);
  // 20 leases of 20 (400); the 21st lease is refused and given back; then one point per request,
  // each of the 20 refused ones counted by the store: 420.
  expect(Number(rows[0].points)).toBe(420);
});

test('concurrent requests that find the lease spent wait for one refresh instead of each leasing', async () => {
  const subject = `ip-burst-${Date.now()}`;
  // Budget 400/s: leases of 20. 20 concurrent requests need exactly one lease.
  const results = await Promise.allSettled(Array.from({ length: 20 }, () => consume('public_token', subject)));
  expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
  const rows = await db().query(`SELECT points FROM rate_limits WHERE key = $1`, [`public_token:${subject}`]);
  // Before, each of the 20 took a lease of its own (400 points, the whole budget) and a store write.
  expect(rows[0].points).toBe(20);
  // The next 20 (same window) spend one more lease, not 20.
  await Promise.all(Array.from({ length: 20 }, () => consume('public_token', subject)));
  const after = await db().query(`SELECT points FROM rate_limits WHERE key = $1`, [`public_token:${subject}`]);
  expect(after[0].points).toBe(40);
});
