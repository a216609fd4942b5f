/**
 * Starting and signalling payment workflows (workflow id = payment id): contracts/payment.ts on the
 * native and transfer rails, contracts/xchain-payment.ts on the cross-network rail (the same
 * `deposit`, `linkEnded` signals), the link workflow a payment moved (contracts/payment-link.ts), and
 * the recovery sweep that restarts the ones whose start was lost.
 */
import { accountOf } from '../records/account-of';
import { depositSignal, linkEndedSignal, paymentContract } from '../../contracts/payment';
import { paymentLinkContract } from '../../contracts/payment-link';
import { xchainPaymentContract } from '../../contracts/xchain-payment';
import { LIVE_PAYMENT_STATUSES, SETTLEABLE_PAYMENT_STATUSES, sqlStatusList } from '../../domain/payments';
import { db } from '../../lib/db';
import { logger } from '../../lib/logger';
import type { EntityManager } from 'typeorm';
import { startIfAbsent, startOrSignal } from '../../temporal/client';
import { startAfterCommit } from '../../temporal/intents';

/** The contract of the workflow watching a payment on `rail`: the cross-network watcher or the payment workflow. */
function contractFor(rail: string): typeof paymentContract | typeof xchainPaymentContract {
  return rail === 'crypto_xchain' ? xchainPaymentContract : paymentContract;
}

async function railOf(paymentId: string): Promise<string> {
  const rows: Array<{ payment_rail: string }> = await db().query('SELECT payment_rail FROM payments WHERE id = $1', [paymentId]);
  return rows[0]?.payment_rail ?? 'crypto_native';
}

/** Starts the workflow of a payment on `rail` unless it runs already (idempotent by workflow id). */
export async function startPaymentWorkflow(paymentId: string, accountId: string, rail: string): Promise<void> {
  await startIfAbsent(contractFor(rail), { id: paymentId, accountId });
}

/**
 * Records in `m`'s transaction the start of the workflow of new payment `p` (the watcher of its
 * rail): performed after commit, durably (temporal/intents.ts), so the payer's request does not
 * wait on Temporal.
 */
export async function startPaymentWorkflowAfterCommit(
  manager: EntityManager,
  input: { id: string; account_id: string; payment_rail: string },
): Promise<void> {
  await startAfterCommit(manager, contractFor(input.payment_rail), { id: input.id, accountId: input.account_id });
}

/**
 * Records in `m`'s transaction the `deposit` signal of payment `p`'s workflow (starting it if no run
 * is open: a late deposit to a closed payment still gets its verdict), performed after commit,
 * durably (temporal/intents.ts).
 */
export async function signalPaymentDepositAfterCommit(
  manager: EntityManager,
  input: { id: string; account_id: string; payment_rail: string },
  depositId: string,
): Promise<void> {
  await startAfterCommit(manager, contractFor(input.payment_rail), { id: input.id, accountId: input.account_id }, depositSignal, {
    depositId,
  });
}

/** Signals (starting if needed) the payment's workflow with a recorded deposit. */
export async function signalPaymentDeposit(paymentId: string, accountId: string, depositId: string, rail?: string): Promise<void> {
  await startOrSignal(contractFor(rail ?? (await railOf(paymentId))), { id: paymentId, accountId }, depositSignal, { depositId });
}

/**
 * Signals (starting if needed) the payment workflow that a provider changed one of its rail
 * payments (settlement payout, refund) or that a refund was requested: it re-reads the payment.
 */
export async function signalPaymentProviderUpdate(paymentId: string, accountId: string): Promise<void> {
  await startOrSignal(paymentContract, { id: paymentId, accountId }, paymentContract.signals.update);
}

/**
 * A fiat rail payment with client reference `ref` changed (simulator / provider webhook): when it
 * is a payment's settlement (`pay_...`) or refund (`refund:pay_...`), signals that payment's
 * workflow. Returns true when `ref` named a payment.
 */
export async function notifyPaymentRailUpdate(ref: string): Promise<boolean> {
  const id = ref.startsWith('refund:') ? ref.slice('refund:'.length) : ref;
  if (!id.startsWith('pay_')) return false;
  const accountId = await accountOf('payments', id);
  if (!accountId) return false;
  await signalPaymentProviderUpdate(id, accountId);
  return true;
}

/**
 * A payment moved link `linkId`: signals (starting if needed) the link's workflow
 * (contracts/payment-link.ts `linkChanged`), reading the link's account; nothing for an unknown
 * link. Errors propagate (the payment workflow's activity retries).
 */
export async function signalLinkOfPayment(linkId: string): Promise<void> {
  const accountId = await accountOf('payment_links', linkId);
  if (!accountId) return;
  await startOrSignal(paymentLinkContract, { id: linkId, accountId }, paymentLinkContract.signals.update);
}

/** Tells the payment workflows that their link ended (after the link's transaction committed). */
export async function signalLinkEndedToPayments(paymentIds: string[], accountId: string, reason: 'cancelled' | 'expired'): Promise<void> {
  for (const paymentId of paymentIds) {
    await startOrSignal(contractFor(await railOf(paymentId)), { id: paymentId, accountId }, linkEndedSignal, { reason });
  }
}

/**
 * The bridge reported a change of the pay-in transfer of cross-network payment `paymentId` (the
 * simulator or a provider callback): its watcher re-reads the bridge. False when no such payment.
 */
export async function signalBridgeUpdate(paymentId: string): Promise<boolean> {
  const rows: Array<{ account_id: string; payment_rail: string }> = await db().query(
    'SELECT account_id, payment_rail FROM payments WHERE id = $1',
    [paymentId],
  );
  if (!rows[0] || rows[0].payment_rail !== 'crypto_xchain') return false;
  await startOrSignal(xchainPaymentContract, { id: paymentId, accountId: rows[0].account_id }, xchainPaymentContract.signals.update);
  return true;
}

/** `signalLinkEndedToPayments` after a commit, best effort: a failure is logged, never thrown. */
export async function signalLinkEndedToPaymentsAfterCommit(
  paymentIds: string[],
  accountId: string,
  reason: 'cancelled' | 'expired',
): Promise<void> {
  if (!paymentIds.length) return;
  try {
    await signalLinkEndedToPayments(paymentIds, accountId, reason);
  } catch (e) {
    logger.error({ err: e, payment_ids: paymentIds }, 'could not signal payment workflows after the link ended');
  }
}

/**
 * Recovery after a crash between a commit and its workflow start: (re)starts the watcher of every
 * payment that still has something to watch (live: awaiting, underpaid; settleable: paid/overpaid
 * awaiting its wallet or bank settlement, a settlement payout in flight, a refund not yet sent, or unapplied
 * deposits, bank credits or returns), `batch` rows at a time. Idempotent by workflow
 * id. Returns how many.
 */
export async function ensurePaymentWorkflows(batch = 500): Promise<number> {
  let after = '';
  let n = 0;
  for (;;) {
    const rows: Array<{ id: string; account_id: string; payment_rail: string }> = await db().query(
      `SELECT p.id, p.account_id, p.payment_rail FROM payments p
        WHERE p.id > $1 AND (p.status IN (${sqlStatusList(LIVE_PAYMENT_STATUSES)})
           OR (p.status IN (${sqlStatusList(SETTLEABLE_PAYMENT_STATUSES)}) AND p.settlement IN ('wallet','bank'))
           OR p.settlement_rail_payment_id IS NOT NULL
           OR (p.status = 'refunded' AND (p.refund_rail_payment_id IS NULL OR p.refund_completed_at IS NULL))
           OR p.watcher_state IN ('recovery_required','source_seen','confirming')
           OR EXISTS (SELECT 1 FROM deposits d WHERE d.payment_id = p.id AND d.effect = 'pending')
           OR EXISTS (SELECT 1 FROM bank_credits b WHERE b.payment_id = p.id AND (b.effect = 'pending' OR (b.returned_at IS NOT NULL AND NOT b.return_applied))))
        ORDER BY p.id LIMIT $2`,
      [after, batch],
    );
    for (const r of rows) await startPaymentWorkflow(r.id, r.account_id, r.payment_rail);
    n += rows.length;
    if (rows.length < batch) return n;
    after = rows[rows.length - 1].id;
  }
}
