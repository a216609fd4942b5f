/**
 * Outbox events of a payment link (spec 6): `data.object` is the link's wire view
 * (views/payment-link.ts). Shared records (activities/records/): written by the link's own commands
 * and activities and by a payment moving its link (activities/payments/links.ts).
 */
import type { EntityManager } from 'typeorm';
import type { PaymentLink } from '../../entities';
import { emitEvent, emitEventNonBlocking, type RequestRef } from '../../lib/outbox';
import { linkViewContext } from '../../lib/rails-availability';
import { paymentLinkView } from '../../views/payment-link';

/** Emits a `payment_link.*` event of type `type` inside `m`. */
export async function emitLinkEvent(m: EntityManager, link: PaymentLink, type: string, request: RequestRef | null): Promise<void> {
  await emitLinkEvents(m, link, [type], request);
}

/** Emits one `payment_link.*` event per type (in order) inside `m`; nothing (and no view context read) for none. */
export async function emitLinkEvents(m: EntityManager, link: PaymentLink, types: string[], request: RequestRef | null): Promise<void> {
  if (!types.length) return;
  const vctx = await linkViewContext(link.account_id);
  for (const type of types) {
    await emitEvent(m, {
      accountId: link.account_id, livemode: link.livemode, type, objectType: 'payment_link', objectId: link.id,
      object: paymentLinkView(link, vctx), request,
    });
  }
}

/**
 * Emits a `payment_link.*` event without letting a failed insert block the state change
 * (lib/outbox.ts `emitEventNonBlocking`). Returns false when the event could not be written.
 */
export async function emitLinkEventNonBlocking(m: EntityManager, link: PaymentLink, type: string, request: RequestRef | null): Promise<boolean> {
  const vctx = await linkViewContext(link.account_id);
  const id = await emitEventNonBlocking(m, {
    accountId: link.account_id, livemode: link.livemode, type, objectType: 'payment_link', objectId: link.id,
    object: paymentLinkView(link, vctx), request,
  });
  return id !== null;
}
