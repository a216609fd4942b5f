/**
 * The chain watcher (runs where the chain adapter reports transfers): every transfer to a deposit
 * address becomes a `deposits` row (idempotent by chain + tx hash) and a signal to its payment's
 * workflow (spec 2.4, part 3).
 */
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { chainAdapter, type ObservedTransfer } from '../../providers/chain';
import { recordPayoutTransfer } from '../payouts/signals';
import { signalPaymentDepositAfterCommit } from './signals';
import { notifyOfframpTransfer } from '../offramp-intents/signals';

/**
 * Records a transfer seen on chain. A transfer to a payout funding address is handed to the payout
 * (activities/payouts recordPayoutTransfer); one to an off-ramp's transit address wakes the off-ramp.
 * A transfer to a payment's deposit address becomes a pending
 * deposit of that payment and, in the same transaction, the signal of its workflow (performed after
 * commit, durably; started if not running: a late deposit to a closed payment still gets a verdict). Transfers to unknown addresses are recorded with no payment.
 * Idempotent by (chain, tx_hash). Returns the deposit id.
 */
export async function recordObservedTransfer(observedTransfer: ObservedTransfer): Promise<string> {
  // A payment's send target, or (cross-network rail) the native-chain address its bridge delivers to.
  const payments: Array<{ id: string; account_id: string; payment_rail: string; asset: string | null }> = await db().query(
    `SELECT id, account_id, payment_rail, stablecoin AS asset FROM payments WHERE deposit_chain = $1 AND lower(deposit_address) = lower($2)
     UNION ALL
     SELECT id, account_id, payment_rail, currency AS asset FROM payments WHERE delivery_chain = $1 AND lower(delivery_address) = lower($2)
     LIMIT 1`,
    [observedTransfer.chain, observedTransfer.to_address],
  );
  const p = payments[0] ?? null;
  if (!p) {
    // A payout funding address (bridge deposit address on a source chain) goes to the payout workflow.
    const payoutDepositId = await recordPayoutTransfer(observedTransfer);
    if (payoutDepositId) return payoutDepositId;
    // An off-ramp's transit address: its workflow re-reads the transit deposit.
    await notifyOfframpTransfer(observedTransfer);
  }
  const id = newId('dep_');
  // The deposit and its signal commit together; the signal follows the commit durably (temporal/intents.ts).
  return transaction(async (m) => {
    const inserted: Array<{ id: string }> = await m.query(
      `INSERT INTO deposits(id, payment_id, chain, asset, to_address, from_address, tx_hash, amount_minor, decimals, effect)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10) ON CONFLICT (chain, tx_hash) DO NOTHING RETURNING id`,
      [
        id,
        p?.id ?? null,
        observedTransfer.chain,
        observedTransfer.asset,
        observedTransfer.to_address,
        observedTransfer.from_address,
        observedTransfer.tx_hash,
        observedTransfer.amount.toString(),
        observedTransfer.decimals,
        p && p.asset === observedTransfer.asset ? 'pending' : 'recorded_only',
      ],
    );
    const depositId: string =
      inserted[0]?.id ??
      (await m.query('SELECT id FROM deposits WHERE chain = $1 AND tx_hash = $2', [observedTransfer.chain, observedTransfer.tx_hash]))[0]
        .id;
    if (p) await signalPaymentDepositAfterCommit(m, p, depositId);
    return depositId;
  });
}

let watcherWired = false;
/** Connects the chain adapter's transfer reports to `recordObservedTransfer` (once per process). */
export function wireChainWatcher(): void {
  if (watcherWired) return;
  watcherWired = true;
  chainAdapter().onTransfer(async (t) => {
    await recordObservedTransfer(t);
  });
}
