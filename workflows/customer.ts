/**
 * One customer's verification (workflow id = the customer id `cus_...`, AccountId; spec 2.8, 4.7):
 * each wake (a link issued, the provider's decision) reads the provider's record and applies it
 * (activities/customers/commands.ts syncCustomerVerification). It ends once the customer is
 * `approved` or `rejected`; a later decision starts it again. While pending it re-reads the
 * provider daily. Signals `update` and `retry`; query `waiting_for`.
 *
 * Deterministic and replay-safe (workflows/convention.ts); the state lives in PostgreSQL.
 */
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import { customerContract, type CustomerActivities, type CustomerWorkflowArgs } from '../contracts/customer';
import { activityOptions, done, runObjectLoop, waitFor, workflowNowMs } from './convention';

const act = proxyActivities<CustomerActivities>(activityOptions('database'));

const RECHECK_MS = 24 * 60 * 60 * 1000;

/** Follows customer `customerId` until approved or rejected; returns that state. */
export async function customerWorkflow(args: CustomerWorkflowArgs): Promise<string> {
  return runObjectLoop({
    contract: customerContract,
    initially: 'reading the provider',
    continueAsNew: () => continueAsNew<typeof customerWorkflow>(args),
    step: async (loop) => {
      loop.setWaitingFor('reading the provider');
      const state = await act.syncCustomerVerification(args.customerId);
      if ((state === 'approved' || state === 'rejected') && !loop.woken()) return done(state, `nothing (${state})`);
      return waitFor(`the provider's decision (${state}; re-read daily)`, { atMs: workflowNowMs() + RECHECK_MS });
    },
  });
}
