/**
 * The one convention every workflow follows (workflow code only; bundled by webpack, so it imports
 * only @temporalio/workflow):
 *
 * - Time: only through workflowNowMs / msUntil / isoAt. Inside the workflow sandbox `Date` is
 *   Temporal's deterministic clock (the start time of the current workflow task as recorded in the
 *   history, and the skipped time under the time-skipping test server), so a replay sees the same
 *   values. ESLint refuses `Date.now()`, `new Date()` and `Math.random()` in workflows/ outside
 *   this file.
 * - Activity options: activityOptions() gives the shared retry policy (1 s doubling to 1 min, no
 *   attempt limit) and the error types that are never retried (NON_RETRYABLE_ERROR_TYPES).
 * - Continue-as-new: continueAsNewIfDue() at a safe point of the loop (no signal pending), with
 *   the object id only: every fact lives in PostgreSQL and the next run re-reads it.
 * - Parking: parkForOperator() turns a non-retryable activity failure into a wait for an operator
 *   instead of failing the workflow: the workflow stays running, `waiting_for` answers
 *   `an operator: <type>: <message> ...`, and the workflow's `retry` signal (or any other signal)
 *   runs the step again.
 */
import {
  ActivityFailure, ApplicationFailure, condition, continueAsNew, workflowInfo,
  type ActivityOptions, type RetryPolicy, type Workflow,
} from '@temporalio/workflow';

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

/**
 * Error types activities raise that retrying cannot fix: `ApplicationFailure.nonRetryable` types
 * (`NotFound`: the row is gone; `NoSettlementRoute`: a paid payment has no settlement address;
 * `LinkStateCorrupt`: unusable reminder schedule; `BeneficiaryMissing`: no beneficiary for the
 * payout rail; `WalletMissing`: the service wallet disappeared; `NoRefundAddress`: a cross-network
 * payment owes money back and has no refund route) and `IllegalTransition`, the
 * domain's 409 for a status change its transition table refuses (domain/transitions.ts).
 */
export const NON_RETRYABLE_ERROR_TYPES: readonly string[] = Object.freeze([
  'IllegalTransition', 'NotFound', 'NoSettlementRoute', 'LinkStateCorrupt', 'BeneficiaryMissing', 'WalletMissing', 'NoRefundAddress',
]);

/**
 * Activity options with the shared defaults: 30 s start-to-close; retries 1 s doubling to 1 min
 * with no attempt limit (a database outage only delays the object); NON_RETRYABLE_ERROR_TYPES
 * (plus `retry.nonRetryableErrorTypes`) never retried. `o` overrides timeouts and retry fields.
 */
export function activityOptions(o: { startToCloseTimeout?: ActivityOptions['startToCloseTimeout']; retry?: RetryPolicy } = {}): ActivityOptions {
  return {
    startToCloseTimeout: o.startToCloseTimeout ?? '30 seconds',
    retry: {
      initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute',
      ...o.retry,
      nonRetryableErrorTypes: [...NON_RETRYABLE_ERROR_TYPES, ...(o.retry?.nonRetryableErrorTypes ?? [])],
    },
  };
}

/**
 * History length after which a run continues as new even if the server has not suggested it yet
 * (keeps long-lived objects cheap to replay; the server's suggestion usually comes later).
 */
export const CONTINUE_AS_NEW_AFTER_EVENTS = 2000;

/** True when this run should continue as new (server suggestion or CONTINUE_AS_NEW_AFTER_EVENTS). */
export function continueAsNewDue(): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength > CONTINUE_AS_NEW_AFTER_EVENTS;
}

/**
 * Continues as new with `args` (the object id; the state lives in PostgreSQL) when `safe` (no
 * signal is pending that the new run would not see) and continueAsNewDue(). Never returns then.
 */
export async function continueAsNewIfDue<F extends Workflow>(safe: boolean, ...args: Parameters<F>): Promise<void> {
  if (safe && continueAsNewDue()) await continueAsNew<F>(...args);
}

/** The application failure behind an activity failure that retrying cannot fix, or null. */
export function nonRetryableCause(e: unknown): ApplicationFailure | null {
  if (!(e instanceof ActivityFailure)) return null;
  const c = e.cause;
  return c instanceof ApplicationFailure && (c.nonRetryable || (typeof c.type === 'string' && NON_RETRYABLE_ERROR_TYPES.includes(c.type))) ? c : null;
}

/** The `waiting_for` answer of a workflow parked on `cause`. */
export function operatorWaitingFor(cause: ApplicationFailure): string {
  return `an operator: ${cause.type ?? 'Error'}: ${cause.message} (fix the cause, then send the \`retry\` signal)`;
}

/**
 * Parks the workflow for an operator when `e` is a non-retryable activity failure: sets
 * `waiting_for` through `setWaitingFor(operatorWaitingFor(cause))` and waits until `resumed()`
 * (the workflow's `retry` signal, or any other signal). Rethrows `e` otherwise (the workflow fails
 * as before). The caller then runs the failed step again.
 */
export async function parkForOperator(e: unknown, hooks: { setWaitingFor(s: string): void; resumed(): boolean }): Promise<void> {
  const cause = nonRetryableCause(e);
  if (!cause) throw e;
  hooks.setWaitingFor(operatorWaitingFor(cause));
  await condition(hooks.resumed);
}
