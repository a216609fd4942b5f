/**
 * Payout funding and execution: one workflow per payout (workflow id = `po_...`; spec 2.6, 3, 4.3).
 * Started (signalWithStart `fund`) when `POST /payouts/{id}/funding_instructions` records a funding
 * attempt. It creates the provider transfer (idempotent by the attempt id), waits for USDC at the
 * funding address until the funding window closes (then `expired`), applies deposits
 * (`funds_received`), submits the fiat payment (`processing`), follows the rail (`paid`, then
 * `settled` or `paid_with_shortfall`, or `failed` / `returned`), returns held USDC to the payer,
 * and applies the reconciliation signal (`needs_attention`). While a deposit is held with no return
 * address it waits for one (`missing_return_policy`). Provider state is re-read on every signal and
 * by a slow poll, so a lost notification only delays it.
 * Operators find it by payout id or AccountId and see what it waits for through `waiting_for`.
 */
import { condition, defineQuery, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type * as payouts from '../activities/payouts';

/** Activities that only touch the database. */
const db = proxyActivities<typeof payouts>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Activities that call a provider (bridge, fiat rail): unlimited retries are safe because every
 * provider call carries an idempotency key derived from the attempt id.
 */
const provider = proxyActivities<typeof payouts>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

export const payoutFundSignal = defineSignal('fund');
export const payoutDepositSignal = defineSignal<[{ depositId: string }]>('payoutDeposit');
export const payoutProviderUpdateSignal = defineSignal('providerUpdate');
export const payoutCancelledSignal = defineSignal('cancelled');
export const payoutReconciliationSignal = defineSignal<[{ needsAttention: boolean }]>('reconciliation');
export const payoutWaitingForQuery = defineQuery<string>('waiting_for');

/** How often provider state is re-read while waiting on the rail, in case a notification was lost. */
const PROVIDER_POLL_MS = 60 * 60 * 1000;

/** Runs payout `payoutId` until it ends; returns its final status. */
export async function payoutWorkflow(args: { payoutId: string }): Promise<string> {
  const { payoutId } = args;
  let wake = false;
  let reconciliation: boolean | null = null;
  let waitingFor = 'loading the payout';
  const kick = () => { wake = true; };
  setHandler(payoutFundSignal, kick);
  setHandler(payoutDepositSignal, kick);
  setHandler(payoutProviderUpdateSignal, kick);
  setHandler(payoutCancelledSignal, kick);
  setHandler(payoutReconciliationSignal, ({ needsAttention }) => { reconciliation = needsAttention; wake = true; });
  setHandler(payoutWaitingForQuery, () => waitingFor);

  for (;;) {
    wake = false;
    if (reconciliation !== null) {
      const flag: boolean = reconciliation;
      reconciliation = null;
      waitingFor = 'recording the reconciliation signal';
      await db.setPayoutNeedsAttention(payoutId, flag);
    }
    let st = await db.loadPayoutState(payoutId);
    if (st.pendingDepositIds.length > 0) {
      for (const depositId of st.pendingDepositIds) {
        waitingFor = `applying deposit ${depositId}`;
        st = await db.applyPayoutDeposit(payoutId, depositId);
      }
      continue;
    }
    if (st.needsTransfer) {
      waitingFor = `creating the provider transfer of attempt ${st.attemptId}`;
      await provider.ensureProviderTransfer(payoutId, Date.now());
      continue;
    }
    if (st.held && st.canRefund) {
      waitingFor = 'returning held USDC to the payer';
      await provider.refundHeldFunds(payoutId);
      continue;
    }
    switch (st.status) {
      case 'draft':
        waitingFor = 'a funding confirmation (POST funding_instructions)';
        await condition(() => wake);
        break;
      case 'awaiting_funds': {
        waitingFor = `a deposit of ${st.fundingTarget ?? 'USDC'} until ${new Date(st.expiresAtMs ?? Date.now()).toISOString()}`;
        const ms = Math.max(1, (st.expiresAtMs ?? Date.now()) - Date.now());
        const woke = await condition(() => wake, ms);
        if (!woke) {
          waitingFor = 'expiring the funding window (re-reading the provider transfer)';
          await provider.expirePayout(payoutId);
        }
        break;
      }
      case 'funds_received':
        waitingFor = 'submitting the fiat payment';
        await provider.submitFiatPayment(payoutId);
        break;
      case 'processing':
      case 'paid': {
        waitingFor = 'reading the fiat rail payment';
        const r = await provider.syncRailPayment(payoutId);
        if (r.notify) {
          waitingFor = 'notifying the recipient';
          await provider.notifyPayoutRecipient(payoutId);
        }
        if (r.status !== st.status) break;
        waitingFor = st.status === 'processing'
          ? `the ${st.railPaymentId ?? 'rail'} payment to be paid, fail or be returned`
          : 'the recipient to confirm the amount received (or a return)';
        await condition(() => wake, PROVIDER_POLL_MS);
        break;
      }
      default:
        if (st.held) {
          waitingFor = 'a refund address for held USDC (missing_return_policy)';
          await condition(() => wake);
          break;
        }
        // A signal that arrived while this step ran (e.g. the reconciliation signal) is handled first.
        if (wake || reconciliation !== null) break;
        waitingFor = 'nothing (completed)';
        return st.status;
    }
  }
}
