/**
 * One virtual account funding the wallet (workflow id = the account id `va_...`, AccountId; spec
 * 2.5, 4.5, part 6 `virtual_account.*`): each wake (a credit recorded, a status change) settles the
 * pending bank credits (activities/wallet/activities.ts: converted to USDC and sent
 * to the wallet, or returned when the account is inactive). An active account keeps its workflow
 * (re-checking hourly); a deactivated one ends once nothing is pending, and a later credit or
 * reactivation starts it again.
 *
 * Deterministic and replay-safe (workflows/convention.ts); the state lives in PostgreSQL.
 */
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import { virtualAccountContract, type VirtualAccountActivities, type VirtualAccountWorkflowArgs } from '../contracts/virtual-account';
import { activityOptions, continueAsNewIfDue, parkForOperator } from './convention';

const act = proxyActivities<VirtualAccountActivities>(activityOptions({ retry: { initialInterval: '2 seconds', maximumInterval: '5 minutes' } }));
const { signals, queries } = virtualAccountContract;

/** The contract's definitions under this module's older names (tests import them from here). */
export const virtualAccountWaitingForQuery = queries.waitingFor;

/** How long an active account waits between settlements when nothing wakes it. */
const RECHECK_MS = 60 * 60 * 1000;

/** Follows virtual account `virtualAccountId` until it is inactive with nothing pending; returns `inactive`. */
export async function virtualAccountWorkflow(args: VirtualAccountWorkflowArgs): Promise<string> {
  let wake = false;
  let waitingFor = 'settling pending bank credits';
  setHandler(signals.update, () => { wake = true; });
  setHandler(signals.retry, () => { wake = true; });
  setHandler(queries.waitingFor, () => waitingFor);

  for (;;) {
    wake = false;
    try {
      waitingFor = 'settling pending bank credits';
      const r = await act.settleVirtualAccountCredits(args.virtualAccountId);
      if (r.status === 'inactive' && !wake) {
        waitingFor = 'nothing (inactive)';
        return 'inactive';
      }
      waitingFor = 'the next bank credit (or an hourly re-check)';
      await condition(() => wake, RECHECK_MS);
      await continueAsNewIfDue<typeof virtualAccountWorkflow>(!wake, args);
    } catch (e) {
      await parkForOperator(e, { setWaitingFor: (s) => { waitingFor = s; }, resumed: () => wake });
    }
  }
}
