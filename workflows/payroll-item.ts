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
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import { payrollItemContract, type PayrollItemActivities, type PayrollItemWorkflowArgs } from '../contracts/payroll-item';
import { activityOptions, parkForOperator } from './convention';

/**
 * Activities that call a provider and record its answer: 30 s; retried 2 s doubling to 5 min with
 * no limit (giving up would strand a payment in flight; the idempotency key makes retries safe).
 */
const provider = proxyActivities<PayrollItemActivities>(activityOptions({
  retry: { initialInterval: '2 seconds', maximumInterval: '5 minutes' },
}));
const { signals, queries } = payrollItemContract;

/** How long a processing payment waits between provider re-reads when no notification comes. */
const PROCESSING_POLL_MS = 60 * 60 * 1000;

/** Pays item `itemId` (at most once) and follows it until paid, failed or returned; returns that status. */
export async function payrollItemWorkflow(args: PayrollItemWorkflowArgs): Promise<string> {
  const { itemId } = args;
  let wake = false;
  let waitingFor = 'loading the item';
  setHandler(signals.update, () => { wake = true; });
  setHandler(signals.retry, () => { wake = true; });
  setHandler(queries.waitingFor, () => waitingFor);

  for (;;) {
    wake = false;
    try {
      waitingFor = 'submitting the payment (idempotent by the attempt key)';
      const st = await provider.payPayrollItem(itemId);
      if (st === 'pending' || st === 'queued') continue;
      waitingFor = 'reading the payment from its provider';
      const now = await provider.syncPayrollItem(itemId);
      if (now === 'processing') {
        waitingFor = 'the rail to pay, fail or return the payment';
        await condition(() => wake, PROCESSING_POLL_MS);
        continue;
      }
      waitingFor = `nothing (${now})`;
      return now;
    } catch (e) {
      await parkForOperator(e, { setWaitingFor: (s) => { waitingFor = s; }, resumed: () => wake });
    }
  }
}
