/**
 * One workflow per wallet deposit intent (workflow id = `dpi_...`; spec 2.5, 4.5, 6; issue 14):
 * waits for USDC on the source chain at the bridge's deposit address until `expires_at`
 * (`expired` when nothing came), then follows the bridge until the USDC lands in the holder's
 * wallet (`source_detected`, `bridging`, `settled`) or the bridge fails (funds returned:
 * `recovering`, `failed`; no address to return to: `manual_recovery_required`). Woken by
 * `depositIntentUpdate` (a chain transfer to the address, a bridge change) and otherwise polls
 * every DEPOSIT_POLL_MS. Every fact lives in PostgreSQL (activities/wallet/activities.ts).
 */
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import { depositIntentContract, type DepositIntentActivities, type DepositIntentWorkflowArgs } from '../contracts/deposit-intent';
import { activityOptions, continueAsNewIfDue, msUntil, parkForOperator, workflowNowMs } from './convention';

const acts = proxyActivities<DepositIntentActivities>(activityOptions());
const { signals, queries } = depositIntentContract;

/** The contract's definitions under this module's older names (tests import them from here). */
export const depositIntentWaitingForQuery = queries.waitingFor;

/** How often the source chain and the bridge are re-read without a signal. */
export const DEPOSIT_POLL_MS = 30_000;

/** Follows deposit intent `depositIntentId` to a terminal status; returns it. */
export async function depositIntentWorkflow(args: DepositIntentWorkflowArgs): Promise<string> {
  const id = args.depositIntentId;
  // When this workflow began (carried across continue-as-new): database deadlines are mapped onto workflow time from here (domain/object-clock.ts).
  const originMs = args.originMs ?? workflowNowMs();
  let woken = false;
  let waitingFor = 'loading the deposit intent';
  setHandler(signals.depositIntentUpdate, () => { woken = true; });
  setHandler(signals.retry, () => { woken = true; });
  setHandler(queries.waitingFor, () => waitingFor);

  for (;;) {
    try {
      woken = false;
      let st = await acts.advanceDepositIntent(id);
      if (st.terminal) { waitingFor = 'nothing (completed)'; return st.status; }
      if (st.changed) continue;
      if (st.status === 'awaiting_funds') {
        const expiresMs = originMs + (Date.parse(st.expiresAt) - Date.parse(st.createdAt));
        waitingFor = `USDC on ${st.sourceChain} at the deposit address until ${st.expiresAt}`;
        await condition(() => woken, Math.min(msUntil(expiresMs), DEPOSIT_POLL_MS));
        if (!woken && workflowNowMs() >= expiresMs) {
          st = await acts.expireDepositIntent(id);
          if (st.terminal) { waitingFor = 'nothing (completed)'; return st.status; }
        }
      } else {
        waitingFor = `the bridge (status ${st.status})`;
        await condition(() => woken, DEPOSIT_POLL_MS);
      }
      await continueAsNewIfDue<typeof depositIntentWorkflow>(!woken, { depositIntentId: id, originMs });
    } catch (e) {
      await parkForOperator(e, { setWaitingFor: (s) => { waitingFor = s; }, resumed: () => woken });
    }
  }
}
