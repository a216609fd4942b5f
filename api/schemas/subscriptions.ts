/** Request schemas of subscriptions (spec 4.2; fields in docs/decisions/0050-subscriptions.md). Shapes only: rules in activities/subscriptions. */
import Joi from './joi';
import { SUBSCRIPTION_INTERVALS, SUBSCRIPTION_STATUSES } from '../../domain/subscriptions';
import { idOf, listQuery, moneyPositiveIn } from './common';

/**
 * `POST /subscriptions`. `amount` is documented in USDC, what the command bills in (another
 * currency is `400 currency_invalid`); the example is a whole body the server accepts once its
 * `cli_` and `adr_` ids are the account's (a `tempo` crypto entry).
 */
export const createSubscriptionBody = Joi.object({
  client_id: idOf('cli_').required(),
  amount: moneyPositiveIn(['USDC']).required(),
  interval: Joi.string()
    .valid(...SUBSCRIPTION_INTERVALS)
    .required(),
  interval_count: Joi.number().integer().strict().min(1).max(12),
  billing_cycle_anchor: Joi.string().isoDate(),
  cycles: Joi.number().integer().strict().min(1).max(1000).allow(null),
  grace_period_days: Joi.number().integer().strict().min(0).max(60),
  settlement_destination_id: idOf('adr_').required(),
  description: Joi.string().min(1).max(500).allow(null),
}).example({
  client_id: 'cli_4dE8x2Lq9TzR1vYp',
  amount: { amount: '25000000', currency: 'USDC', decimals: 6 },
  interval: 'month',
  interval_count: 1,
  cycles: 12,
  grace_period_days: 7,
  settlement_destination_id: 'adr_7kP2mW9xQ4sT1bNc',
  description: 'Hosting plan',
});

/** `GET /subscriptions`. */
export const listSubscriptionsQuery = Joi.object({
  ...listQuery,
  status: Joi.string().valid(...SUBSCRIPTION_STATUSES),
  client_id: idOf('cli_'),
});
