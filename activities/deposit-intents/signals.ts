/**
 * Starting and signalling the deposit intent's workflow (contracts/deposit-intent.ts; workflow id =
 * intent id, `AccountId`): what commands call after their commit (signalWithStart heals a lost
 * start), the bridge's and the chain's notifications, and the recovery sweep at worker start.
 */
import { depositIntentContract } from '../../contracts/deposit-intent';
import { depositIntentTransitions } from '../../domain/wallet-deposits';
import { db, forEachByKeyset } from '../../lib/db';
import { logger } from '../../lib/logger';
import { sqlStatusList } from '../../domain/payments';
import { accountOf } from '../records/account-of';
import { startIfAbsent, startOrSignal } from '../../temporal/client';

/** Signals (starting if needed) the intent's workflow to re-read the chain and the bridge. */
export async function signalDepositIntent(id: string, accountId: string): Promise<void> {
  await startOrSignal(depositIntentContract, { id, accountId }, depositIntentContract.signals.update);
}

/**
 * The bridge (simulator or provider callback) or the chain reported a change for `ref`: when it
 * is a deposit intent (`dpi_`), its workflow re-reads. False otherwise; never throws (logged).
 */
export async function notifyDepositIntentUpdate(ref: string): Promise<boolean> {
  if (!ref.startsWith('dpi_')) return false;
  const accountId = await accountOf('wallet_deposit_intents', ref);
  if (!accountId) return false;
  try {
    await signalDepositIntent(ref, accountId);
  } catch (e) {
    logger.error({ err: e, deposit_intent_id: ref }, 'could not signal the deposit intent workflow');
  }
  return true;
}

/** A chain transfer to a deposit intent's address (simulator `/sim/chain/transfers`): wakes its workflow. */
export async function notifyDepositIntentTransfer(input: { chain: string; to_address: string }): Promise<void> {
  const rows: Array<{ id: string }> = await db().query(
    `SELECT id FROM wallet_deposit_intents WHERE source_chain = $1 AND lower(deposit_address) = lower($2)`,
    [input.chain, input.to_address],
  );
  for (const r of rows) await notifyDepositIntentUpdate(r.id);
}

/** Recovery sweep at worker start: a workflow for every deposit intent still moving (the table's open set: not settled, failed, expired or handed to an operator). */
export async function ensureDepositIntentWorkflows(batch = 500): Promise<number> {
  return forEachByKeyset(
    `SELECT id, account_id FROM wallet_deposit_intents WHERE id > $1 AND status IN (${sqlStatusList(depositIntentTransitions.open)}) ORDER BY id LIMIT $2`,
    (r) => startIfAbsent(depositIntentContract, { id: r.id, accountId: r.account_id }),
    batch,
  );
}
