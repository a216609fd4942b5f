/**
 * Cross-network payment watching: one workflow per `crypto_xchain` pay-in (workflow id = `pay_...`;
 * spec 2.4 watcher states, verdicts, part 3). The payer sends USDC on a source network to the
 * bridge's address; the watcher sees it (`source_seen`), advances the bridge (`confirming`) until it
 * delivers on the native chain, applies each delivery by the verdict rules (`delivered` with paid,
 * `matching` `bridge_delivered_less` with underpaid: the payer may top up), settles a paid payment
 * to the merchant, returns money on a closed payment to the refund address (`recovery_required`
 * `payment_closed`, then `recovering`), follows a failed bridge (`bridge_failed`, funds returned) and
 * a window closing with nothing seen (`expired`). Signals are those of contracts/payment.ts
 * (`deposit`, `linkEnded`, `retry`) plus `bridgeUpdate` (the bridge changed the transfer); while the
 * bridge holds funds it is polled every BRIDGE_POLL_MS. A non-retryable failure parks the payment
 * for an operator (workflows/convention.ts); state lives in PostgreSQL (continue-as-new carries the id).
 */
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import { xchainPaymentContract, type XchainPaymentActivities, type XchainPaymentWorkflowArgs } from '../contracts/xchain-payment';
import { activityOptions, continueAsNewIfDue, msUntil, parkForOperator, workflowNowMs } from './convention';

const acts = proxyActivities<XchainPaymentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: activityOptions().retry,
});
const { signals, queries } = xchainPaymentContract;

/** How often a transfer the bridge holds is re-read without a `bridgeUpdate` signal. */
export const BRIDGE_POLL_MS = 60_000;

/** Watches cross-network payment `paymentId` until settled, closed and returned; returns its final status. */
export async function xchainPaymentWorkflow(args: XchainPaymentWorkflowArgs): Promise<string> {
  const { paymentId } = args;
  // When this workflow began (carried across continue-as-new): the deposit deadline is mapped onto workflow time from here (domain/object-clock.ts).
  const originMs = args.originMs ?? workflowNowMs();
  const queue: string[] = [];
  let linkEnded = false;
  let bridgeUpdated = false;
  let woken = false;
  let waitingFor = 'loading payment';
  const enqueue = (id: string) => { if (!queue.includes(id)) queue.push(id); };
  setHandler(signals.deposit, ({ depositId }) => { enqueue(depositId); woken = true; });
  setHandler(signals.linkEnded, () => { linkEnded = true; woken = true; });
  setHandler(signals.bridgeUpdate, () => { bridgeUpdated = true; woken = true; });
  setHandler(signals.retry, () => { woken = true; });
  setHandler(queries.waitingFor, () => waitingFor);

  let state: Awaited<ReturnType<typeof acts.loadXchainState>> | null = null;
  const load = async () => {
    state = await acts.loadXchainState(paymentId);
    state.pendingDepositIds.forEach(enqueue);
    return state;
  };
  const woke = () => queue.length > 0 || linkEnded || bridgeUpdated;

  /** One turn: applies what arrived, moves the bridge, returns or settles money, or waits. True when done. */
  const turn = async (): Promise<boolean> => {
    woken = false;
    let st = state ?? await load();
    while (queue.length > 0) {
      const depositId = queue[0];
      waitingFor = `applying deposit ${depositId}`;
      const r = await acts.applyXchainDeposit(paymentId, depositId);
      queue.shift();
      state = st = r;
      if (r.linkEnded && r.linkId) await acts.notifyLinkWorkflow(r.linkId);
    }
    if (linkEnded) {
      linkEnded = false;
      state = await acts.closeXchainWatcher(paymentId);
      await load();
      return false;
    }
    if (st.needsRecovery) {
      waitingFor = 'returning money on a closed payment to the refund address';
      state = await acts.recoverFunds(paymentId);
      return false;
    }
    if (st.needsSettlement) {
      waitingFor = 'settlement transfer to the merchant';
      const txHash = await acts.sendSettlement(paymentId);
      const r = await acts.recordSettlement(paymentId, txHash);
      if (r.linkEnded && r.linkId) await acts.notifyLinkWorkflow(r.linkId);
      state = await acts.loadXchainState(paymentId);
      return false;
    }
    if (st.done) return true;
    if (st.bridgeActive) {
      bridgeUpdated = false;
      waitingFor = 'the bridge to deliver';
      const r = await acts.advanceBridge(paymentId);
      state = r;
      if (r.bridge === 'delivered') {
        // The delivery arrives as a deposit signal (recorded by the activity); reload picks it up if the signal raced.
        if (!woke()) await condition(woke, 1000);
        if (queue.length === 0) await load();
        return false;
      }
      if (r.bridge === 'failed' || r.bridge === 'idle') return false;
      waitingFor = `the bridge (${r.bridge})`;
      await condition(woke, BRIDGE_POLL_MS);
      return false;
    }
    await continueAsNewIfDue<typeof xchainPaymentWorkflow>(queue.length === 0, { paymentId, originMs });
    if (st.status === 'awaiting' && st.watcherState === 'address_issued') {
      waitingFor = `a deposit on the source network until ${st.expiresAt}`;
      const got = await condition(woke, msUntil(originMs + (Date.parse(st.expiresAt) - Date.parse(st.createdAt))));
      if (!got) state = await acts.expireXchainPayment(paymentId);
    } else {
      waitingFor = `a top-up (status ${st.status}, watcher ${st.watcherState}) or the link ending`;
      await condition(woke);
      bridgeUpdated = false;
    }
    return false;
  };

  for (;;) {
    try {
      if (await turn()) break;
    } catch (e) {
      await parkForOperator(e, { setWaitingFor: (s) => { waitingFor = s; }, resumed: () => woken });
      state = null;
    }
  }
  waitingFor = 'nothing (completed)';
  return state!.status;
}
