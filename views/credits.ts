/** Wire projections of credits (spec 2.11 "Credits"): balance, ledger row, checkout. */
import Joi from 'joi';
import { CREDIT_PACKS, type CreditBalance } from '../domain/credits';
import { listEnvelope, moneyOut, timestamp } from './schema';
import { money } from '../domain/money';
import type { CreditCheckout, CreditEventRow } from '../entities';
import type { CreditEventsList, CreditsGet } from './wire';

/** `GET /credits`: the owner's personal balance; `total_checks` is the net count of checks spent. */
export function creditBalanceView(b: CreditBalance, livemode: boolean): CreditsGet {
  return { object: 'credit_balance', livemode, free_remaining: b.free_remaining, paid_balance: b.paid_balance, total_checks: b.total_checks };
}

/**
 * One ledger row (`GET /credit_events`, `credit.*` events): `type`, `credits` (change of the
 * spendable balance: +N purchase, grant or refund, -1 consumption, 0 cache hit or insufficient)
 * and the balance after the row.
 */
export function creditEventView(e: CreditEventRow): CreditEventsList['data'][number] {
  return {
    id: e.id,
    object: 'credit_event',
    livemode: e.livemode,
    type: e.type,
    credits: e.credits,
    free_remaining: e.free_remaining,
    paid_balance: e.paid_balance,
    total_checks: e.total_checks,
    checkout_id: e.checkout_id,
    related_object_id: e.related_object_id,
    created_at: e.created_at.toISOString(),
  };
}

/** `POST /credit_checkouts`: the pack, its price (Money) and the provider's hosted `url`. */
export function creditCheckoutView(c: CreditCheckout): Record<string, unknown> {
  return {
    id: c.id,
    object: 'credit_checkout',
    livemode: c.livemode,
    pack: c.pack,
    amount: money(BigInt(c.amount_minor), c.currency),
    status: c.status,
    url: c.url,
    expires_at: c.expires_at?.toISOString() ?? null,
    completed_at: c.completed_at?.toISOString() ?? null,
    created_at: c.created_at.toISOString(),
    updated_at: c.updated_at.toISOString(),
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
  pack: Joi.number().valid(...CREDIT_PACKS).required(),
  amount: moneyOut.required(),
  status: Joi.string().valid('open', 'completed', 'failed', 'expired').required(),
  url: Joi.string().uri().required(),
  expires_at: timestamp.required(),
  completed_at: timestamp.allow(null).required(),
  created_at: timestamp.required(),
  updated_at: timestamp.required(),
});
