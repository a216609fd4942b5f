/**
 * Placing an order at its provider (spec 2.10 `offer_selection`, 4.9): the selected offer's
 * provider first; when its order API is out, the next unused, unexpired offer of the same quote
 * with the same payment method and network (best first) is claimed instead and the order records
 * which offer was selected and which executed. When no provider can place it, the order fails
 * (`provider_unavailable`), its offer is released for a new order, and the caller gets `503
 * temporarily_unavailable`. Each provider call is idempotent by the order id.
 */
import { DomainError } from '../../domain/errors';
import { assetDecimals } from '../../domain/quotes';
import { Order, QuoteOffer } from '../../entities';
import { db, transaction } from '../../lib/db';
import type { RequestRef } from '../../lib/outbox';
import { orderProviders, ProviderUnavailable, type PlacedOrder } from '../../providers/order-providers';
import { quoteProvider } from '../../providers/quote-providers';
import { awaitOrderPayment, failOrder, lockedOrder } from '../records/orders';

/** Records a placement: provider order id, observed rail (native provider only), checkout, instructions; `pending` -> `awaiting_payment`. */
async function recordPlacement(orderId: string, placed: PlacedOrder, request: RequestRef | null): Promise<Order> {
  return transaction(async (m) => {
    const o = await lockedOrder(m, orderId);
    if (o.provider_order_id) return o;
    o.provider_order_id = placed.providerOrderId;
    o.payment_rail = quoteProvider(o.provider)?.native ? placed.paymentRail : null;
    o.checkout_url = placed.checkout?.url ?? null;
    o.checkout_expires_at = placed.checkout?.expiresAt ?? null;
    o.bank_instructions = placed.bankInstructions;
    o.deposit_instructions = placed.deposit
      ? {
          address: placed.deposit.address,
          chain: placed.deposit.chain,
          asset: placed.deposit.asset,
          amountMinor: placed.deposit.amountMinor.toString(),
          decimals: placed.deposit.decimals,
          expiresAt: placed.deposit.expiresAt.toISOString(),
        }
      : null;
    await m.save(o);
    if (o.status === 'pending') await awaitOrderPayment(m, o, request);
    return o;
  });
}

/** Claims the next fallback offer for `o` (same quote, method and network; unused; unexpired; not `tried`), releasing the current one. */
async function claimFallback(orderId: string, tried: ReadonlySet<string>): Promise<Order | null> {
  return transaction(async (m) => {
    const o = await lockedOrder(m, orderId);
    const next = await m
      .createQueryBuilder(QuoteOffer, 'q')
      .setLock('pessimistic_write', undefined, ['q'])
      .setOnLocked('skip_locked')
      .where('q.quote_id = :quote', { quote: o.quote_id })
      .andWhere('q.order_id IS NULL')
      .andWhere('q.expires_at > now()')
      .andWhere('q.payment_method = :method', { method: o.payment_method })
      .andWhere(o.network === null ? 'q.network IS NULL' : 'q.network = :network', { network: o.network })
      .andWhere('q.id <> ALL(:tried)', { tried: [...tried, o.offer_id] })
      .orderBy('q.rank', 'ASC')
      .getOne();
    if (!next) return null;
    await m.update(QuoteOffer, { id: o.offer_id, order_id: o.id }, { order_id: null });
    next.order_id = o.id;
    await m.save(next);
    o.selected_offer_id ??= o.offer_id;
    o.selection_reason = 'selected_offer_unavailable';
    o.offer_id = next.id;
    o.provider = next.provider;
    o.final_in_minor = next.final_in_minor;
    o.final_out_minor = next.final_out_minor;
    o.fee_minor = next.fee_minor;
    await m.save(o);
    return o;
  });
}

/** No provider could place `orderId`: failed `provider_unavailable`, its offer released. */
async function failUnplaced(orderId: string, request: RequestRef | null): Promise<void> {
  await transaction(async (m) => {
    const o = await lockedOrder(m, orderId);
    if (o.provider_order_id || o.status !== 'pending') return;
    await m.update(QuoteOffer, { id: o.offer_id, order_id: o.id }, { order_id: null });
    await failOrder(m, o, { failureKind: 'provider_unavailable' }, request);
  });
}

/**
 * Places order `orderId` (see module comment). Returns the order as recorded after placement.
 * Throws `503 temporarily_unavailable` (details.order_id) when no provider could place it.
 */
export async function placeOrder(orderId: string, accountId: string, request: RequestRef | null): Promise<Order> {
  let o: Order | null = await db().getRepository(Order).findOneByOrFail({ id: orderId });
  const tried = new Set<string>();
  while (o) {
    tried.add(o.offer_id);
    if (o.provider_order_id || o.status !== 'pending') return o;
    try {
      const placed = await orderProviders().place({
        orderId: o.id,
        accountId,
        provider: o.provider,
        side: o.side,
        paymentMethod: o.payment_method,
        fromAsset: o.from_asset,
        toAsset: o.to_asset,
        network: o.network,
        finalInMinor: BigInt(o.final_in_minor),
        fromDecimals: assetDecimals(o.from_asset),
      });
      return await recordPlacement(o.id, placed, request);
    } catch (e) {
      if (!(e instanceof ProviderUnavailable)) throw e;
      o = await claimFallback(orderId, tried);
    }
  }
  await failUnplaced(orderId, request);
  throw new DomainError(
    'temporarily_unavailable',
    'temporarily_unavailable',
    'No provider can place this order right now; the offer is released: retry, or re-quote.',
    {
      details: { order_id: orderId },
    },
  );
}
