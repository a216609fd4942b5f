/** Wire projections of credits (spec 2.11 "Credits"): balance, ledger row, checkout. */
import Joi from 'joi';
import { CREDIT_PACKS, type CreditBalance } from '../domain/credits';
import { listEnvelope, moneyOut, timestamp } from './schema';
import { money } from '../domain/money';
import type { CreditCheckout, CreditEventRow } from '../entities';
import type { CreditEventsList, CreditsGet } from './wire';

/** `GET /credits`: the owner's personal balance; `total_checks` is the net count of checks spent. */
export function creditBalanceView(creditBalance: CreditBalance, livemode: boolean): CreditsGet {
  return {
    object: 'credit_balance',
    livemode,
    free_remaining: creditBalance.free_remaining,
    paid_balance: creditBalance.paid_balance,
    total_checks: creditBalance.total_checks,
  };
}

/**
 * One ledger row (`GET /credit_events`, `credit.*` events): `type`, `credits` (change of the
 * spendable balance: +N purchase, grant or refund, -1 consumption, 0 cache hit or insufficient)
 * and the balance after the row.
 */
export function creditEventView(creditEventRow: CreditEventRow): CreditEventsList['data'][number] {
  return {
    id: creditEventRow.id,
    object: 'credit_event',
    livemode: creditEventRow.livemode,
    type: creditEventRow.type,
    credits: creditEventRow.credits,
    free_remaining: creditEventRow.free_remaining,
    paid_balance: creditEventRow.paid_balance,
    total_checks: creditEventRow.total_checks,
    checkout_id: creditEventRow.checkout_id,
    related_object_id: creditEventRow.related_object_id,
    created_at: creditEventRow.created_at.toISOString(),
  };
}

/** `POST /credit_checkouts`: the pack, its price (Money) and the provider's hosted `url`. */
export function creditCheckoutView(creditCheckout: CreditCheckout): Record<string, unknown> {
  return {
    id: creditCheckout.id,
    object: 'credit_checkout',
    livemode: creditCheckout.livemode,
    pack: creditCheckout.pack,
    amount: money(BigInt(creditCheckout.amount_minor), creditCheckout.currency),
    status: creditCheckout.status,
    url: creditCheckout.url,
    expires_at: creditCheckout.expires_at?.toISOString() ?? null,
    completed_at: creditCheckout.completed_at?.toISOString() ?? null,
    created_at: creditCheckout.created_at.toISOString(),
    updated_at: creditCheckout.updated_at.toISOString(),
  };
}

// ---------------------------------------------------------------------------------------
// Response schemas (spec 4.10)

const count = Joi.number().integer().min(0).required();

export const creditBalanceOut = Joi.object({
  object: Joi.string().valid('credit_balance').required(),
  livemode: Joi.boolean().required(),
  free_remaining: count,
  paid_balance: count,
  total_checks: count,
});

export const creditEventOut = Joi.object({
  id: Joi.string().pattern(/^cev_/).required(),
  object: Joi.string().valid('credit_event').required(),
  livemode: Joi.boolean().required(),
  type: Joi.string().required(),
  credits: Joi.number().integer().required(),
  free_remaining: count,
  paid_balance: count,
  total_checks: count,
  checkout_id: Joi.string().allow(null).required(),
  related_object_id: Joi.string().allow(null).required(),
  created_at: timestamp.required(),
});

/** Ledger list: the envelope plus `events_total` (exact lifetime row count; omitted when the count failed). */
export const creditEventListOut = listEnvelope(creditEventOut).keys({ events_total: Joi.number().integer().min(0) });

export const creditCheckoutOut = Joi.object({
  id: Joi.string().pattern(/^cco_/).required(),
  object: Joi.string().valid('credit_checkout').required(),
  livemode: Joi.boolean().required(),
  pack: Joi.number()
    .valid(...CREDIT_PACKS)
    .required(),
  amount: moneyOut.required(),
  status: Joi.string().valid('open', 'completed', 'failed', 'expired').required(),
  url: Joi.string().uri().required(),
  expires_at: timestamp.required(),
  completed_at: timestamp.allow(null).required(),
  created_at: timestamp.required(),
  updated_at: timestamp.required(),
});
