/**
 * Payment of one payroll item: one workflow per item (workflow id = the item id `pri_...`; spec
 * 2.7, 4.4), a child of its run's workflow during an execution, findable by the item id in the
 * Temporal UI. It submits the item's payment (bank destinations through the fiat rail adapter,
 * wallet destinations in USDC on chain) under the provider idempotency key of the item's current
 * attempt (`<item id>:<attempt no>`), then re-reads the provider once the payment is accepted. A
 * retried activity, a crashed worker or an operator's reset of this workflow re-submits under the
 * same key, so an item is never paid twice. Started again (signalWithStart `update`) when the rail
 * later reports a return of a paid item.
 *
 * Deterministic and replay-safe (workflows/convention.ts); the state lives in PostgreSQL.
 */
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import { payrollItemContract, type PayrollItemActivities, type PayrollItemWorkflowArgs } from '../contracts/payroll-item';
import { activityOptions, again, done, runObjectLoop, waitFor, workflowNowMs } from './convention';

/** Activities that call a provider and record its answer: the `provider` profile (the attempt key makes retries safe). */
const provider = proxyActivities<PayrollItemActivities>(activityOptions('provider'));

/** How long a processing payment waits between provider re-reads when no notification comes. */
const PROCESSING_POLL_MS = 60 * 60 * 1000;

/**
 * Pays item `itemId` (at most once) and follows it until paid, failed or returned; returns that
 * status. Continues as new (the item id only) when its hourly re-reads grow the history.
 */
export async function payrollItemWorkflow(args: PayrollItemWorkflowArgs): Promise<string> {
  const { itemId } = args;
  return runObjectLoop({
    contract: payrollItemContract,
    initially: 'loading the item',
    continueAsNew: () => continueAsNew<typeof payrollItemWorkflow>(args),
    step: async (loop) => {
      loop.setWaitingFor('submitting the payment (idempotent by the attempt key)');
      const st = await provider.payPayrollItem(itemId);
      if (st === 'pending' || st === 'queued') return again();
      loop.setWaitingFor('reading the payment from its provider');
      const now = await provider.syncPayrollItem(itemId);
      if (now === 'processing')
        return waitFor('the rail to pay, fail or return the payment', { atMs: workflowNowMs() + PROCESSING_POLL_MS });
      return done(now, `nothing (${now})`);
    },
  });
}
