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
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import { payoutContract, type PayoutActivities, type PayoutWorkflowArgs } from '../contracts/payout';
import { activityOptions, again, done, isoAt, NON_RETRYABLE_ERROR_TYPES, runObjectLoop, waitFor, workflowNowMs } from './convention';

/**
 * Error types the payout activities raise with ApplicationFailure.nonRetryable (data an operator
 * must fix: the payout row is gone, no beneficiary for the rail, the service wallet disappeared):
 * the shared list of workflows/convention.ts. Retrying cannot help, so the workflow parks the
 * payout for an operator instead of failing.
 */
export const PAYOUT_NON_RETRYABLE = NON_RETRYABLE_ERROR_TYPES;

/** Activities that only touch the database: the `database` profile. */
const db = proxyActivities<PayoutActivities>(activityOptions('database'));

/**
 * Activities that call a provider (bridge, fiat rail, returns) and then record the answer in one
 * transaction: the `provider` profile. Every provider call carries an idempotency key derived from
 * the attempt id (`poa_`, `<poa>:rail`, `<poa>:return:<returned>`), so a retry (automatic, or an
 * operator's reset in the Temporal UI) never duplicates a transfer, payment or return. The UI shows
 * the attempt count and last failure.
 */
const provider = proxyActivities<PayoutActivities>(activityOptions('provider'));

/** How often provider state is re-read while waiting on the rail, in case a notification was lost. */
const PROVIDER_POLL_MS = 60 * 60 * 1000;

/** Runs payout `payoutId` until it ends; returns its final status. */
export async function payoutWorkflow(args: PayoutWorkflowArgs): Promise<string> {
  const { payoutId } = args;
  /** The reconciliation signal's latest flag, not yet recorded. */
  let reconciliation: boolean | null = null;
  return runObjectLoop({
    contract: payoutContract,
    initially: 'loading the payout',
    on: {
      reconciliation: ({ needsAttention }: { needsAttention: boolean }) => {
        reconciliation = needsAttention;
      },
    },
    // Long waits (hourly rail polls) grow the history; every fact lives in PostgreSQL, so a fresh
    // run continues exactly here once the reconciliation flag is recorded.
    safeToContinue: () => reconciliation === null,
    continueAsNew: () => continueAsNew<typeof payoutWorkflow>({ payoutId }),
    step: async (loop) => {
      if (reconciliation !== null) {
        const flag: boolean = reconciliation;
        reconciliation = null;
        loop.setWaitingFor('recording the reconciliation signal');
        await db.setPayoutNeedsAttention(payoutId, flag);
      }
      let st = await db.loadPayoutState(payoutId);
      if (st.pendingDepositIds.length > 0) {
        for (const depositId of st.pendingDepositIds) {
          loop.setWaitingFor(`applying deposit ${depositId}`);
          st = await db.applyPayoutDeposit(payoutId, depositId);
        }
        return again();
      }
      if (st.needsTransfer) {
        loop.setWaitingFor(`creating the provider transfer of attempt ${st.attemptId}`);
        await provider.ensureProviderTransfer(payoutId, workflowNowMs());
        return again();
      }
      if (st.held && st.canRefund) {
        loop.setWaitingFor('returning held USDC to the payer');
        await provider.refundHeldFunds(payoutId);
        return again();
      }
      switch (st.status) {
        case 'draft':
          return waitFor('a funding confirmation (POST funding_instructions)');
        case 'awaiting_funds': {
          const deadline = st.expiresAtMs ?? workflowNowMs();
          return waitFor(`a deposit of ${st.fundingTarget ?? 'USDC'} until ${isoAt(deadline)}`, {
            atMs: deadline,
            after: async (woke) => {
              if (woke) return;
              loop.setWaitingFor('expiring the funding window (re-reading the provider transfer)');
              await provider.expirePayout(payoutId);
            },
          });
        }
        case 'funds_received':
          loop.setWaitingFor('submitting the fiat payment');
          await provider.submitFiatPayment(payoutId);
          return again();
        case 'processing':
        case 'paid': {
          loop.setWaitingFor('reading the fiat rail payment');
          const r = await provider.syncRailPayment(payoutId);
          if (r.notify) {
            loop.setWaitingFor('notifying the recipient');
            await provider.notifyPayoutRecipient(payoutId);
          }
          if (r.status !== st.status) return again();
          return waitFor(
            st.status === 'processing'
              ? `the ${st.railPaymentId ?? 'rail'} payment to be paid, fail or be returned`
              : 'the recipient to confirm the amount received (or a return)',
            { atMs: workflowNowMs() + PROVIDER_POLL_MS },
          );
        }
        default:
          if (st.held) return waitFor('a refund address for held USDC (missing_return_policy)');
          // A signal that arrived while this step ran (e.g. the reconciliation signal) is handled first.
          if (loop.woken() || reconciliation !== null) return again();
          return done(st.status);
      }
    },
  });
}
