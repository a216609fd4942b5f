/**
 * One workflow per wallet conversion (workflow id = `cnv_...`; spec 2.5, 4.5, 6):
 * `built` waits for the holder's hash until `signable_until` (else `failed` `expired`);
 * `submitted` watches the chain for that transaction until CONVERSION_CONFIRM_MS after submission
 * (polling every CONVERSION_POLL_MS, woken by `conversionUpdate`): `settled` when it matches what
 * was built, `failed` (`source_tx_mismatch`, `source_tx_not_found`) otherwise.
 */
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import { conversionContract, type ConversionActivities, type ConversionWorkflowArgs } from '../contracts/conversion';
import { activityOptions, deadlineInWorkflowMs, done, runObjectLoop, waitFor, workflowNowMs } from './convention';

const acts = proxyActivities<ConversionActivities>(activityOptions('database'));

/** How often a submitted conversion's transaction is looked for on the chain without a signal. */
export const CONVERSION_POLL_MS = 15_000;

/** Follows conversion `conversionId` to `settled` or `failed`; returns it. */
export async function conversionWorkflow(args: ConversionWorkflowArgs): Promise<string> {
  // When this workflow began (carried across continue-as-new): database deadlines are mapped onto workflow time from here (domain/object-clock.ts).
  const originMs = args.originMs ?? workflowNowMs();
  const id = args.conversionId;
  return runObjectLoop({
    contract: conversionContract,
    initially: 'loading the conversion',
    continueAsNew: () => continueAsNew<typeof conversionWorkflow>({ conversionId: id, originMs }),
    step: async (loop) => {
      const st = await acts.checkConversion(id);
      if (st.terminal) return done(st.status);
      const built = st.status === 'built';
      const deadline = deadlineInWorkflowMs({ originMs, createdAt: st.createdAt, at: built ? st.signableUntil : st.confirmBy! });
      const expire = async () => {
        if (loop.woken() || workflowNowMs() < deadline) return;
        const e = await acts.expireConversion(id);
        return e.terminal ? done(e.status) : undefined;
      };
      return built
        ? waitFor(`the holder's signed transaction hash until ${st.signableUntil}`, { atMs: deadline, after: expire })
        : waitFor(`the signed transaction on the chain until ${st.confirmBy}`, {
            atMs: Math.min(deadline, workflowNowMs() + CONVERSION_POLL_MS),
            after: expire,
          });
    },
  });
}
