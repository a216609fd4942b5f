/** joi schemas of credits (spec 2.11 "Credits", 4.10, 8): requests and response shapes. */
import Joi from 'joi';
import { CREDIT_EVENT_TYPES, CREDIT_PACKS } from '../../domain/credits';
import { listQuery } from './common';
import { listEnvelope, moneyOut, timestamp } from '../../views/schema';

/** `POST /credit_checkouts`: `pack` is 5, 10 or 20 (spec 8); anything else 400 param `pack`. */
export const createCheckoutBody = Joi.object({
  pack: Joi.number().integer().strict().valid(...CREDIT_PACKS).required(),
});

/** `GET /credit_events`: `type` narrows to one ledger row type (closed enum). */
export const listCreditEventsQuery = Joi.object({
  ...listQuery,
  type: Joi.string().valid(...CREDIT_EVENT_TYPES),
});

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
