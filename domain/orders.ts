/**
 * Orders (spec 2.10, 3, 4.9): an offer executed at its provider. The status table, the money
 * state, the seven normalized failure kinds with their safe copy, and how a provider's report
 * maps onto the order. The spec leaves the full status list and the failure kinds open; the
 * choices are recorded in docs/decisions/0049-quotes-and-orders.md.
 *
 * Pure: no I/O. Safe to import from workflows.
 */
import { transitionTable } from './transitions';

/**
 * `pending` (placed, the provider has not answered with how to pay) -> `awaiting_payment` (a
 * hosted checkout is open, or a bank payment or crypto deposit is awaited) -> `processing` (the
 * money is captured; the provider converts and delivers) -> `completed`. `failed` from any open
 * status; `cancelled` before money moved; `refunded` after money was captured (from processing,
 * completed or failed).
 */
export const ORDER_STATUSES = Object.freeze([
  'pending',
  'awaiting_payment',
  'processing',
  'completed',
  'failed',
  'cancelled',
  'refunded',
] as const);
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Statuses an order's workflow still follows (the table's open set; its recovery sweep restarts them). */
export const OPEN_ORDER_STATUSES: readonly OrderStatus[] = Object.freeze(['pending', 'awaiting_payment', 'processing'] as const);

export const orderTransitions = transitionTable<OrderStatus>(
  'order',
  {
    pending: ['awaiting_payment', 'processing', 'failed', 'cancelled'],
    awaiting_payment: ['processing', 'failed', 'cancelled'],
    processing: ['completed', 'failed', 'refunded'],
    completed: ['refunded'],
    failed: ['refunded'],
    cancelled: [],
    refunded: [],
  },
  'order_state_changed',
  { open: OPEN_ORDER_STATUSES },
);

export const isOpenOrder = (orderStatus: OrderStatus): boolean => OPEN_ORDER_STATUSES.includes(orderStatus);

/**
 * Where the payer's money is (spec 2.10 `money_state`): `never_authorized` (nothing held or
 * taken), `hold_placed` (a card hold), `captured` (taken), `released` (a hold let go without
 * capture), `refunded` (taken, then given back).
 */
export const MONEY_STATES = Object.freeze(['never_authorized', 'hold_placed', 'captured', 'released', 'refunded'] as const);
export type MoneyState = (typeof MONEY_STATES)[number];

/** `money_status`: the payer-facing sentence of a money state (safe copy). */
export const MONEY_STATUS: Readonly<Record<MoneyState, string>> = Object.freeze({
  never_authorized: 'No money has been taken.',
  hold_placed: 'The payment is authorized and held; it has not been taken yet.',
  captured: 'The payment has been taken.',
  released: 'The hold was released; no money was taken.',
  refunded: 'The payment was refunded.',
});

/**
 * The seven normalized failure kinds (spec 2.10 `failure_kind`) with their safe copy
 * (`failure_reason`); the provider's own text never reaches `failure_reason`.
 */
export const FAILURE_REASONS = Object.freeze({
  payment_declined: 'The payment method was declined.',
  payment_expired: 'The payment was not completed in time.',
  verification_failed: 'The provider could not verify the buyer.',
  limit_exceeded: "The amount is outside the provider's limits for this buyer.",
  provider_unavailable: 'The provider could not process the order.',
  delivery_failed: 'The provider could not deliver the funds to the destination.',
  price_changed: 'The price moved beyond what the offer allowed.',
} as const);
export type OrderFailureKind = keyof typeof FAILURE_REASONS;
export const FAILURE_KINDS = Object.freeze(Object.keys(FAILURE_REASONS) as OrderFailureKind[]);

/**
 * What an order is for: `direct` (the caller's own buy, sell or swap), `payment_link_pay_in` (a buy
 * that pays a payment link's pay-in: cancelled only through the link), `payout_funding` (an order
 * that funds a payout: cancelled only through the payout).
 */
export const ORDER_PURPOSES = Object.freeze(['direct', 'payment_link_pay_in', 'payout_funding'] as const);
export type OrderPurpose = (typeof ORDER_PURPOSES)[number];

/** A provider's report of its order (providers/order-providers.ts). */
export interface ProviderOrderReport {
  state: 'awaiting_payment' | 'authorized' | 'captured' | 'completed' | 'failed' | 'refunded' | 'cancelled' | 'expired';
  /** Set on `failed`: the provider's normalized kind. */
  failureKind: OrderFailureKind | null;
  /** The provider's own text (returns, refunds, failures). */
  providerReason: string | null;
  /** Set once the money was captured. */
  captured: boolean;
  /** The delivery's tx hash (crypto destinations). */
  deliveryTxHash: string | null;
}

/** The order status, money state and failure a provider report implies, given the current order. */
export function orderAfterReport(
  cur: { status: OrderStatus; moneyState: MoneyState },
  providerOrderReport: ProviderOrderReport,
): {
  status: OrderStatus;
  moneyState: MoneyState;
  failureKind: OrderFailureKind | null;
} {
  const captured = providerOrderReport.captured || cur.moneyState === 'captured' || cur.moneyState === 'refunded';
  switch (providerOrderReport.state) {
    case 'awaiting_payment':
      return { status: cur.status === 'pending' ? 'awaiting_payment' : cur.status, moneyState: cur.moneyState, failureKind: null };
    case 'authorized':
      return { status: cur.status === 'pending' ? 'awaiting_payment' : cur.status, moneyState: 'hold_placed', failureKind: null };
    case 'captured':
      return { status: 'processing', moneyState: 'captured', failureKind: null };
    case 'completed':
      return { status: 'completed', moneyState: 'captured', failureKind: null };
    case 'refunded':
      return { status: 'refunded', moneyState: 'refunded', failureKind: null };
    case 'cancelled':
      return { status: 'cancelled', moneyState: cur.moneyState === 'hold_placed' ? 'released' : cur.moneyState, failureKind: null };
    case 'expired':
      return {
        status: 'failed',
        moneyState: cur.moneyState === 'hold_placed' ? 'released' : cur.moneyState,
        failureKind: 'payment_expired',
      };
    case 'failed':
      return {
        status: 'failed',
        moneyState: captured ? 'captured' : cur.moneyState === 'hold_placed' ? 'released' : cur.moneyState,
        failureKind: providerOrderReport.failureKind ?? 'provider_unavailable',
      };
  }
}

/**
 * The cancel refusal of spec 4.9 for an order, or null when the provider may be asked: money held
 * or taken (`order_not_cancellable`, details.money_state), a link pay-in (`payment_link_pay_in`),
 * a payout's funding (`cancel_unavailable`: cancel through the payout), a closed order
 * (`order_not_cancellable`).
 */
export function cancelRefusal(options: {
  status: OrderStatus;
  moneyState: MoneyState;
  purpose: OrderPurpose;
}): { code: string; message: string } | null {
  if (options.purpose === 'payment_link_pay_in')
    return { code: 'payment_link_pay_in', message: 'This order pays a payment link; cancel the payment link instead.' };
  if (options.purpose === 'payout_funding')
    return { code: 'cancel_unavailable', message: 'This order funds a payout; cancel the payout instead.' };
  if (options.moneyState === 'hold_placed' || options.moneyState === 'captured') {
    return {
      code: 'order_not_cancellable',
      message: `Money is ${options.moneyState === 'captured' ? 'captured' : 'on hold'} for this order; it can no longer be cancelled.`,
    };
  }
  if (!(options.status === 'pending' || options.status === 'awaiting_payment'))
    return { code: 'order_not_cancellable', message: `This order is ${options.status} and can no longer be cancelled.` };
  return null;
}
