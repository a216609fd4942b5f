/**
 * The payment link's record module (spec 3 "Payment link", part 6): its outbox events
 * (`data.object` is the link's wire view, views/payment-link.ts) and one named function per
 * transition. Each moves `status` through domain/payment-links.ts `paymentLinkTransitions`, sets
 * the fields that move with it (`activated_at`, `cancelled_at`, `partial_payment`,
 * `latest_attempt_status`, ...), saves the link in the caller's manager `m` and writes the
 * transition's `payment_link.*` event there. Used by the link's own commands and activities and by
 * a payment moving its link (activities/payments/links.ts); the callers signal workflows.
 */
import type { EntityManager } from 'typeorm';
import { paymentLinkTransitions } from '../../domain/payment-links';
import { linkStatusAfterPayment, type PaymentStatus } from '../../domain/verdicts';
import { type Payment, PaymentLink } from '../../entities';
import { emitEvent, emitEventNonBlocking, type RequestRef } from '../../lib/outbox';
import { linkViewContext } from '../../lib/rails-availability';
import { randomToken } from '../../lib/secrets';
import { paymentLinkView } from '../../views/payment-link';

/** Emits a `payment_link.*` event of type `type` inside `m`. */
export async function emitLinkEvent(manager: EntityManager, link: PaymentLink, type: string, request: RequestRef | null): Promise<void> {
  await emitLinkEvents(manager, link, [type], request);
}

/** Emits one `payment_link.*` event per type (in order) inside `m`; nothing (and no view context read) for none. */
export async function emitLinkEvents(
  manager: EntityManager,
  link: PaymentLink,
  types: string[],
  request: RequestRef | null,
): Promise<void> {
  if (!types.length) return;
  const vctx = await linkViewContext(link.account_id);
  for (const type of types) {
    await emitEvent(manager, {
      accountId: link.account_id,
      livemode: link.livemode,
      type,
      objectType: 'payment_link',
      objectId: link.id,
      object: paymentLinkView(link, vctx),
      request,
    });
  }
}

/**
 * Emits a `payment_link.*` event without letting a failed insert block the state change
 * (lib/outbox.ts `emitEventNonBlocking`). Returns false when the event could not be written.
 */
export async function emitLinkEventNonBlocking(
  manager: EntityManager,
  link: PaymentLink,
  type: string,
  request: RequestRef | null,
): Promise<boolean> {
  const vctx = await linkViewContext(link.account_id);
  const id = await emitEventNonBlocking(manager, {
    accountId: link.account_id,
    livemode: link.livemode,
    type,
    objectType: 'payment_link',
    objectId: link.id,
    object: paymentLinkView(link, vctx),
    request,
  });
  return id !== null;
}

/**
 * Activates a draft link (spec 3 draft -> active): a new payer token, the settlement shape
 * `change` names, `direction` inbound, `activated_at` now; emits `payment_link.activated`.
 * Returns the link as stored. Throws IllegalTransition (409) from another status.
 */
export async function activatePaymentLink(
  manager: EntityManager,
  link: PaymentLink,
  change: { settlementKind: PaymentLink['settlement_kind']; settlementAsset: PaymentLink['settlement_asset'] },
  request: RequestRef | null,
): Promise<PaymentLink> {
  paymentLinkTransitions.move(link, 'active');
  link.payer_token = randomToken('plk_', 32);
  link.settlement_kind = change.settlementKind;
  link.settlement_asset = change.settlementAsset;
  link.direction = 'inbound';
  link.activated_at = new Date();
  await manager.save(link);
  const saved = await manager.findOneByOrFail(PaymentLink, { id: link.id });
  await emitLinkEvent(manager, saved, 'payment_link.activated', request);
  return saved;
}

/**
 * Ends a link (spec 3 -> cancelled or expired): `cancelled_at` now or `expired_at` = `change.at`,
 * `partial_payment` cleared, then `change.closePayments` closes its live payments in the same
 * manager (their events come first), then `payment_link.cancelled` / `payment_link.expired` is
 * emitted without letting a failed emit block the end (spec 6). Returns the stored link and the
 * ids `closePayments` answered.
 */
async function endPaymentLink(
  m: EntityManager,
  link: PaymentLink,
  to: 'cancelled' | 'expired',
  at: Date,
  closePayments: (link: PaymentLink) => Promise<{ paymentIds: string[] }>,
  request: RequestRef | null,
): Promise<{ link: PaymentLink; paymentIds: string[] }> {
  paymentLinkTransitions.move(link, to);
  if (to === 'cancelled') link.cancelled_at = at;
  else link.expired_at = at;
  link.partial_payment = null;
  await m.save(link);
  const { paymentIds } = await closePayments(link);
  const saved = await m.findOneByOrFail(PaymentLink, { id: link.id });
  await emitLinkEventNonBlocking(m, saved, `payment_link.${to}`, request);
  return { link: saved, paymentIds };
}

/** Cancels a link (spec 3, 4.1): see `endPaymentLink`; `cancelled_at` now. */
export async function cancelPaymentLink(
  manager: EntityManager,
  link: PaymentLink,
  change: { closePayments: (link: PaymentLink) => Promise<{ paymentIds: string[] }> },
  request: RequestRef | null,
): Promise<{ link: PaymentLink; paymentIds: string[] }> {
  return endPaymentLink(manager, link, 'cancelled', new Date(), change.closePayments, request);
}

/** Expires a link at the workflow's time `change.at` (spec 3): see `endPaymentLink`. */
export async function expirePaymentLink(
  manager: EntityManager,
  link: PaymentLink,
  change: { at: Date; closePayments: (link: PaymentLink) => Promise<{ paymentIds: string[] }> },
  request: RequestRef | null,
): Promise<{ link: PaymentLink; paymentIds: string[] }> {
  return endPaymentLink(manager, link, 'expired', change.at, change.closePayments, request);
}

/**
 * The payer's first view (spec 4.1): `viewed_at` now, active -> viewed (another status keeps its
 * own), `payment_link.viewed`. Nothing when the link was already viewed.
 */
export async function markPaymentLinkViewed(manager: EntityManager, link: PaymentLink, request: RequestRef | null): Promise<void> {
  if (link.viewed_at) return;
  link.viewed_at = new Date();
  if (link.status === 'active') paymentLinkTransitions.move(link, 'viewed');
  await manager.save(link);
  await emitLinkEvents(manager, link, ['payment_link.viewed'], request);
}

/**
 * Refunds a paid or settled link (spec 3 -> refunded): `refunded_at` = the payment's,
 * `partial_payment` cleared, `latest_attempt_status` refunded; emits `payment_link.refunded`.
 * Returns the link as stored.
 */
export async function refundPaymentLink(
  manager: EntityManager,
  link: PaymentLink,
  change: { refundedAt: Date | null },
  request: RequestRef | null,
): Promise<PaymentLink> {
  paymentLinkTransitions.move(link, 'refunded');
  link.refunded_at = change.refundedAt;
  link.partial_payment = null;
  link.latest_attempt_status = 'refunded';
  await manager.save(link);
  const saved = await manager.findOneByOrFail(PaymentLink, { id: link.id });
  await emitLinkEvent(manager, saved, 'payment_link.refunded', request);
  return saved;
}

/** Records a new payment attempt's status on its link (`latest_attempt_status`, spec 3); no event. */
export async function recordPaymentLinkAttempt(
  manager: EntityManager,
  link: PaymentLink,
  change: { status: PaymentStatus },
): Promise<void> {
  link.latest_attempt_status = change.status;
  await manager.save(link);
}

/**
 * Moves `link` after its current payment reached `payment.status` (domain `linkStatusAfterPayment`):
 * `latest_attempt_status`, the status through the table when it changes, `partial_payment` set
 * (with the payment's last short deposit) or cleared, `paid_at` / `settled_at`; saves and emits the
 * verdict's `payment_link.*` events. Returns whether the status changed.
 */
export async function movePaymentLinkAfterPayment(
  manager: EntityManager,
  link: PaymentLink,
  payment: Payment,
  request: RequestRef | null,
): Promise<{ changed: boolean }> {
  const t = linkStatusAfterPayment(link.status, payment.status, link.partial_payment !== null);
  link.latest_attempt_status = payment.status;
  const changed = t.status !== link.status;
  if (changed) paymentLinkTransitions.move(link, t.status);
  if (t.partialPayment === 'set') {
    link.partial_payment = {
      payment_id: payment.id,
      received: payment.last_short_deposit_minor
        ? { amount: payment.last_short_deposit_minor, currency: payment.currency, decimals: payment.decimals }
        : null,
    };
  } else if (t.partialPayment === 'clear') link.partial_payment = null;
  if (t.status === 'paid' && !link.paid_at) link.paid_at = payment.paid_at ?? new Date();
  if (t.status === 'settled') {
    if (!link.paid_at) link.paid_at = payment.paid_at ?? new Date();
    link.settled_at = payment.settled_at ?? new Date();
  }
  await manager.save(link);
  await emitLinkEvents(manager, link, t.events, request);
  return { changed };
}
