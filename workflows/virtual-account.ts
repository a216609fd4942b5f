/**
 * One virtual account funding the wallet (workflow id = the account id `va_...`, AccountId; spec
 * 2.5, 4.5, part 6 `virtual_account.*`): each wake (a credit recorded, a status change) settles the
 * pending bank credits (activities/virtual-accounts/activities.ts: converted to USDC and sent
 * to the wallet, or returned when the account is inactive). An active account keeps its workflow
 * (re-checking hourly); a deactivated one ends once nothing is pending, and a later credit or
 * reactivation starts it again.
 *
 * Deterministic and replay-safe (workflows/convention.ts); the state lives in PostgreSQL.
 */
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import { virtualAccountContract, type VirtualAccountActivities, type VirtualAccountWorkflowArgs } from '../contracts/virtual-account';
import { activityOptions, done, runObjectLoop, waitFor, workflowNowMs } from './convention';

const act = proxyActivities<VirtualAccountActivities>(activityOptions('provider'));

/** How long an active account waits between settlements when nothing wakes it. */
const RECHECK_MS = 60 * 60 * 1000;

/** Follows virtual account `virtualAccountId` until it is inactive with nothing pending; returns `inactive`. */
export async function virtualAccountWorkflow(args: VirtualAccountWorkflowArgs): Promise<string> {
  return runObjectLoop({
    contract: virtualAccountContract,
    initially: 'settling pending bank credits',
    continueAsNew: () => continueAsNew<typeof virtualAccountWorkflow>(args),
    step: async (loop) => {
      loop.setWaitingFor('settling pending bank credits');
      const r = await act.settleVirtualAccountCredits(args.virtualAccountId);
      if (r.status === 'inactive' && !loop.woken()) return done('inactive', 'nothing (inactive)');
      return waitFor('the next bank credit (or an hourly re-check)', { atMs: workflowNowMs() + RECHECK_MS });
    },
  });
}
