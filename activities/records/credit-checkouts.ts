/**
 * Credit checkout records (spec 4.10 `/credit_checkouts`, 8 "Credit packs", 6 `credit.purchased`):
 * the locked read and one function per transition of domain/credits.ts
 * `creditCheckoutTransitions`, each moving the checkout with the fields (and the event) that move
 * with its status, in the caller's transaction. A move the table refuses throws IllegalTransition.
 */
import type { EntityManager } from 'typeorm';
import { creditCheckoutTransitions } from '../../domain/credits';
import { CreditCheckout, type CreditEventRow } from '../../entities';
import { emitEvent } from '../../lib/outbox';
import { moveRows } from '../../lib/status-writes';
import { creditEventView } from '../../views/credits';

/** Locks (`FOR UPDATE`) checkout `id`; null when absent. */
export async function lockCreditCheckout(manager: EntityManager, id: string): Promise<CreditCheckout | null> {
  return manager.findOne(CreditCheckout, { where: { id }, lock: { mode: 'pessimistic_write' } });
}

/** `open` -> `failed` (`provider_error`) in SQL for checkout `checkoutId` whose hosted session could not be opened; a checkout already moved is left as is. */
export async function failUnopenedCreditCheckout(manager: Pick<EntityManager, 'query'>, checkoutId: string): Promise<void> {
  await moveRows(manager, creditCheckoutTransitions, {
    sqlTable: 'credit_checkouts',
    where: 'id = $1',
    params: [checkoutId],
    to: 'failed',
    from: ['open'],
    set: `failure_reason = 'provider_error', updated_at = now()`,
  });
}

/** `open` -> `failed` (`payment_failed`) or `expired` (`session_expired`) as the provider reported. */
export async function closeCreditCheckout(
  manager: EntityManager,
  checkout: CreditCheckout,
  change: { outcome: 'failed' | 'expired' },
): Promise<CreditCheckout> {
  creditCheckoutTransitions.move(checkout, change.outcome);
  checkout.failure_reason = change.outcome === 'failed' ? 'payment_failed' : 'session_expired';
  return manager.save(checkout);
}

/** -> `failed` (`amount_mismatch`, for review): the provider captured another amount; a checkout already `failed` stays so, with this reason. */
export async function failMismatchedCreditCheckout(manager: EntityManager, checkout: CreditCheckout): Promise<CreditCheckout> {
  if (checkout.status !== 'failed') creditCheckoutTransitions.move(checkout, 'failed');
  checkout.failure_reason = 'amount_mismatch';
  return manager.save(checkout);
}

/** -> `completed`, stamping `completed_at`, with `credit.purchased` about the purchase's ledger row `change.event`. */
export async function completeCreditCheckout(
  manager: EntityManager,
  checkout: CreditCheckout,
  change: { event: CreditEventRow },
): Promise<CreditCheckout> {
  creditCheckoutTransitions.move(checkout, 'completed');
  checkout.completed_at = new Date();
  checkout.failure_reason = null;
  const saved = await manager.save(checkout);
  await emitEvent(manager, {
    accountId: checkout.account_id,
    livemode: checkout.livemode,
    type: 'credit.purchased',
    objectType: 'credit_event',
    objectId: change.event.id,
    object: creditEventView(change.event),
    relatedIds: [checkout.id],
    request: null,
  });
  return saved;
}
