/**
 * Starting and signalling payment workflows (workflows/payment.ts; workflow id = payment id), and
 * the recovery sweep that restarts the ones whose start was lost.
 */
import { LIVE_PAYMENT_STATUSES, sqlStatusList } from '../../domain/payments';
import { db } from '../../lib/db';
import { logger } from '../../lib/logger';
import { signalWithStart, startIfAbsent } from '../../temporal/client';
import { depositSignal, linkEndedSignal, paymentWorkflow, providerUpdateSignal } from '../../workflows/payment';

/** Starts the payment's workflow unless it runs already (idempotent by workflow id). */
export async function startPaymentWorkflow(paymentId: string, accountId: string): Promise<void> {
  await startIfAbsent(paymentWorkflow, { workflowId: paymentId, args: [{ paymentId }], accountId });
}

/** Signals (starting if needed) the payment workflow with a recorded deposit. */
export async function signalPaymentDeposit(paymentId: string, accountId: string, depositId: string): Promise<void> {
  await signalWithStart(paymentWorkflow, { workflowId: paymentId, args: [{ paymentId }], accountId, signal: depositSignal, signalArgs: [{ depositId }] });
}

/**
 * Signals (starting if needed) the payment workflow that a provider changed one of its rail
 * payments (settlement payout, refund) or that a refund was requested: it re-reads the payment.
 */
export async function signalPaymentProviderUpdate(paymentId: string, accountId: string): Promise<void> {
  await signalWithStart(paymentWorkflow, { workflowId: paymentId, args: [{ paymentId }], accountId, signal: providerUpdateSignal, signalArgs: [] });
}

/**
 * A fiat rail payment with client reference `ref` changed (simulator / provider webhook): when it
 * is a payment's settlement (`pay_...`) or refund (`refund:pay_...`), signals that payment's
 * workflow. Returns true when `ref` named a payment.
 */
export async function notifyPaymentRailUpdate(ref: string): Promise<boolean> {
  const id = ref.startsWith('refund:') ? ref.slice('refund:'.length) : ref;
  if (!id.startsWith('pay_')) return false;
  const rows: Array<{ account_id: string }> = await db().query('SELECT account_id FROM payments WHERE id = $1', [id]);
  if (!rows[0]) return false;
  await signalPaymentProviderUpdate(id, rows[0].account_id);
  return true;
}

/** Tells the payment workflows that their link ended (after the link's transaction committed). */
export async function signalLinkEndedToPayments(paymentIds: string[], accountId: string, reason: 'cancelled' | 'expired'): Promise<void> {
  for (const paymentId of paymentIds) {
    await signalWithStart(paymentWorkflow, { workflowId: paymentId, args: [{ paymentId }], accountId, signal: linkEndedSignal, signalArgs: [{ reason }] });
  }
}

/** `signalLinkEndedToPayments` after a commit, best effort: a failure is logged, never thrown. */
export async function signalLinkEndedToPaymentsAfterCommit(paymentIds: string[], accountId: string, reason: 'cancelled' | 'expired'): Promise<void> {
  if (!paymentIds.length) return;
  try {
    await signalLinkEndedToPayments(paymentIds, accountId, reason);
  } catch (e) {
    logger.error({ err: e, payment_ids: paymentIds }, 'could not signal payment workflows after the link ended');
  }
}

/**
 * Recovery after a crash between a commit and its workflow start: (re)starts the watcher of every
 * payment that still has something to watch (awaiting, underpaid, paid/overpaid awaiting its
 * wallet or bank settlement, a settlement payout in flight, a refund not yet sent, or unapplied
 * deposits, bank credits or returns), `batch` rows at a time. Idempotent by workflow
 * id. Returns how many.
 */
export async function ensurePaymentWorkflows(batch = 500): Promise<number> {
  let after = '';
  let n = 0;
  for (;;) {
    const rows: Array<{ id: string; account_id: string }> = await db().query(
      `SELECT p.id, p.account_id FROM payments p
        WHERE p.id > $1 AND (p.status IN (${sqlStatusList(LIVE_PAYMENT_STATUSES)})
           OR (p.status IN ('paid','overpaid') AND p.settlement IN ('wallet','bank'))
           OR p.settlement_rail_payment_id IS NOT NULL
           OR (p.status = 'refunded' AND (p.refund_rail_payment_id IS NULL OR p.refund_completed_at IS NULL))
           OR EXISTS (SELECT 1 FROM deposits d WHERE d.payment_id = p.id AND d.effect = 'pending')
           OR EXISTS (SELECT 1 FROM bank_credits b WHERE b.payment_id = p.id AND (b.effect = 'pending' OR (b.returned_at IS NOT NULL AND NOT b.return_applied))))
        ORDER BY p.id LIMIT $2`, [after, batch]);
    for (const r of rows) await startPaymentWorkflow(r.id, r.account_id);
    n += rows.length;
    if (rows.length < batch) return n;
    after = rows[rows.length - 1].id;
  }
}
