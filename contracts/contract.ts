/**
 * The shape of a workflow contract (docs/architecture.md "Contracts"): what the two sides of one
 * long-lived object agree on, declared once in contracts/<object>.ts. The workflow
 * (workflows/<object>.ts) handles the contract's signals and queries and proxies its activity
 * interface; the area's activities object (activities/<area>/activities.ts) `satisfies` that
 * interface; temporal/client.ts starts and signals the workflow from the contract alone
 * (`startOrSignal`, `startIfAbsent`, `signalIfRunning`). A contract imports only
 * @temporalio/workflow (definitions, no workflow API call) and domain types, so it is part of the
 * workflow bundle and of every process alike, and no import circle can run through it.
 *
 * Names are forever: the workflow type, every signal and query name and every activity name are in
 * the histories of running workflows and in tests/workflows/histories/ (docs/workflow-versioning.md).
 */
import type { QueryDefinition, SignalDefinition } from '@temporalio/workflow';

/** A contract's signals, keyed by their names. */
export type SignalSet = Readonly<Record<string, SignalDefinition<any[]>>>;
/** A contract's queries (`waitingFor` is the `waiting_for` query every workflow answers). */
export type QuerySet = Readonly<{ waitingFor: QueryDefinition<string> } & Record<string, QueryDefinition<any, any[]>>>;

/** Type-only key carrying the activity interface on a contract (never present at run time). */
declare const activityInterface: unique symbol;

/** One long-lived object's contract: its workflow type and arguments, signals, queries and activity interface. */
export interface WorkflowContract<
  Args extends object = object,
  S extends SignalSet = SignalSet,
  Q extends QuerySet = QuerySet,
  Acts = unknown,
> {
  /** The workflow type: the name of the workflow function workflows/index.ts exports. */
  readonly workflowType: string;
  /** Prefix of the object ids the workflow runs for (workflow id = object id). */
  readonly idPrefix: string;
  /** The arguments of a new run for object `objectId` (what signalWithStart and the recovery sweeps start). */
  readonly startArgs: (objectId: string) => [Args];
  /**
   * Signals by key (docs/decisions/0075: `update` = the object changed, re-read it; `retry` = an
   * operator fixed a parked step; further keys only for news the object's row does not carry:
   * `deposit`, `linkEnded`, `reconciliation`, `returnFunds`). A signal's wire name is forever: it is
   * the name it was first deployed with (e.g. `update: defineSignal('linkChanged')`).
   */
  readonly signals: S;
  /** Wire names of earlier releases that now mean `update`: the workflow still accepts them; nothing sends them. */
  readonly legacySignals?: SignalSet;
  readonly queries: Q;
  /** Type only: the interface of the activities the workflow calls. */
  readonly [activityInterface]?: Acts;
}

/** The activity interface of contract `C`. */
export type ActivitiesOf<C> = C extends { readonly [activityInterface]?: infer A } ? A : never;

/**
 * Declares a contract whose workflow calls the activities `Acts`:
 * `defineContract<PayoutActivities>()({ workflowType: 'payoutWorkflow', ... })`. Frozen.
 */
export function defineContract<Acts>() {
  return <Args extends object, S extends SignalSet, Q extends QuerySet>(
    c: WorkflowContract<Args, S, Q, Acts>,
  ): WorkflowContract<Args, S, Q, Acts> => Object.freeze(c);
}

/** True when `signal` is one of `contract`'s own signals (same name, same definition). */
export function isSignalOf(contract: WorkflowContract<any, SignalSet, QuerySet, unknown>, signal: SignalDefinition<any[]>): boolean {
  return Object.values(contract.signals).includes(signal);
}
