/**
 * The clock a workflow's activity judges deadlines by: deadlines are database
 * timestamps (`expires_at`, `funding_deadline`), while a workflow only knows its own time, which
 * the time-skipping test server moves ahead of the wall clock. The object's "now" is the later of
 * the wall clock and the object's creation time plus the workflow time elapsed since the workflow
 * began (`originMs`, carried across continue-as-new): equal in production, and under time skipping
 * a deadline passes exactly when the skipped time says so, whatever other tests skipped before.
 * Wake-ups are mapped back into workflow time.
 *
 * Pure: no I/O (the wall clock is passed in).
 */

/** `now` (ms, the database's frame) and the mapping of a database instant to workflow time. */
export interface ObjectClock {
  now: number;
  toWorkflowMs(atMs: number): number;
}

/** The object's clock at workflow time `workflowNowMs` (see module comment); without `originMs`, workflow time itself. */
export function objectClock(input: { workflowNowMs: number; originMs?: number; createdAtMs: number; wallNowMs: number }): ObjectClock {
  const now =
    input.originMs === undefined
      ? input.workflowNowMs
      : Math.max(input.wallNowMs, input.createdAtMs + (input.workflowNowMs - input.originMs));
  return { now, toWorkflowMs: (atMs: number) => input.workflowNowMs + (atMs - now) };
}
