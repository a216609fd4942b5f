/**
 * Starting and signalling the conversion's workflow (contracts/conversion.ts; workflow id =
 * conversion id, `AccountId`): what commands call after their commit (signalWithStart heals a lost
 * start), and the recovery sweep at worker start.
 */
import { conversionContract } from '../../contracts/conversion';
import { conversionTransitions } from '../../domain/wallet-deposits';
import { forEachByKeyset } from '../../lib/db';
import { sqlStatusList } from '../../domain/payments';
import { startIfAbsent, startOrSignal } from '../../temporal/client';

/** Signals (starting if needed) the conversion's workflow to re-read. */
export async function signalConversion(id: string, accountId: string): Promise<void> {
  await startOrSignal(conversionContract, { id, accountId }, conversionContract.signals.update);
}

/** Recovery sweep at worker start: a workflow for every open conversion (built or submitted). */
export async function ensureConversionWorkflows(batch = 500): Promise<number> {
  return forEachByKeyset(
    `SELECT id, account_id FROM wallet_conversions WHERE id > $1 AND status IN (${sqlStatusList(conversionTransitions.open)}) ORDER BY id LIMIT $2`,
    (r) => startIfAbsent(conversionContract, { id: r.id, accountId: r.account_id }),
    batch,
  );
}
