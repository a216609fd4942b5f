/** The object's clock (domain/object-clock.ts; issue 14): production equals the wall clock; skipped workflow time moves it; wake-ups map back. */
import { objectClock } from '../../domain/object-clock';

test('without an origin: workflow time', () => {
  expect(objectClock({ workflowNowMs: 5_000, createdAtMs: 1_000, wallNowMs: 9_000 }).now).toBe(5_000);
});

test('production: the wall clock (a workflow started late never sees an earlier now)', () => {
  const c = objectClock({ workflowNowMs: 10_000, originMs: 9_000, createdAtMs: 1_000, wallNowMs: 10_000 });
  expect(c.now).toBe(10_000);
  expect(c.toWorkflowMs(70_000)).toBe(70_000);
});

test('time skipping: the workflow clock far ahead of the wall clock counts only the time elapsed since the workflow began', () => {
  // The test server is 3 hours ahead; the object was created 1 s ago and its workflow began then.
  const skewed = 3 * 3600_000;
  const c = objectClock({ workflowNowMs: skewed + 2_000, originMs: skewed + 1_000, createdAtMs: 1_000, wallNowMs: 2_000 });
  expect(c.now).toBe(2_000);
  // A deadline 30 minutes after creation is woken at workflow time origin + 30 min.
  expect(c.toWorkflowMs(1_000 + 1800_000)).toBe(skewed + 1_000 + 1800_000);
  const later = objectClock({ workflowNowMs: skewed + 1_000 + 1800_000, originMs: skewed + 1_000, createdAtMs: 1_000, wallNowMs: 3_000 });
  expect(later.now).toBe(1_000 + 1800_000);
});
