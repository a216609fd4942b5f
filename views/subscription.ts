/**
 * Subscription projections (spec 4.2; fields designed in docs/decisions/0050-subscriptions.md): the
 * subscription (its plan, settlement destination, status and billing position) and its invoices
 * (period, amount, status, the pay-in's deposit instructions while it can be paid).
 */
import Joi from 'joi';
import type { Payment, Subscription, SubscriptionInvoice } from '../entities';
import { depositInstructionsResponse, depositInstructionsView, type PaymentChain } from './payment';
import { at, atOrNull, int, intOrNull, kind, money, moneyOrNull, text, textOrNull } from './schema';
import type { SubscriptionsCreate, SubscriptionsInvoicesGet } from './wire';

/** The subscription; `nextInvoiceAtMs` is the start of the next period it will bill (null when none). */
export function subscriptionView(
  subscription: Subscription,
  nextInvoiceAtMs: number | null,
  currentPeriod: { startMs: number; endMs: number } | null,
): SubscriptionsCreate {
  return {
    object: 'subscription',
    id: subscription.id,
    livemode: subscription.livemode,
    client_id: subscription.client_id,
    description: subscription.description,
    amount: { amount: subscription.amount_minor, currency: subscription.currency, decimals: subscription.decimals },
    interval: subscription.interval,
    interval_count: subscription.interval_count,
    billing_cycle_anchor: subscription.billing_cycle_anchor.toISOString(),
    cycles: subscription.cycles,
    grace_period_days: subscription.grace_period_days,
    settlement_destination: {
      type: 'address_book',
      address_book_entry_id: subscription.settlement_destination_id,
      chain: subscription.settlement_chain,
      address: subscription.settlement_address,
    },
    status: subscription.status,
    periods_billed: subscription.next_period - subscription.skipped_periods,
    periods_skipped: subscription.skipped_periods,
    current_period_start: currentPeriod ? new Date(currentPeriod.startMs).toISOString() : null,
    current_period_end: currentPeriod ? new Date(currentPeriod.endMs).toISOString() : null,
    next_invoice_at: nextInvoiceAtMs === null ? null : new Date(nextInvoiceAtMs).toISOString(),
    paused_at: subscription.paused_at?.toISOString() ?? null,
    cancelled_at: subscription.cancelled_at?.toISOString() ?? null,
    ended_at: subscription.ended_at?.toISOString() ?? null,
    created_at: subscription.created_at.toISOString(),
  };
}

/** One invoice with its pay-in (`payment`); deposit instructions only while the invoice can be paid. */
export function invoiceView(
  subscriptionInvoice: SubscriptionInvoice,
  payment: Payment | null,
  chain: PaymentChain,
): SubscriptionsInvoicesGet {
  const payable = subscriptionInvoice.status === 'open' || subscriptionInvoice.status === 'overdue';
  return {
    object: 'subscription_invoice',
    id: subscriptionInvoice.id,
    subscription_id: subscriptionInvoice.subscription_id,
    livemode: subscriptionInvoice.livemode,
    number: subscriptionInvoice.number,
    period_start: subscriptionInvoice.period_start.toISOString(),
    period_end: subscriptionInvoice.period_end.toISOString(),
    amount: { amount: subscriptionInvoice.amount_minor, currency: subscriptionInvoice.currency, decimals: subscriptionInvoice.decimals },
    amount_received: payment ? { amount: payment.amount_received_minor, currency: payment.currency, decimals: payment.decimals } : null,
    status: subscriptionInvoice.status,
    payment_id: subscriptionInvoice.payment_id,
    payment_status: payment?.status ?? null,
    deposit_instructions: payable && payment ? depositInstructionsView(payment, chain) : null,
    issued_at: subscriptionInvoice.issued_at.toISOString(),
    due_at: subscriptionInvoice.due_at.toISOString(),
    overdue_at: subscriptionInvoice.overdue_at?.toISOString() ?? null,
    paid_at: subscriptionInvoice.paid_at?.toISOString() ?? null,
    voided_at: subscriptionInvoice.voided_at?.toISOString() ?? null,
  };
}

/** Response schema of `subscriptionView`. */
export const subscriptionResponse = Joi.object({
  object: kind('subscription'),
  id: text(),
  livemode: Joi.boolean().required(),
  client_id: text(),
  description: textOrNull(),
  amount: money(),
  interval: Joi.string().valid('day', 'week', 'month', 'year').required(),
  interval_count: int(),
  billing_cycle_anchor: at(),
  cycles: intOrNull(),
  grace_period_days: int(),
  settlement_destination: Joi.object({
    type: kind('address_book'),
    address_book_entry_id: text(),
    chain: text(),
    address: text(),
  }).required(),
  status: Joi.string().valid('active', 'past_due', 'paused', 'cancelled', 'completed').required(),
  periods_billed: int(),
  periods_skipped: int(),
  current_period_start: atOrNull(),
  current_period_end: atOrNull(),
  next_invoice_at: atOrNull(),
  paused_at: atOrNull(),
  cancelled_at: atOrNull(),
  ended_at: atOrNull(),
  created_at: at(),
});

/** Response schema of `invoiceView`. */
export const invoiceResponse = Joi.object({
  object: kind('subscription_invoice'),
  id: text(),
  subscription_id: text(),
  livemode: Joi.boolean().required(),
  number: int(),
  period_start: at(),
  period_end: at(),
  amount: money(),
  amount_received: moneyOrNull(),
  status: Joi.string().valid('open', 'overdue', 'paid', 'void').required(),
  payment_id: text(),
  payment_status: textOrNull(),
  deposit_instructions: depositInstructionsResponse.required(),
  issued_at: at(),
  due_at: at(),
  overdue_at: atOrNull(),
  paid_at: atOrNull(),
  voided_at: atOrNull(),
});
