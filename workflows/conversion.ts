/**
 * One workflow per wallet conversion (workflow id = `cnv_...`; spec 2.5, 4.5, 6; issue 14):
 * `built` waits for the holder's hash until `signable_until` (else `failed` `expired`);
 * `submitted` watches the chain for that transaction until CONVERSION_CONFIRM_MS after submission
 * (polling every CONVERSION_POLL_MS, woken by `conversionUpdate`): `settled` when it matches what
 * was built, `failed` (`source_tx_mismatch`, `source_tx_not_found`) otherwise.
 */
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import { conversionContract, type ConversionActivities, type ConversionWorkflowArgs } from '../contracts/conversion';
import { activityOptions, continueAsNewIfDue, msUntil, parkForOperator, workflowNowMs } from './convention';

const acts = proxyActivities<ConversionActivities>(activityOptions());
const { signals, queries } = conversionContract;

/** The contract's definitions under this module's older names (tests import them from here). */
export const conversionWaitingForQuery = queries.waitingFor;

/** How often a submitted conversion's transaction is looked for on the chain without a signal. */
export const CONVERSION_POLL_MS = 15_000;

/** Follows conversion `conversionId` to `settled` or `failed`; returns it. */
export async function conversionWorkflow(args: ConversionWorkflowArgs): Promise<string> {
  // When this workflow began (carried across continue-as-new): database deadlines are mapped onto workflow time from here (domain/object-clock.ts).
  const originMs = args.originMs ?? workflowNowMs();
  const id = args.conversionId;
  let woken = false;
  let waitingFor = 'loading the conversion';
  setHandler(signals.conversionUpdate, () => { woken = true; });
  setHandler(signals.retry, () => { woken = true; });
  setHandler(queries.waitingFor, () => waitingFor);

  for (;;) {
    try {
      woken = false;
      let st = await acts.checkConversion(id);
      if (!st.terminal) {
        const deadline = originMs + (Date.parse(st.status === 'built' ? st.signableUntil : st.confirmBy!) - Date.parse(st.createdAt));
        if (st.status === 'built') {
          waitingFor = `the holder's signed transaction hash until ${st.signableUntil}`;
          await condition(() => woken, msUntil(deadline));
        } else {
          waitingFor = `the signed transaction on the chain until ${st.confirmBy}`;
          await condition(() => woken, Math.min(msUntil(deadline), CONVERSION_POLL_MS));
        }
        if (!woken && workflowNowMs() >= deadline) st = await acts.expireConversion(id);
      }
      if (st.terminal) { waitingFor = 'nothing (completed)'; return st.status; }
      await continueAsNewIfDue<typeof conversionWorkflow>(!woken, { conversionId: id, originMs });
    } catch (e) {
      await parkForOperator(e, { setWaitingFor: (s) => { waitingFor = s; }, resumed: () => woken });
    }
  }
}
