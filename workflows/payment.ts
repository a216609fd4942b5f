/**
 * Payment watching: one workflow per pay-in (workflow id = `pay_...`; spec 2.4, part 3).
 * Applies each observed deposit in order (verdicts exact / underpaid / overpaid / unmatched),
 * on bank rails each inbound credit and bank return through the provider-settled reducer (issue
 * 12), closes the deposit window at `expires_at` while nothing arrived, settles a paid payment to
 * the merchant's settlement address (chain transfer) or bank destination (fiat rail payout, waiting
 * for the rail's report: `providerUpdate` signal or a 15-minute re-read), sends a refunded
 * payment's money back, follows the link ending (cancel / expiry), and ends when nothing is left
 * to watch. A later deposit re-starts it by signalWithStart, so a late deposit to a
 * closed payment still gets its verdict (unmatched `deposit_after_close`) or is recorded for support.
 * Operators see in the UI what it waits for through the `waiting_for` query. A non-retryable
 * activity failure parks the payment for an operator (workflows/convention.ts); the `retry` signal
 * (or a deposit, or the link ending, arriving after the park) runs the step again; a provider
 * report (`providerUpdate`) never does. Continues as new (payment id only) at a wait when the
 * history grows long: the state lives in PostgreSQL.
 */
import { again, deadlineInWorkflowMs, done, proxyDatabaseActivities, runObjectLoop, waitFor, workflowNowMs } from './convention';
import { continueAsNew } from '@temporalio/workflow';
import { paymentContract, type PaymentActivities, type PaymentWorkflowArgs } from '../contracts/payment';

/** How often an in-flight bank settlement payout is re-read when no provider report arrives. */
const SETTLEMENT_POLL_MS = 15 * 60 * 1000;

/** Watches payment `paymentId` until settled or closed; returns its final status. */
export async function paymentWorkflow(args: PaymentWorkflowArgs): Promise<string> {
  const { paymentId } = args;
  // Local activities in runs started with `localSteps` (convention.ts proxyDatabaseActivities): a step is a marker in the workflow task.
  const acts = proxyDatabaseActivities<PaymentActivities>(args.localSteps);
  // When this workflow began (carried across continue-as-new): the origin of the object's clock (domain/object-clock.ts).
  const originMs = args.originMs ?? workflowNowMs();
  const queue: string[] = [];
  let linkEnded = false;
  let providerUpdated = false;
  const enqueue = (id: string) => {
    if (!queue.includes(id)) queue.push(id);
  };

  /** The payment as last read; null: (re)load it first (at start and after a parked step). */
  let state: Awaited<ReturnType<typeof acts.loadPaymentState>> | null = null;
  const load = async () => {
    state = await acts.loadPaymentState(paymentId);
    state.pendingDepositIds.forEach(enqueue);
    return state;
  };

  /** Applies one recorded item: a bank return (`return:<bcr_>`), a bank credit (`bcr_`) or a chain deposit (`dep_`). */
  const applyOne = (id: string) =>
    id.startsWith('return:')
      ? acts.applyBankReturnActivity(paymentId, id.slice('return:'.length))
      : id.startsWith('bcr_')
        ? acts.applyBankCreditActivity(paymentId, id)
        : acts.applyDepositActivity(paymentId, id);
  const arrived = () => queue.length > 0 || linkEnded;

  return runObjectLoop({
    contract: paymentContract,
    initially: 'loading payment',
    on: {
      deposit: ({ depositId }: { depositId: string }) => {
        enqueue(depositId);
      },
      linkEnded: () => {
        linkEnded = true;
      },
      // A provider report never resumes a parked step by itself (a failed payout is re-sent only on the operator's `retry`).
      update: () => {
        providerUpdated = true;
        return false;
      },
    },
    // A safe point: nothing pending in this run that the next one would not read from PostgreSQL.
    safeToContinue: () => queue.length === 0,
    continueAsNew: () => continueAsNew<typeof paymentWorkflow>({ paymentId, originMs, localSteps: true }),
    resumeOnlyAfterFailure: true,
    onPark: () => {
      state = null;
    },
    // One turn: applies what arrived, settles, or waits.
    step: async (loop) => {
      let st = state ?? (await load());
      while (queue.length > 0) {
        const depositId = queue[0];
        loop.setWaitingFor(`applying ${depositId}`);
        const r = await applyOne(depositId);
        queue.shift();
        state = st = r;
        if (r.linkEnded && r.linkId && !r.linkNotified) await acts.notifyLinkWorkflow(r.linkId);
      }
      if (st.needsRefund) {
        loop.setWaitingFor('sending the refund back to the payer');
        state = await acts.submitRefund(paymentId);
        return again();
      }
      if (st.refundPending) {
        providerUpdated = false;
        const r = await acts.syncRefund(paymentId);
        state = r;
        if (!r.refundPending) return again();
        return waitFor('the fiat rail to report the refund payout to the payer', {
          atMs: workflowNowMs() + SETTLEMENT_POLL_MS,
          until: () => providerUpdated,
        });
      }
      if (st.settlementPending) {
        // Cleared before the read: a report arriving while it runs wakes the wait below at once.
        providerUpdated = false;
        const r = await acts.syncBankSettlement(paymentId);
        state = r;
        if (r.linkEnded && r.linkId && !r.linkNotified) await acts.notifyLinkWorkflow(r.linkId);
        if (!r.settlementPending) return again();
        return waitFor("the fiat rail to report the settlement payout to the merchant's bank", {
          atMs: workflowNowMs() + SETTLEMENT_POLL_MS,
          until: () => providerUpdated || arrived(),
        });
      }
      if (st.needsSettlement && st.settlement === 'bank') {
        loop.setWaitingFor("settlement payout to the merchant's bank");
        const r = await acts.submitBankSettlement(paymentId);
        state = r;
        if (r.linkEnded && r.linkId && !r.linkNotified) await acts.notifyLinkWorkflow(r.linkId);
        return again();
      }
      if (st.needsSettlement) {
        loop.setWaitingFor('settlement transfer to the merchant');
        const txHash = await acts.sendSettlement(paymentId);
        const r = await acts.recordSettlement(paymentId, txHash);
        state = r;
        if (r.linkEnded && r.linkId && !r.linkNotified) await acts.notifyLinkWorkflow(r.linkId);
        return again();
      }
      if (st.done) {
        // A provider report or refund request that arrived after the state was read: re-read before ending.
        if (providerUpdated) {
          providerUpdated = false;
          await load();
          return again();
        }
        const final = st.status;
        // Deposits that arrived while closing are recorded (applied as support records) before ending.
        while (queue.length > 0) await applyOne(queue.shift()!);
        return done(final);
      }
      if (linkEnded) {
        linkEnded = false;
        await load();
        return again();
      }
      if (st.status !== 'awaiting') {
        // Underpaid: money is held and the payer may top up until the link ends.
        return waitFor(`a top-up (status ${st.status}) or the link ending`, { until: arrived });
      }
      const expiresAt = deadlineInWorkflowMs({ originMs, createdAt: st.createdAt, at: st.expiresAt, readAtMs: st.readAtMs });
      return waitFor(`a deposit until ${st.expiresAt}`, {
        atMs: expiresAt,
        until: arrived,
        after: async (woke) => {
          if (!woke) state = await acts.expirePaymentActivity(paymentId);
        },
      });
    },
  });
}
