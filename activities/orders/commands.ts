/**
 * Orders (spec 2.10, 4.9): `POST /orders` executes one offer of a quote, `POST /orders/{id}/cancel`
 * cancels an order before money moved. The body beyond `offer_id` (the spec leaves it open; see
 * docs/decisions/0049-quotes-and-orders.md): exactly one destination for what the buyer receives
 * (`destination_id`: an address-book entry, crypto on the offer's network for a buy or swap, bank
 * in the fiat currency for a sell; `wallet_address`: a raw address on the offer's network, buy or
 * swap; `payment_link_id`: a buy that pays a payment link's native pay-in), and `refund_address`
 * (sell, swap: where a self-custody deposit goes back).
 */
import { checkAddress, resolveChain } from '../../domain/addresses';
import { DomainError, invalidRequest } from '../../domain/errors';
import { cancelRefusal, type OrderPurpose } from '../../domain/orders';
import { AddressBookEntry, Order, PaymentLink, QuoteOffer, type OrderDestination } from '../../entities';
import { loadConfig } from '../../lib/config';
import { transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { scoped } from '../../lib/scoped';
import { chainAdapter } from '../../providers/chain';
import { CancelRefused, orderProviders, ProviderUnavailable } from '../../providers/order-providers';
import { createOrReuseNativePayment } from '../payments/commands';
import type { Scope } from '../scope';
import { placeOrder } from './placement';
import { applyProviderReport, emitOrderEvent, lockedOrder } from '../records/orders';
import { signalOrder } from './signals';

/** The body of `POST /orders` (shape validated by api/schemas/orders.ts). */
export interface CreateOrderBody {
  offer_id: string;
  destination_id?: string;
  wallet_address?: string;
  payment_link_id?: string;
  refund_address?: string;
}

const destinationError = (message: string, param = 'destination_id') => invalidRequest('destination_invalid', message, param);

/** The destination of a buy or swap: a crypto entry or raw address on the offer's network. */
function cryptoDestination(offer: QuoteOffer, b: CreateOrderBody, entry: AddressBookEntry | null): OrderDestination {
  const network = offer.network ?? '';
  if (entry) {
    if (entry.kind !== 'crypto')
      throw destinationError(`A ${offer.side} delivers crypto: the destination must be a crypto address-book entry.`);
    if (entry.chain !== network) throw destinationError(`The offer delivers on ${network}; entry ${entry.id} is on ${entry.chain}.`);
    return { kind: 'crypto', chain: network, address: entry.address!, tx_hash: null, address_book_entry_id: entry.id };
  }
  const chain = resolveChain(network);
  const check = chain
    ? checkAddress(chain, b.wallet_address!, loadConfig().network)
    : { ok: false as const, reason: `unknown network ${network}` };
  if (!check.ok)
    throw destinationError(`wallet_address is not an address on ${network}: ${'reason' in check ? check.reason : ''}.`, 'wallet_address');
  return { kind: 'crypto', chain: network, address: check.address, tx_hash: null, address_book_entry_id: null };
}

/** Resolves and checks the order's destination and purpose (400 `destination_invalid`, 404 for an unknown entry or link). */
async function destinationOf(
  scope: Scope,
  offer: QuoteOffer,
  b: CreateOrderBody,
): Promise<{ destination: OrderDestination; purpose: OrderPurpose; linkId: string | null; paymentId: string | null }> {
  const given = [b.destination_id, b.wallet_address, b.payment_link_id].filter((v) => v !== undefined).length;
  if (given !== 1) throw destinationError('Name exactly one of destination_id, wallet_address and payment_link_id.');
  if (b.refund_address !== undefined && offer.side === 'buy')
    throw invalidRequest(
      'refund_address_not_applicable',
      'A buy takes no refund_address: nothing is deposited in crypto.',
      'refund_address',
    );
  if (b.payment_link_id !== undefined) {
    const chain = chainAdapter();
    if (offer.side !== 'buy' || offer.network !== chain.chain || offer.to_asset !== chain.stablecoin) {
      throw destinationError(`Only a buy of ${chain.stablecoin} on ${chain.chain} can pay a payment link.`, 'payment_link_id');
    }
    const linkId = b.payment_link_id;
    const link = await scoped(scope).getOne(
      PaymentLink,
      { id: linkId },
      () => new DomainError('not_found', 'not_found', `No such payment link: ${linkId}.`, { param: 'payment_link_id' }),
    );
    const { payment } = await createOrReuseNativePayment(scope, { linkId: link.id, payer_email: null, payer_type: 'business' });
    return {
      destination: { kind: 'crypto', chain: chain.chain, address: payment.deposit_address!, tx_hash: null, address_book_entry_id: null },
      purpose: 'payment_link_pay_in',
      linkId: link.id,
      paymentId: payment.id,
    };
  }
  let entry: AddressBookEntry | null = null;
  if (b.destination_id !== undefined) {
    entry = await scoped(scope).findOne(AddressBookEntry, { id: b.destination_id });
    if (!entry || entry.deleted_at)
      throw new DomainError('not_found', 'not_found', `No such address-book entry: ${b.destination_id}.`, { param: 'destination_id' });
  }
  if (offer.side === 'sell') {
    if (!entry)
      throw destinationError(
        'A sell pays a bank account: name a bank address-book entry in destination_id.',
        b.wallet_address !== undefined ? 'wallet_address' : 'destination_id',
      );
    if (entry.kind !== 'bank' || !entry.beneficiary_masked)
      throw destinationError(`A sell pays a bank account: entry ${entry.id} is not a bank entry with details.`);
    if (entry.bank_currency !== offer.to_asset)
      throw destinationError(`The offer pays ${offer.to_asset}; entry ${entry.id} receives ${entry.bank_currency}.`);
    return {
      destination: {
        kind: 'bank',
        address_book_entry_id: entry.id,
        rail: entry.bank_rail,
        currency: entry.bank_currency,
        masked: entry.beneficiary_masked as unknown as Record<string, unknown>,
      },
      purpose: 'direct',
      linkId: null,
      paymentId: null,
    };
  }
  return { destination: cryptoDestination(offer, b, entry), purpose: 'direct', linkId: null, paymentId: null };
}

/**
 * `POST /orders` (spec 4.9): claims the offer (404 param `offer_id`; `409 conflict`
 * `offer_already_used` with details.order_id, `offer_expired`), records the order (`pending`,
 * `order.created`) in one transaction, places it at the provider (falling back to the next offer
 * when the provider is out: `offer_selection`; 503 when none can), then starts its workflow.
 */
export async function createOrder(scope: Scope, createOrderBody: CreateOrderBody): Promise<Order> {
  const offerNotFound = () =>
    new DomainError('not_found', 'not_found', `No such offer: ${createOrderBody.offer_id}.`, { param: 'offer_id' });
  const preview = await scoped(scope).getOne(QuoteOffer, { id: createOrderBody.offer_id }, offerNotFound);
  const dest = await destinationOf(scope, preview, createOrderBody);
  if (createOrderBody.refund_address !== undefined) {
    const chain = resolveChain(preview.network ?? '');
    const check = chain ? checkAddress(chain, createOrderBody.refund_address, loadConfig().network) : null;
    if (!check || !check.ok)
      throw invalidRequest('refund_address_invalid', `refund_address is not an address on ${preview.network}.`, 'refund_address');
  }
  const order = await transaction(async (m) => {
    const offer = await scoped(scope, m).lock(QuoteOffer, { id: createOrderBody.offer_id }, offerNotFound);
    if (offer.order_id)
      throw new DomainError(
        'conflict',
        'offer_already_used',
        `Offer ${offer.id} was already executed by order ${offer.order_id}; request a new quote.`,
        { param: 'offer_id', details: { order_id: offer.order_id } },
      );
    if (offer.expires_at.getTime() <= Date.now())
      throw new DomainError(
        'conflict',
        'offer_expired',
        `Offer ${offer.id} expired at ${offer.expires_at.toISOString()}; request a new quote.`,
        { param: 'offer_id' },
      );
    const id = newId('ord_');
    offer.order_id = id;
    await m.save(offer);
    const o = m.create(Order, {
      id,
      account_id: scope.accountId,
      livemode: scope.livemode,
      quote_id: offer.quote_id,
      offer_id: offer.id,
      selected_offer_id: null,
      selection_reason: null,
      provider: offer.provider,
      side: offer.side,
      from_asset: offer.from_asset,
      to_asset: offer.to_asset,
      payment_method: offer.payment_method,
      payment_rail: null,
      network: offer.network,
      final_in_minor: offer.final_in_minor,
      final_out_minor: offer.final_out_minor,
      fee_minor: offer.fee_minor,
      status: 'pending',
      money_state: 'never_authorized',
      failure_kind: null,
      return_reason: null,
      purpose: dest.purpose,
      payment_link_id: dest.linkId,
      payment_id: dest.paymentId,
      destination: dest.destination,
      refund_address: createOrderBody.refund_address?.trim() ?? null,
      provider_order_id: null,
      checkout_url: null,
      checkout_expires_at: null,
      bank_instructions: null,
      deposit_instructions: null,
      completed_at: null,
      cancelled_at: null,
      failed_at: null,
      refunded_at: null,
    });
    await m.save(o);
    await emitOrderEvent(m, o, 'order.created', scope.request);
    return o;
  });
  const placed = await placeOrder(order.id, scope.accountId, scope.request);
  await signalOrder(placed.id, scope.accountId);
  return placed;
}

/**
 * `POST /orders/{id}/cancel` of order `input.id` (404 param `id`; spec 4.9): refusals first (domain cancelRefusal: `409
 * order_not_cancellable` with money held or captured, `payment_link_pay_in`, `cancel_unavailable`
 * for a payout's funding), then the provider (`409 cancel_unavailable` when it refuses, `503
 * temporarily_unavailable` when it is out), then `cancelled` with `order.status_changed` and
 * `order.cancelled`. A cancelled order answers as it is (idempotent).
 */
export async function cancelOrder(scope: Scope, input: { id: string }): Promise<Order> {
  const { id } = input;
  const current = await transaction((m) => lockedOrder(m, id, scope));
  if (current.status === 'cancelled') return current;
  const refuse = (r: { code: string; message: string }) =>
    new DomainError('conflict', r.code, r.message, { details: { status: current.status, money_state: current.money_state } });
  const refusal = cancelRefusal({ status: current.status, moneyState: current.money_state, purpose: current.purpose });
  if (refusal) throw refuse(refusal);
  let report;
  try {
    report = await orderProviders().cancel(id, scope.accountId);
  } catch (e) {
    if (e instanceof ProviderUnavailable)
      throw new DomainError('temporarily_unavailable', 'temporarily_unavailable', 'The provider cannot take the cancel right now; retry.', {
        details: { order_id: id },
      });
    if (e instanceof CancelRefused) throw new DomainError('conflict', 'cancel_unavailable', e.message, { details: { order_id: id } });
    throw e;
  }
  const o = await transaction(async (m) => applyProviderReport(m, await lockedOrder(m, id, scope), report, scope.request));
  await signalOrder(o.id, scope.accountId);
  return o;
}
