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
 *
 * Deterministic and replay-safe: every decision comes from activity results, signals and the
 * workflow clock (workflows/convention.ts); no I/O, randomness or wall-clock reads here. All state lives
 * in PostgreSQL, so the loop re-reads it each turn and may continue-as-new at any turn.
 */
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import { payoutContract, type PayoutActivities, type PayoutWorkflowArgs } from '../contracts/payout';
import { activityOptions, continueAsNewIfDue, isoAt, msUntil, NON_RETRYABLE_ERROR_TYPES, parkForOperator, workflowNowMs } from './convention';

/**
 * Error types the payout activities raise with ApplicationFailure.nonRetryable (data an operator
 * must fix: the payout row is gone, no beneficiary for the rail, the service wallet disappeared):
 * the shared list of workflows/convention.ts. Retrying cannot help, so the workflow parks the
 * payout for an operator instead of failing.
 */
export const PAYOUT_NON_RETRYABLE = NON_RETRYABLE_ERROR_TYPES;

/**
 * Activities that only touch the database (one short transaction or a read). 30 s start-to-close
 * is far above a healthy commit and bounds a hung connection; retries 1 s doubling to 1 min with no
 * attempt limit: a database outage only delays the payout.
 */
const db = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '30 seconds',
  retry: activityOptions().retry,
});

/**
 * Activities that call a provider (bridge, fiat rail, returns) and then record the answer in one
 * transaction. 30 s start-to-close covers a slow provider answer (a provider client gives up well
 * before) and bounds how long a crashed worker delays the retry; retries 2 s doubling to 5 min with
 * no attempt limit and no schedule-to-close: every provider call carries an idempotency key derived
 * from the attempt id (`poa_`, `<poa>:rail`, `<poa>:return:<returned>`), so a retry (automatic, or
 * an operator's reset in the Temporal UI) never duplicates a transfer, payment or return, and
 * giving up would strand money in flight. The UI shows the attempt count and last failure.
 */
const provider = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '30 seconds',
  retry: activityOptions({ retry: { initialInterval: '2 seconds', maximumInterval: '5 minutes' } }).retry,
});

const { signals, queries } = payoutContract;

/** The contract's definitions under this module's older names (tests import them from here). */
export const payoutFundSignal = signals.fund;
export const payoutRetrySignal = signals.retry;

/** How often provider state is re-read while waiting on the rail, in case a notification was lost. */
const PROVIDER_POLL_MS = 60 * 60 * 1000;

/** Runs payout `payoutId` until it ends; returns its final status. */
export async function payoutWorkflow(args: PayoutWorkflowArgs): Promise<string> {
  const { payoutId } = args;
  let wake = false;
  let reconciliation: boolean | null = null;
  let waitingFor = 'loading the payout';
  const kick = () => { wake = true; };
  setHandler(signals.fund, kick);
  setHandler(signals.payoutDeposit, kick);
  setHandler(signals.providerUpdate, kick);
  setHandler(signals.cancelled, kick);
  setHandler(signals.retry, kick);
  setHandler(signals.reconciliation, ({ needsAttention }) => { reconciliation = needsAttention; wake = true; });
  setHandler(queries.waitingFor, () => waitingFor);

  /** One turn of the loop: applies what changed, then waits. Returns the final status when done. */
  const turn = async (): Promise<string | null> => {
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
      return null;
    }
    if (st.needsTransfer) {
      waitingFor = `creating the provider transfer of attempt ${st.attemptId}`;
      await provider.ensureProviderTransfer(payoutId, workflowNowMs());
      return null;
    }
    if (st.held && st.canRefund) {
      waitingFor = 'returning held USDC to the payer';
      await provider.refundHeldFunds(payoutId);
      return null;
    }
    switch (st.status) {
      case 'draft':
        waitingFor = 'a funding confirmation (POST funding_instructions)';
        await condition(() => wake);
        return null;
      case 'awaiting_funds': {
        const deadline = st.expiresAtMs ?? workflowNowMs();
        waitingFor = `a deposit of ${st.fundingTarget ?? 'USDC'} until ${isoAt(deadline)}`;
        const woke = await condition(() => wake, msUntil(deadline));
        if (!woke) {
          waitingFor = 'expiring the funding window (re-reading the provider transfer)';
          await provider.expirePayout(payoutId);
        }
        return null;
      }
      case 'funds_received':
        waitingFor = 'submitting the fiat payment';
        await provider.submitFiatPayment(payoutId);
        return null;
      case 'processing':
      case 'paid': {
        waitingFor = 'reading the fiat rail payment';
        const r = await provider.syncRailPayment(payoutId);
        if (r.notify) {
          waitingFor = 'notifying the recipient';
          await provider.notifyPayoutRecipient(payoutId);
        }
        if (r.status !== st.status) return null;
        waitingFor = st.status === 'processing'
          ? `the ${st.railPaymentId ?? 'rail'} payment to be paid, fail or be returned`
          : 'the recipient to confirm the amount received (or a return)';
        await condition(() => wake, PROVIDER_POLL_MS);
        return null;
      }
      default:
        if (st.held) {
          waitingFor = 'a refund address for held USDC (missing_return_policy)';
          await condition(() => wake);
          return null;
        }
        // A signal that arrived while this step ran (e.g. the reconciliation signal) is handled first.
        if (wake || reconciliation !== null) return null;
        waitingFor = 'nothing (completed)';
        return st.status;
    }
  };

  for (;;) {
    // Long waits (hourly rail polls) grow the history; every fact lives in PostgreSQL, so a fresh
    // run continues exactly here. Pending signals were applied by the previous turn.
    await continueAsNewIfDue<typeof payoutWorkflow>(!wake && reconciliation === null, { payoutId });
    try {
      const done = await turn();
      if (done !== null) return done;
    } catch (e) {
      // Parked for an operator: visible in `waiting_for` and the history; any signal (`retry` after
      // the fix, or a new deposit / provider update) runs the loop again.
      await parkForOperator(e, { setWaitingFor: (s) => { waitingFor = s; }, resumed: () => wake });
    }
  }
}
