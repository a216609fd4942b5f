/**
 * The one convention every workflow follows (workflow code only; bundled by webpack, so it imports
 * only @temporalio/workflow):
 *
 * - Time: only through workflowNowMs / msUntil / isoAt. Inside the workflow sandbox `Date` is
 *   Temporal's deterministic clock (the start time of the current workflow task as recorded in the
 *   history, and the skipped time under the time-skipping test server), so a replay sees the same
 *   values. ESLint refuses `Date.now()`, `new Date()` and `Math.random()` in workflows/ outside
 *   this file.
 * - The loop: runObjectLoop() is the one shape of every workflow (its contract plus one step:
 *   load the object, let an activity decide, wait for a signal or a deadline, repeat).
 * - Activity options: activityOptions(profile, overrides) is the one builder (ACTIVITY_PROFILES
 *   `database` and `provider`) with the error types that are never retried (NON_RETRYABLE_ERROR_TYPES).
 * - Deadlines: an activity deciding by domain/object-clock.ts returns its wake-up in workflow time;
 *   workflow code maps a database deadline with deadlineInWorkflowMs(), nothing else.
 * - Continue-as-new: the loop continues as new when continueAsNewDue() at a safe point (no waking
 *   signal pending, the workflow's safeToContinue()), with the object id (and its clock origin)
 *   only: every fact lives in PostgreSQL and the next run re-reads it.
 * - Parking: parkForOperator() turns a non-retryable activity failure into a wait for an operator
 *   instead of failing the workflow: the workflow stays running, `waiting_for` answers
 *   `an operator: <type>: <message> ...`, and the workflow's `retry` signal (or any other signal)
 *   runs the step again. While parked, the Bool search attribute `Parked` is true.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityInterfaceFor,
  type ActivityOptions,
  type LocalActivityOptions,
  type RetryPolicy,
} from '@temporalio/workflow';
import type { QuerySet, SignalSet, WorkflowContract } from '../contracts/contract';
import { ACCOUNT_KEY, PARKED_KEY } from '../contracts/search-attributes';
import { objectClock } from '../domain/object-clock';

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
  'IllegalTransition',
  'NotFound',
  'NoSettlementRoute',
  'LinkStateCorrupt',
  'BeneficiaryMissing',
  'WalletMissing',
  'NoRefundAddress',
]);

/**
 * The activity profiles (the one activity-options builder every workflow uses):
 * - `database`: activities that only touch PostgreSQL (one short transaction or a read): 30 s
 *   start-to-close (far above a healthy commit; bounds a hung connection), retried 1 s doubling to
 *   1 min with no attempt limit (a database outage only delays the object).
 * - `provider`: activities that call a provider and record its answer: 30 s, retried 2 s doubling to
 *   5 min with no attempt limit and no schedule-to-close (every provider call carries an idempotency
 *   key, so a retry never duplicates money movement, and giving up would strand money in flight).
 */
export const ACTIVITY_PROFILES = Object.freeze({
  database: { startToCloseTimeout: '30 seconds', initialInterval: '1 second', maximumInterval: '1 minute' },
  provider: { startToCloseTimeout: '30 seconds', initialInterval: '2 seconds', maximumInterval: '5 minutes' },
} as const);

/** Overrides of a profile: timeouts, heartbeat and retry fields. */
export interface ActivityOptionOverrides {
  startToCloseTimeout?: ActivityOptions['startToCloseTimeout'];
  heartbeatTimeout?: ActivityOptions['heartbeatTimeout'];
  retry?: RetryPolicy;
}

/**
 * Activity options of `profile` (default `database`; see ACTIVITY_PROFILES): backoff coefficient 2,
 * no attempt limit, NON_RETRYABLE_ERROR_TYPES (plus `o.retry.nonRetryableErrorTypes`) never
 * retried. `o` overrides timeouts, heartbeat and retry fields. The one way workflows build options.
 */
export function activityOptions(
  profile: keyof typeof ACTIVITY_PROFILES | ActivityOptionOverrides = 'database',
  activityOptionOverrides: ActivityOptionOverrides = {},
): ActivityOptions {
  if (typeof profile !== 'string') return activityOptions('database', profile);
  const p = ACTIVITY_PROFILES[profile];
  return {
    startToCloseTimeout: activityOptionOverrides.startToCloseTimeout ?? p.startToCloseTimeout,
    ...(activityOptionOverrides.heartbeatTimeout === undefined ? {} : { heartbeatTimeout: activityOptionOverrides.heartbeatTimeout }),
    retry: {
      initialInterval: p.initialInterval,
      backoffCoefficient: 2,
      maximumInterval: p.maximumInterval,
      ...activityOptionOverrides.retry,
      nonRetryableErrorTypes: [...NON_RETRYABLE_ERROR_TYPES, ...(activityOptionOverrides.retry?.nonRetryableErrorTypes ?? [])],
    },
  };
}

/**
 * The activities of interface `A` whose steps are short PostgreSQL transactions (the `database`
 * profile, `o` overriding it as in activityOptions). With `localSteps` (the start
 * arguments every contract's `startArgs` now gives, and every continue-as-new passes on) they are
 * local activities: the worker holding the workflow task runs them inside it, so a step costs no
 * activity task, no second workflow task and three fewer history events (its result is one
 * marker). Same timeouts, retry policy and non-retryable types as the remote form; a local activity
 * still failing after a minute of in-task retries is retried by a timer in a later task (the SDK's
 * local retry threshold), so a database outage only delays the object, as before. A local step whose
 * workflow task fails before it completes (a worker killed, a signal racing the workflow's
 * completion) runs again: every step is idempotent, as every activity already is.
 *
 * Without `localSteps` (a run started by an earlier build: its recorded arguments lack the field) the
 * steps stay remote activities, so its history replays unchanged (docs/workflow-versioning.md; no
 * patch marker, no search-attribute write). Call it inside the workflow function, once per run. Not
 * for activities that heartbeat or may run for minutes (the webhook drain).
 */
export function proxyDatabaseActivities<A extends object>(
  localSteps: boolean | undefined,
  activityOptionOverrides: ActivityOptionOverrides = {},
): ActivityInterfaceFor<A> {
  const options = activityOptions('database', activityOptionOverrides);
  // The two proxies call the same functions with the same arguments and results; only the local one also takes per-call options.
  return localSteps
    ? (proxyLocalActivities<A>(localActivityOptions(options)) as unknown as ActivityInterfaceFor<A>)
    : proxyActivities<A>(options);
}

/** The local-activity form of remote activity options (same start-to-close timeout and retry policy). */
function localActivityOptions(o: ActivityOptions): LocalActivityOptions {
  return { startToCloseTimeout: o.startToCloseTimeout, retry: o.retry };
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
 * The application failure behind an activity failure that retrying cannot fix, or null. A remote
 * activity's failure arrives as an ActivityFailure with the application failure as its cause; a
 * local activity's (proxyDatabaseActivities) arrives as the application failure itself (this SDK's
 * core resolves a failed local activity with its failure unwrapped). Workflow code never throws an
 * ApplicationFailure of its own, so a bare one came from an activity.
 */
export function nonRetryableCause(error: unknown): ApplicationFailure | null {
  const c = error instanceof ActivityFailure ? error.cause : error instanceof ApplicationFailure ? error : null;
  return c instanceof ApplicationFailure && (c.nonRetryable || (typeof c.type === 'string' && NON_RETRYABLE_ERROR_TYPES.includes(c.type)))
    ? c
    : null;
}

/** The `waiting_for` answer of a workflow parked on `cause`. */
export function operatorWaitingFor(cause: ApplicationFailure): string {
  return `an operator: ${cause.type ?? 'Error'}: ${cause.message} (fix the cause, then send the \`retry\` signal)`;
}

/** Patch id of the `Parked` search attribute upserts (docs/workflow-versioning.md; never reused). */
export const PARKED_PATCH = 'parked-search-attribute';

/**
 * Whether this park marks the workflow `Parked` in visibility: only a workflow started with search
 * attributes (AccountId set at start, TEMPORAL_SEARCH_ATTRIBUTES; Parked is registered beside it),
 * and only past the PARKED_PATCH marker, so a history recorded before the change replays with the
 * same commands.
 */
function marksParked(): boolean {
  return workflowInfo().typedSearchAttributes.get(ACCOUNT_KEY) !== undefined && patched(PARKED_PATCH);
}

/**
 * Parks the workflow for an operator when `e` is a non-retryable activity failure: sets
 * `waiting_for` through `setWaitingFor(operatorWaitingFor(cause))`, upserts search attribute
 * `Parked = true` (when marksParked) and waits until `resumed()` (the workflow's `retry` signal, or
 * any other signal), then upserts `Parked = false`. Rethrows `e` otherwise (the workflow fails as
 * before). The caller then runs the failed step again.
 */
export async function parkForOperator(error: unknown, hooks: { setWaitingFor(s: string): void; resumed(): boolean }): Promise<void> {
  const cause = nonRetryableCause(error);
  if (!cause) throw error;
  hooks.setWaitingFor(operatorWaitingFor(cause));
  const mark = marksParked();
  if (mark) upsertSearchAttributes([{ key: PARKED_KEY, value: true }]);
  await condition(hooks.resumed);
  if (mark) upsertSearchAttributes([{ key: PARKED_KEY, value: false }]);
}

/**
 * What one step of an object's loop decided (runObjectLoop):
 * - `done`: the object needs no more watching; the workflow returns `result`.
 * - `again`: something moved; run the next step at once.
 * - `wait`: sleep until a waking signal (or `until()` when given), or until workflow time `atMs`
 *   (none: no timer, only a signal wakes it); then `after(woke)` may act on the outcome in the same
 *   turn (e.g. expire the object when the deadline passed) and may end the loop.
 */
export type Step<R> =
  | { kind: 'done'; result: R; waitingFor?: string }
  | { kind: 'again' }
  | { kind: 'wait'; waitingFor: string; atMs?: number | null; until?: () => boolean; after?: (woke: boolean) => Promise<Step<R> | void> };

/** The object is finished: return `result` (`waitingFor` default `nothing (completed)`). */
export const done = <R>(result: R, waitingFor?: string): Step<R> => ({ kind: 'done', result, waitingFor });
/** Run the next step at once. */
export const again = <R>(): Step<R> => ({ kind: 'again' });
/** Sleep until a waking signal or workflow time `atMs` (see Step). */
export const waitFor = <R>(
  waitingFor: string,
  callback: { atMs?: number | null; until?: () => boolean; after?: (woke: boolean) => Promise<Step<R> | void> } = {},
): Step<R> => ({ kind: 'wait', waitingFor, ...callback });

/** What a step sees of its loop. */
export interface LoopControl {
  /** True when a waking signal arrived since this step began (a step that would end checks it: the news must be read first). */
  woken(): boolean;
  /** Sets the `waiting_for` answer (what the object waits for or is doing now). */
  setWaitingFor(s: string): void;
}

/** A long-lived object's workflow, declared as its contract plus one step (a new workflow is a state table plus its activities). */
export interface ObjectLoop<R, S extends SignalSet, Q extends QuerySet> {
  contract: WorkflowContract<any, S, Q, unknown>;
  /** The `waiting_for` answer before the first step. */
  initially: string;
  /**
   * Handlers of signals that carry news beyond "re-read the object" (a deposit id, a flag). Every
   * signal of the contract wakes the loop unless its handler returns `false` (e.g. a provider
   * report that must not resume a step parked for an operator).
   */
  on?: { [K in keyof S]?: (...args: any[]) => void | false };
  /** Query handlers besides `waiting_for`. */
  queries?: { [K in Exclude<keyof Q, 'waitingFor'>]?: () => unknown };
  /** One step: load the object, let an activity decide, say what comes next. */
  step(loop: LoopControl): Promise<Step<R>>;
  /** Continues as new with the object's arguments (state lives in PostgreSQL); called only at a safe point when continueAsNewDue(). */
  continueAsNew(): Promise<never>;
  /** Extra condition for a safe point (nothing held in memory the next run would not read), beyond "no waking signal pending". */
  safeToContinue?: () => boolean;
  /** Called when a step fails and the loop parks for an operator (drop cached state so the retry re-reads it). */
  onPark?: () => void;
  /** Park resumes only on a signal that arrives after the failure (default: also on one that arrived during the failed step). */
  resumeOnlyAfterFailure?: boolean;
}

/**
 * The one loop every workflow runs: registers the contract's signals (each wakes
 * the loop; `on` handlers record their payload) and its `waiting_for` query; then repeats: continue
 * as new at a safe point when due, run one `step`, and follow its decision (done, again, or wait for
 * a signal or a deadline in workflow time). A non-retryable activity failure parks the object for an
 * operator (parkForOperator) and the next signal (`retry` after the fix) runs the step again.
 * Deterministic: only workflow APIs; every decision comes from activity results and signals.
 */
export async function runObjectLoop<R, S extends SignalSet, Q extends QuerySet>(objectLoop: ObjectLoop<R, S, Q>): Promise<R> {
  let woken = false;
  let waitingFor = objectLoop.initially;
  for (const [name, def] of Object.entries(objectLoop.contract.signals)) {
    const h = (objectLoop.on as Record<string, ((...a: any[]) => void | false) | undefined> | undefined)?.[name];
    setHandler(def, (...args: any[]) => {
      if (h?.(...args) !== false) woken = true;
    });
  }
  for (const def of Object.values(objectLoop.contract.legacySignals ?? {}))
    setHandler(def, () => {
      woken = true;
    });
  setHandler(objectLoop.contract.queries.waitingFor, () => waitingFor);
  for (const [name, handler] of Object.entries((objectLoop.queries ?? {}) as Record<string, () => unknown>)) {
    setHandler(objectLoop.contract.queries[name], handler);
  }
  const loop: LoopControl = {
    woken: () => woken,
    setWaitingFor: (s) => {
      waitingFor = s;
    },
  };
  for (;;) {
    if (!woken && (objectLoop.safeToContinue?.() ?? true) && continueAsNewDue()) await objectLoop.continueAsNew();
    try {
      woken = false;
      let next: Step<R> | void = await objectLoop.step(loop);
      while (next?.kind === 'wait') {
        const w: Step<R> & { kind: 'wait' } = next;
        waitingFor = w.waitingFor;
        const until: () => boolean = w.until ?? (() => woken);
        const woke: boolean =
          w.atMs === undefined || w.atMs === null ? (await condition(until), true) : await condition(until, msUntil(w.atMs));
        next = w.after ? await w.after(woke) : undefined;
      }
      if (next?.kind === 'done') {
        waitingFor = next.waitingFor ?? 'nothing (completed)';
        return next.result;
      }
    } catch (e) {
      objectLoop.onPark?.();
      if (objectLoop.resumeOnlyAfterFailure) woken = false;
      await parkForOperator(e, { setWaitingFor: loop.setWaitingFor, resumed: () => woken });
    }
  }
}

/**
 * The one mapping of a database deadline onto workflow time (domain/object-clock.ts, the clock the
 * activities judge deadlines by): instant `at` (ISO) of an object created at `createdAt` (ISO), for
 * a workflow whose first run began at `originMs` (carried across continue-as-new). `readAtMs` is
 * the wall clock when an activity read the object: with it a workflow started late (a recovery
 * sweep) still wakes at the real deadline; without it the deadline falls `at - createdAt` after the
 * origin. Equal to the wall clock in production; under time skipping the deadline passes exactly
 * when the skipped time says so. Activities that decide with the object clock return `wakeAtMs`
 * already in workflow time.
 */
export function deadlineInWorkflowMs(options: { originMs: number; createdAt: string; at: string; readAtMs?: number }): number {
  const clock = objectClock({
    workflowNowMs: workflowNowMs(),
    originMs: options.originMs,
    createdAtMs: Date.parse(options.createdAt),
    wallNowMs: options.readAtMs ?? -Infinity,
  });
  return clock.toWorkflowMs(Date.parse(options.at));
}
