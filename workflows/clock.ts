/**
 * The workflow clock (workflow code only). Inside the Temporal workflow sandbox the global `Date` is
 * Temporal's deterministic clock: it reads the start time of the current workflow task as recorded
 * in the history (and the skipped time under the time-skipping test server), so a replay sees the
 * very same values. It is the TypeScript SDK's workflow time API (@temporalio/workflow, "The safe
 * version of time is `new Date()` and `Date.now()`"). Workflow files read time only through these
 * helpers, so any other `Date.now()` or `Math.random()` in workflow code stands out (ESLint refuses
 * them in workflows/payout.ts).
 */

/** Workflow time, milliseconds since the epoch (deterministic; identical on replay). */
export function workflowNowMs(): number {
  return Date.now();
}

/** Milliseconds from workflow time until `atMs`, at least 1 (a timer of 0 would fire at once). */
export function msUntil(atMs: number): number {
  return Math.max(1, atMs - workflowNowMs());
}

/** ISO 8601 form of an epoch-ms instant (for `waiting_for` answers). */
export function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}
