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
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import { xchainPaymentContract, type XchainPaymentActivities, type XchainPaymentWorkflowArgs } from '../contracts/xchain-payment';
import { activityOptions, again, deadlineInWorkflowMs, done, runObjectLoop, waitFor, workflowNowMs } from './convention';

const acts = proxyActivities<XchainPaymentActivities>(activityOptions('database'));

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
  const enqueue = (id: string) => {
    if (!queue.includes(id)) queue.push(id);
  };

  let state: Awaited<ReturnType<typeof acts.loadXchainState>> | null = null;
  const load = async () => {
    state = await acts.loadXchainState(paymentId);
    state.pendingDepositIds.forEach(enqueue);
    return state;
  };
  const woke = () => queue.length > 0 || linkEnded || bridgeUpdated;

  return runObjectLoop({
    contract: xchainPaymentContract,
    initially: 'loading payment',
    on: {
      deposit: ({ depositId }: { depositId: string }) => {
        enqueue(depositId);
      },
      linkEnded: () => {
        linkEnded = true;
      },
      update: () => {
        bridgeUpdated = true;
      },
    },
    safeToContinue: () => queue.length === 0,
    continueAsNew: () => continueAsNew<typeof xchainPaymentWorkflow>({ paymentId, originMs }),
    onPark: () => {
      state = null;
    },
    // One turn: applies what arrived, moves the bridge, returns or settles money, or waits.
    step: async (loop) => {
      let st = state ?? (await load());
      while (queue.length > 0) {
        const depositId = queue[0];
        loop.setWaitingFor(`applying deposit ${depositId}`);
        const r = await acts.applyXchainDeposit(paymentId, depositId);
        queue.shift();
        state = st = r;
        if (r.linkEnded && r.linkId && !r.linkNotified) await acts.notifyLinkWorkflow(r.linkId);
      }
      if (linkEnded) {
        linkEnded = false;
        state = await acts.closeXchainWatcher(paymentId);
        await load();
        return again();
      }
      if (st.needsRecovery) {
        loop.setWaitingFor('returning money on a closed payment to the refund address');
        state = await acts.recoverFunds(paymentId);
        return again();
      }
      if (st.needsSettlement) {
        loop.setWaitingFor('settlement transfer to the merchant');
        const txHash = await acts.sendSettlement(paymentId);
        const r = await acts.recordSettlement(paymentId, txHash);
        if (r.linkEnded && r.linkId && !r.linkNotified) await acts.notifyLinkWorkflow(r.linkId);
        state = await acts.loadXchainState(paymentId);
        return again();
      }
      if (st.done) return done(st.status);
      if (st.bridgeActive) {
        bridgeUpdated = false;
        loop.setWaitingFor('the bridge to deliver');
        const r = await acts.advanceBridge(paymentId);
        state = r;
        if (r.bridge === 'delivered') {
          // The delivery arrives as a deposit signal (recorded by the activity); reload picks it up if the signal raced.
          const reload = async () => {
            if (queue.length === 0) await load();
          };
          if (woke()) {
            await reload();
            return again();
          }
          return waitFor('the bridge to deliver', { atMs: workflowNowMs() + 1000, until: woke, after: reload });
        }
        if (r.bridge === 'failed' || r.bridge === 'idle') return again();
        return waitFor(`the bridge (${r.bridge})`, { atMs: workflowNowMs() + BRIDGE_POLL_MS, until: woke });
      }
      if (st.status === 'awaiting' && st.watcherState === 'address_issued') {
        return waitFor(`a deposit on the source network until ${st.expiresAt}`, {
          atMs: deadlineInWorkflowMs({ originMs, createdAt: st.createdAt, at: st.expiresAt }),
          until: woke,
          after: async (got) => {
            if (!got) state = await acts.expireXchainPayment(paymentId);
          },
        });
      }
      return waitFor(`a top-up (status ${st.status}, watcher ${st.watcherState}) or the link ending`, {
        until: woke,
        after: async () => {
          bridgeUpdated = false;
        },
      });
    },
  });
}
