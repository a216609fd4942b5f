/**
 * Payment watching: one workflow per pay-in (workflow id = `pay_...`; spec 2.4, part 3).
 * Applies each observed deposit in order (verdicts exact / underpaid / overpaid / unmatched),
 * closes the deposit window at `expires_at` while nothing arrived, settles a paid payment to the
 * merchant's settlement address, follows the link ending (cancel / expiry), and ends when nothing
 * is left to watch. A later deposit re-starts it by signalWithStart, so a late deposit to a
 * closed payment still gets its verdict (unmatched `deposit_after_close`) or is recorded for support.
 * Operators see in the UI what it waits for through the `waiting_for` query.
 */
import { condition, defineQuery, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { PaymentWorkflowActivities } from '../activities/payments/activities';

const acts = proxyActivities<PaymentWorkflowActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export const depositSignal = defineSignal<[{ depositId: string }]>('deposit');
export const linkEndedSignal = defineSignal<[{ reason: string }]>('linkEnded');
export const waitingForQuery = defineQuery<string>('waiting_for');

/** Watches payment `paymentId` until settled or closed; returns its final status. */
export async function paymentWorkflow(args: { paymentId: string }): Promise<string> {
  const { paymentId } = args;
  const queue: string[] = [];
  let linkEnded = false;
  let waitingFor = 'loading payment';
  const enqueue = (id: string) => { if (!queue.includes(id)) queue.push(id); };
  setHandler(depositSignal, ({ depositId }) => enqueue(depositId));
  setHandler(linkEndedSignal, () => { linkEnded = true; });
  setHandler(waitingForQuery, () => waitingFor);

  let state = await acts.loadPaymentState(paymentId);
  state.pendingDepositIds.forEach(enqueue);
  for (;;) {
    while (queue.length > 0) {
      const depositId = queue.shift()!;
      waitingFor = `applying deposit ${depositId}`;
      const r = await acts.applyDepositActivity(paymentId, depositId);
      state = r;
      if (r.linkEnded && r.linkId) await acts.notifyLinkWorkflow(r.linkId);
    }
    if (state.needsSettlement) {
      waitingFor = 'settlement transfer to the merchant';
      const txHash = await acts.sendSettlement(paymentId);
      const r = await acts.recordSettlement(paymentId, txHash);
      state = r;
      if (r.linkEnded && r.linkId) await acts.notifyLinkWorkflow(r.linkId);
      continue;
    }
    if (state.done) break;
    if (linkEnded) {
      linkEnded = false;
      state = await acts.loadPaymentState(paymentId);
      state.pendingDepositIds.forEach(enqueue);
      continue;
    }
    if (state.status === 'awaiting') {
      waitingFor = `a deposit until ${state.expiresAt}`;
      const msLeft = Math.max(1, Date.parse(state.expiresAt) - Date.now());
      const woke = await condition(() => queue.length > 0 || linkEnded, msLeft);
      if (!woke) state = await acts.expirePaymentActivity(paymentId);
    } else {
      // Underpaid: money is held and the payer may top up until the link ends.
      waitingFor = `a top-up (status ${state.status}) or the link ending`;
      await condition(() => queue.length > 0 || linkEnded);
    }
  }
  // Deposits that arrived while closing are recorded (applied as support records) before ending.
  while (queue.length > 0) await acts.applyDepositActivity(paymentId, queue.shift()!);
  waitingFor = 'nothing (completed)';
  return state.status;
}
