/**
 * One customer's verification (workflow id = the customer id `cus_...`, AccountId; spec 2.8, 4.7):
 * each wake (a link issued, the provider's decision) reads the provider's record and applies it
 * (activities/customers/commands.ts syncCustomerVerification). It ends once the customer is
 * `approved` or `rejected`; a later decision starts it again. While pending it re-reads the
 * provider daily. Signals `update` and `retry`; query `waiting_for`.
 *
 * Deterministic and replay-safe (workflows/convention.ts); the state lives in PostgreSQL.
 */
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import { customerContract, type CustomerActivities, type CustomerWorkflowArgs } from '../contracts/customer';
import { activityOptions, continueAsNewIfDue, parkForOperator } from './convention';

const act = proxyActivities<CustomerActivities>(activityOptions());
const { signals, queries } = customerContract;

/** The contract's definitions under this module's older names (tests import them from here). */
export const customerWaitingForQuery = queries.waitingFor;

const RECHECK_MS = 24 * 60 * 60 * 1000;

/** Follows customer `customerId` until approved or rejected; returns that state. */
export async function customerWorkflow(args: CustomerWorkflowArgs): Promise<string> {
  let wake = false;
  let waitingFor = 'reading the provider';
  setHandler(signals.update, () => { wake = true; });
  setHandler(signals.retry, () => { wake = true; });
  setHandler(queries.waitingFor, () => waitingFor);
  for (;;) {
    wake = false;
    try {
      waitingFor = 'reading the provider';
      const state = await act.syncCustomerVerification(args.customerId);
      if ((state === 'approved' || state === 'rejected') && !wake) { waitingFor = `nothing (${state})`; return state; }
      waitingFor = `the provider's decision (${state}; re-read daily)`;
      await condition(() => wake, RECHECK_MS);
      await continueAsNewIfDue<typeof customerWorkflow>(!wake, args);
    } catch (e) {
      await parkForOperator(e, { setWaitingFor: (s) => { waitingFor = s; }, resumed: () => wake });
    }
  }
}
