/**
 * One send out of the holder's wallet (workflow id = the intent id `wsi_...`, AccountId; spec
 * 2.5, 4.5, part 6 `send_intent.*`): waits for the holder's signature until the intent expires,
 * then for the recorded transaction on chain, checks it is the built one, and (cross-chain routes)
 * follows the bridge until it delivers or fails. Every decision is the activity's
 * (activities/send-intents/activities.ts), taken at workflow time so time skipping reaches every
 * terminal state; the workflow only sleeps until the next look or a signal (`update`: hash
 * recorded, bridge moved; `retry`: an operator fixed a parked step).
 *
 * Deterministic and replay-safe (workflows/convention.ts); the state lives in PostgreSQL.
 */
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import { sendIntentContract, type SendIntentActivities, type SendIntentWorkflowArgs } from '../contracts/send-intent';
import { activityOptions, done, runObjectLoop, waitFor, workflowNowMs } from './convention';

const act = proxyActivities<SendIntentActivities>(activityOptions('database'));

/** Follows intent `intentId` to `settled`, `failed` or `expired`; returns that status. */
export async function sendIntentWorkflow(args: SendIntentWorkflowArgs): Promise<string> {
  // When this workflow began (carried across continue-as-new): the origin of the object's clock (domain/object-clock.ts).
  const originMs = args.originMs ?? workflowNowMs();
  return runObjectLoop({
    contract: sendIntentContract,
    initially: 'loading the send intent',
    continueAsNew: () => continueAsNew<typeof sendIntentWorkflow>({ ...args, originMs }),
    step: async () => {
      const p = await act.advanceSendIntent(args.intentId, workflowNowMs(), originMs);
      if (p.wakeAtMs === null) return done(p.status, p.waitingFor);
      return waitFor(p.waitingFor, { atMs: p.wakeAtMs });
    },
  });
}
