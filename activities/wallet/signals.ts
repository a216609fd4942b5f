/**
 * Starting and signalling the wallet's workflows (issue 14; workflow id = object id, `AccountId`):
 * deposit intents (workflows/deposit-intent.ts) and conversions (workflows/conversion.ts).
 */
import { db } from '../../lib/db';
import { logger } from '../../lib/logger';
import { signalWithStart } from '../../temporal/client';
import { conversionUpdateSignal, conversionWorkflow } from '../../workflows/conversion';
import { depositIntentUpdateSignal, depositIntentWorkflow } from '../../workflows/deposit-intent';

/** Signals (starting if needed) the intent's workflow to re-read the chain and the bridge. */
export async function signalDepositIntent(id: string, accountId: string): Promise<void> {
  await signalWithStart(depositIntentWorkflow, { workflowId: id, args: [{ depositIntentId: id }], accountId, signal: depositIntentUpdateSignal, signalArgs: [] });
}

/**
 * The bridge (simulator or provider callback) or the chain reported a change for `ref`: when it
 * is a deposit intent (`dpi_`), its workflow re-reads. False otherwise; never throws (logged).
 */
export async function notifyDepositIntentUpdate(ref: string): Promise<boolean> {
  if (!ref.startsWith('dpi_')) return false;
  const rows: Array<{ account_id: string }> = await db().query('SELECT account_id FROM wallet_deposit_intents WHERE id = $1', [ref]);
  if (!rows[0]) return false;
  try {
    await signalDepositIntent(ref, rows[0].account_id);
  } catch (e) {
    logger.error({ err: e, deposit_intent_id: ref }, 'could not signal the deposit intent workflow');
  }
  return true;
}

/** A chain transfer to a deposit intent's address (simulator `/sim/chain/transfers`): wakes its workflow. */
export async function notifyDepositIntentTransfer(t: { chain: string; to_address: string }): Promise<void> {
  const rows: Array<{ id: string }> = await db().query(
    `SELECT id FROM wallet_deposit_intents WHERE source_chain = $1 AND lower(deposit_address) = lower($2)`, [t.chain, t.to_address]);
  for (const r of rows) await notifyDepositIntentUpdate(r.id);
}

/** Signals (starting if needed) the conversion's workflow to re-read. */
export async function signalConversion(id: string, accountId: string): Promise<void> {
  await signalWithStart(conversionWorkflow, { workflowId: id, args: [{ conversionId: id }], accountId, signal: conversionUpdateSignal, signalArgs: [] });
}
