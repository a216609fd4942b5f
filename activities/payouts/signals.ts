/**
 * Starting and signalling payout workflows (contracts/payout.ts; spec 2.6, 3): the signal helpers
 * the commands call after their commit, the chain watcher hook that records USDC arriving at a
 * funding address, the provider-update callback, and the `ensurePayoutWorkflows` recovery sweep.
 */
import { accountOf } from '../records/account-of';
import type { SignalDefinition } from '@temporalio/common';
import { payoutContract } from '../../contracts/payout';
import { payoutTransitions } from '../../domain/payouts/statuses';
import { db } from '../../lib/db';
import { newId } from '../../lib/ids';
import type { ObservedTransfer } from '../../providers/chain';
import { signalIfRunning, startIfAbsent, startOrSignal } from '../../temporal/client';

const { update, reconciliation } = payoutContract.signals;

/** Signals the payout workflow (starting it if needed) with `signal`, one of contracts/payout.ts. */
export async function signalPayout<A extends unknown[]>(
  payoutId: string,
  accountId: string,
  signal: SignalDefinition<A>,
  ...args: A
): Promise<void> {
  await startOrSignal(payoutContract, { id: payoutId, accountId }, signal, ...args);
}

/**
 * Records a transfer to a payout funding address as a pending payout deposit (idempotent by chain +
 * tx hash) and signals the payout workflow. Returns the deposit id, or null when the address is
 * not a payout funding address.
 */
export async function recordPayoutTransfer(observedTransfer: ObservedTransfer): Promise<string | null> {
  const rows: Array<{ id: string; payout_id: string; account_id: string }> = await db().query(
    'SELECT id, payout_id, account_id FROM payout_attempts WHERE source_chain = $1 AND lower(deposit_address) = lower($2) LIMIT 1',
    [observedTransfer.chain, observedTransfer.to_address],
  );
  const at = rows[0];
  if (!at) return null;
  const inserted: Array<{ id: string }> = await db().query(
    `INSERT INTO payout_deposits(id, payout_id, attempt_id, chain, asset, to_address, from_address, tx_hash, amount_minor)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) ON CONFLICT (chain, tx_hash) DO NOTHING RETURNING id`,
    [
      newId('pod_'),
      at.payout_id,
      at.id,
      observedTransfer.chain,
      observedTransfer.asset,
      observedTransfer.to_address,
      observedTransfer.from_address,
      observedTransfer.tx_hash,
      observedTransfer.amount.toString(),
    ],
  );
  const id =
    inserted[0]?.id ??
    (
      await db().query('SELECT id FROM payout_deposits WHERE chain = $1 AND tx_hash = $2', [
        observedTransfer.chain,
        observedTransfer.tx_hash,
      ])
    )[0].id;
  await signalPayout(at.payout_id, at.account_id, update);
  return id;
}

/** Simulator / provider callback: the provider changed a transfer or payment of `payoutId`; the workflow re-reads it. */
export async function notifyPayoutProviderUpdate(payoutId: string): Promise<boolean> {
  const accountId = await accountOf('payouts', payoutId);
  if (!accountId) return false;
  await signalPayout(payoutId, accountId, update);
  return true;
}

/** A funding attempt was recorded (or a refund address set): the `update` signal, starting the workflow if needed. */
export async function signalPayoutFund(payoutId: string, accountId: string): Promise<void> {
  await signalPayout(payoutId, accountId, update);
}

/**
 * The reconciliation signal for `payoutId` (`{ needsAttention }`, sets `needs_attention`); false
 * when no such payout exists.
 */
export async function signalPayoutReconciliation(payoutId: string, needsAttention: boolean): Promise<boolean> {
  const accountId = await accountOf('payouts', payoutId);
  if (!accountId) return false;
  await signalPayout(payoutId, accountId, reconciliation, { needsAttention });
  return true;
}

/**
 * Recovery after a crash between a commit and its workflow signal: (re)starts the workflow of every
 * payout with a funding attempt and something left to do (a status of the payout table's open set,
 * or held funds). Idempotent by workflow id. Returns how many.
 */
export async function ensurePayoutWorkflows(batch = 500): Promise<number> {
  let after = '';
  let n = 0;
  for (;;) {
    const rows: Array<{ id: string; account_id: string }> = await db().query(
      `SELECT id, account_id FROM payouts
        WHERE id > $1 AND current_attempt_id IS NOT NULL
          AND (status = ANY($3::text[]) OR held_minor IS NOT NULL)
        ORDER BY id LIMIT $2`,
      [after, batch, payoutTransitions.open],
    );
    for (const r of rows) await startIfAbsent(payoutContract, { id: r.id, accountId: r.account_id });
    n += rows.length;
    if (rows.length < batch) return n;
    after = rows[rows.length - 1].id;
  }
}

/** Tells a running payout workflow that the payout was cancelled (no-op when none runs). */
export async function signalPayoutCancelled(payoutId: string): Promise<void> {
  await signalIfRunning(payoutContract, payoutId, update);
}
