/**
 * One workflow per wallet deposit intent (workflow id = `dpi_...`; spec 2.5, 4.5, 6):
 * waits for USDC on the source chain at the bridge's deposit address until `expires_at`
 * (`expired` when nothing came), then follows the bridge until the USDC lands in the holder's
 * wallet (`source_detected`, `bridging`, `settled`) or the bridge fails (funds returned:
 * `recovering`, `failed`; no address to return to: `manual_recovery_required`). Woken by
 * `depositIntentUpdate` (a chain transfer to the address, a bridge change) and otherwise polls
 * every DEPOSIT_POLL_MS. Every fact lives in PostgreSQL (activities/deposit-intents/activities.ts).
 */
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import { depositIntentContract, type DepositIntentActivities, type DepositIntentWorkflowArgs } from '../contracts/deposit-intent';
import { activityOptions, again, deadlineInWorkflowMs, done, runObjectLoop, waitFor, workflowNowMs } from './convention';

const acts = proxyActivities<DepositIntentActivities>(activityOptions('database'));

/** How often the source chain and the bridge are re-read without a signal. */
export const DEPOSIT_POLL_MS = 30_000;

/** Follows deposit intent `depositIntentId` to a terminal status; returns it. */
export async function depositIntentWorkflow(args: DepositIntentWorkflowArgs): Promise<string> {
  const id = args.depositIntentId;
  // When this workflow began (carried across continue-as-new): database deadlines are mapped onto workflow time from here (domain/object-clock.ts).
  const originMs = args.originMs ?? workflowNowMs();
  return runObjectLoop({
    contract: depositIntentContract,
    initially: 'loading the deposit intent',
    continueAsNew: () => continueAsNew<typeof depositIntentWorkflow>({ depositIntentId: id, originMs }),
    step: async (loop) => {
      const st = await acts.advanceDepositIntent(id);
      if (st.terminal) return done(st.status);
      if (st.changed) return again();
      if (st.status !== 'awaiting_funds') return waitFor(`the bridge (status ${st.status})`, { atMs: workflowNowMs() + DEPOSIT_POLL_MS });
      const expiresMs = deadlineInWorkflowMs({ originMs, createdAt: st.createdAt, at: st.expiresAt });
      return waitFor(`USDC on ${st.sourceChain} at the deposit address until ${st.expiresAt}`, {
        atMs: Math.min(expiresMs, workflowNowMs() + DEPOSIT_POLL_MS),
        after: async () => {
          if (loop.woken() || workflowNowMs() < expiresMs) return;
          const e = await acts.expireDepositIntent(id);
          return e.terminal ? done(e.status) : undefined;
        },
      });
    },
  });
}
