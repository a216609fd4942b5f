/**
 * The wallet send's record module (a payout's prepared service-wallet send, `wallet_sends`; spec
 * 2.5, 4.3 cancel rules): every status move of a send, in SQL through domain/wallet-sends.ts
 * `walletSendTransitions` (lib/status-writes.ts `moveRows`: only rows whose status may move). The
 * wallet provider (providers/wallet-sends.ts) reports what it did; these functions move the rows.
 * A send carries no events of its own.
 */
import type { EntityManager } from 'typeorm';
import { walletSendTransitions } from '../../domain/wallet-sends';
import { accountWide } from '../../lib/scoped';
import { moveRows } from '../../lib/status-writes';

/** Moves the sends of `payoutId` still `signable` past their `signable_until` to `expired`; returns their ids. */
export async function expireWalletSends(manager: EntityManager, payoutId: string): Promise<string[]> {
  return moveRows(manager, walletSendTransitions, {
    sqlTable: 'wallet_sends',
    where: 'payout_id = $1 AND signable_until <= now()',
    params: [payoutId],
    to: 'expired',
  });
}

/** Moves every unsigned send (signable or expired) of payout `change.payoutId` of holder `change.accountId` to `closed` (`closed_at` now); returns their ids. */
export async function closeWalletSends(manager: EntityManager, change: { accountId: string; payoutId: string }): Promise<string[]> {
  const holder = accountWide(change.accountId, manager).sql(null, 1);
  return moveRows(manager, walletSendTransitions, {
    sqlTable: 'wallet_sends',
    where: `${holder.where} AND payout_id = $2`,
    params: [...holder.params, change.payoutId],
    to: 'closed',
    set: 'closed_at = now()',
  });
}

/** Moves send `sendId` to `signed` (`signed_at` now, `tx_hash` the wallet's debit). */
export async function markWalletSendSigned(manager: EntityManager, sendId: string, change: { txHash: string }): Promise<void> {
  await moveRows(manager, walletSendTransitions, {
    sqlTable: 'wallet_sends',
    where: 'id = $1',
    params: [sendId, change.txHash],
    to: 'signed',
    set: 'signed_at = now(), tx_hash = $2',
  });
}
