/**
 * Order projections (spec 2.10, 4.9): the order with its provider (identity and limits), the
 * "You pay / You receive" money lines (a leg is withheld, null, when its currency is outside the
 * currency registry of domain/money.ts and so cannot be verified), money state, failure,
 * instructions and payout destination. `next_action` is added only on create 201 and get by id
 * while a hosted checkout is open (absent, never null, otherwise); `offer_selection` only on the
 * create response when the executed offer is not the one selected.
 */
import Joi from 'joi';
import { FAILURE_REASONS, MONEY_STATUS } from '../domain/orders';
import { isKnownCurrency, type Money } from '../domain/money';
import { assetDecimals } from '../domain/quotes';
import type { OrderDeposit } from '../entities';
import type { Order } from '../entities';
import { providerIdentityResponse, providerView, type ProviderIdentity } from './quote';
import { at, atOrNull, kind, moneyOrNull, text, textOrNull } from './schema';
import { formatDecimal } from '../domain/quotes';
import type { OrdersCreate, OrdersGet, OrdersList } from './wire';

/** An order as lists and events carry it. */
export type OrderWire = OrdersList['data'][number];

/** A leg as Money, or null when its currency cannot be verified against the registry. */
function leg(minor: string, asset: string): Money | null {
  return isKnownCurrency(asset) ? { amount: minor, currency: asset, decimals: assetDecimals(asset) } : null;
}

/** A self-custody deposit (spec 2.1 DepositInstructions subset): where and what to send. */
function depositView(d: OrderDeposit, provider: string): NonNullable<OrderWire['deposit_instructions']> {
  return {
    address: d.address,
    chain: d.chain,
    asset: d.asset,
    amount: leg(d.amountMinor, d.asset),
    amount_decimal: formatDecimal(BigInt(d.amountMinor), d.decimals),
    expires_at: d.expiresAt,
    provider,
  };
}

const BANK_FIELDS = [
  'rail',
  'currency',
  'reference',
  'matching',
  'holder_kind',
  'bank_name',
  'beneficiary_name',
  'bank_address',
  'account_number',
  'routing_number',
  'sort_code',
  'iban',
  'bic',
  'clabe',
  'pix_key',
] as const;

/** The provider's receiving details, full and unmasked (spec 2.10), with the amount to send as Money. */
function bankView(b: Record<string, unknown>, currency: string): NonNullable<OrderWire['bank_deposit_instructions']> {
  const out = Object.fromEntries(BANK_FIELDS.map((k) => [k, typeof b[k] === 'string' ? b[k] : null])) as NonNullable<
    OrderWire['bank_deposit_instructions']
  >;
  out.amount = leg(String(b.amount ?? '0'), currency);
  return out;
}

/** True while the order's hosted checkout is open at `now`. */
export function checkoutOpen(order: Order, now = Date.now()): boolean {
  return (
    order.checkout_url !== null &&
    order.status === 'awaiting_payment' &&
    order.money_state === 'never_authorized' &&
    order.checkout_expires_at !== null &&
    order.checkout_expires_at.getTime() > now
  );
}

/** The order as lists and events carry it (no `next_action`, no `offer_selection`). */
export function orderView(order: Order, provider: ProviderIdentity): OrderWire {
  const awaiting = order.status === 'awaiting_payment' || order.status === 'pending';
  const dest = order.destination;
  return {
    object: 'order',
    id: order.id,
    livemode: order.livemode,
    quote_id: order.quote_id,
    offer_id: order.offer_id,
    provider: providerView(provider),
    side: order.side,
    payment_method: order.payment_method,
    payment_rail: order.payment_rail,
    network: order.network,
    amounts: {
      you_pay: leg(order.final_in_minor, order.from_asset),
      you_receive: leg(order.final_out_minor, order.to_asset),
      fee: leg(order.fee_minor, order.from_asset),
    },
    from_asset: order.from_asset,
    to_asset: order.to_asset,
    status: order.status,
    money_state: order.money_state,
    money_status: MONEY_STATUS[order.money_state],
    failure_kind: order.failure_kind,
    failure_reason: order.failure_kind ? FAILURE_REASONS[order.failure_kind] : null,
    return_reason: order.return_reason,
    purpose: order.purpose,
    payment_link_id: order.payment_link_id,
    payment_id: order.payment_id,
    deposit_instructions: awaiting && order.deposit_instructions ? depositView(order.deposit_instructions, order.provider) : null,
    bank_deposit_instructions: awaiting && order.bank_instructions ? bankView(order.bank_instructions, order.from_asset) : null,
    payout_destination:
      dest.kind === 'crypto'
        ? {
            type: 'crypto',
            chain: dest.chain,
            address: dest.address,
            tx_hash: dest.tx_hash,
            address_book_entry_id: dest.address_book_entry_id,
          }
        : {
            type: 'bank',
            address_book_entry_id: dest.address_book_entry_id,
            rail: dest.rail,
            currency: dest.currency,
            bank_account: dest.masked,
          },
    refund_address: order.refund_address,
    created_at: order.created_at.toISOString(),
    updated_at: order.updated_at.toISOString(),
    completed_at: order.completed_at?.toISOString() ?? null,
    cancelled_at: order.cancelled_at?.toISOString() ?? null,
    failed_at: order.failed_at?.toISOString() ?? null,
    refunded_at: order.refunded_at?.toISOString() ?? null,
  };
}

/** The order as `GET /orders/{id}` returns it: `next_action` while the hosted checkout is open. */
export function orderDetailView(order: Order, provider: ProviderIdentity, now = Date.now()): OrdersGet {
  const v: OrdersGet = orderView(order, provider);
  if (checkoutOpen(order, now))
    v.next_action = {
      type: 'redirect_to_url',
      redirect_to_url: { url: order.checkout_url! },
      expires_at: order.checkout_expires_at!.toISOString(),
    };
  return v;
}

/** The create response: the detail view plus `offer_selection` when another offer was executed. */
export function orderCreatedView(order: Order, provider: ProviderIdentity): OrdersCreate {
  const v: OrdersCreate = orderDetailView(order, provider);
  if (order.selected_offer_id && order.selected_offer_id !== order.offer_id) {
    v.offer_selection = {
      selected_offer_id: order.selected_offer_id,
      executed_offer_id: order.offer_id,
      reason: order.selection_reason ?? 'selected_offer_unavailable',
    };
  }
  return v;
}

const depositInstructionsResponse = Joi.object({
  address: text(),
  chain: text(),
  asset: text(),
  amount: moneyOrNull(),
  amount_decimal: text(),
  expires_at: at(),
  provider: text(),
});

/** Response schema of `orderView` (lists, events). */
export const orderResponse = Joi.object({
  object: kind('order'),
  id: text(),
  livemode: Joi.boolean().required(),
  quote_id: text(),
  offer_id: text(),
  provider: providerIdentityResponse.required(),
  side: Joi.string().valid('buy', 'sell', 'swap').required(),
  payment_method: text(),
  payment_rail: textOrNull(),
  network: textOrNull(),
  amounts: Joi.object({ you_pay: moneyOrNull(), you_receive: moneyOrNull(), fee: moneyOrNull() }).required(),
  from_asset: text(),
  to_asset: text(),
  status: Joi.string().valid('pending', 'awaiting_payment', 'processing', 'completed', 'failed', 'cancelled', 'refunded').required(),
  money_state: Joi.string().valid('never_authorized', 'hold_placed', 'captured', 'released', 'refunded').required(),
  money_status: text(),
  failure_kind: textOrNull(),
  failure_reason: textOrNull(),
  return_reason: textOrNull(),
  purpose: Joi.string().valid('direct', 'payment_link_pay_in', 'payout_funding').required(),
  payment_link_id: textOrNull(),
  payment_id: textOrNull(),
  deposit_instructions: depositInstructionsResponse.allow(null).required(),
  bank_deposit_instructions: Joi.object({
    rail: text(),
    currency: text(),
    reference: textOrNull(),
    matching: textOrNull(),
    holder_kind: textOrNull(),
    bank_name: textOrNull(),
    beneficiary_name: textOrNull(),
    bank_address: textOrNull(),
    account_number: textOrNull(),
    routing_number: textOrNull(),
    sort_code: textOrNull(),
    iban: textOrNull(),
    bic: textOrNull(),
    clabe: textOrNull(),
    pix_key: textOrNull(),
    amount: moneyOrNull(),
  })
    .allow(null)
    .required(),
  payout_destination: Joi.alternatives(
    Joi.object({ type: kind('crypto'), chain: text(), address: text(), tx_hash: textOrNull(), address_book_entry_id: textOrNull() }),
    Joi.object({
      type: kind('bank'),
      address_book_entry_id: text(),
      rail: textOrNull(),
      currency: textOrNull(),
      bank_account: Joi.object().unknown(true).allow(null).required(),
    }),
  ).required(),
  refund_address: textOrNull(),
  created_at: at(),
  updated_at: at(),
  completed_at: atOrNull(),
  cancelled_at: atOrNull(),
  failed_at: atOrNull(),
  refunded_at: atOrNull(),
});

const nextAction = Joi.object({ type: kind('redirect_to_url'), redirect_to_url: Joi.object({ url: text() }).required(), expires_at: at() });

/** Response schema of `orderDetailView`. */
export const orderDetailResponse = orderResponse.keys({ next_action: nextAction });

/** Response schema of `orderCreatedView`. */
export const orderCreatedResponse = orderDetailResponse.keys({
  offer_selection: Joi.object({ selected_offer_id: text(), executed_offer_id: text(), reason: text() }),
});
