/** Request schemas of subscriptions (spec 4.2; fields in docs/decisions.md "Subscriptions"). Shapes only: rules in activities/subscriptions. */
import Joi from './joi';
import { SUBSCRIPTION_INTERVALS, SUBSCRIPTION_STATUSES } from '../../domain/subscriptions';
import { idOf, listQuery, moneyPositive } from './common';

/** `POST /subscriptions`. */
export const createSubscriptionBody = Joi.object({
  client_id: idOf('cli_').required(),
  amount: moneyPositive.required(),
  interval: Joi.string().valid(...SUBSCRIPTION_INTERVALS).required(),
  interval_count: Joi.number().integer().strict().min(1).max(12),
  billing_cycle_anchor: Joi.string().isoDate(),
  cycles: Joi.number().integer().strict().min(1).max(1000).allow(null),
  grace_period_days: Joi.number().integer().strict().min(0).max(60),
  settlement_destination_id: idOf('adr_').required(),
  description: Joi.string().min(1).max(500).allow(null),
});

/** `GET /subscriptions`. */
export const listSubscriptionsQuery = Joi.object({
  ...listQuery,
  status: Joi.string().valid(...SUBSCRIPTION_STATUSES),
  client_id: idOf('cli_'),
});
