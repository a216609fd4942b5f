/**
 * Request schemas of quotes and orders (spec 4.9). Shapes only: the rules over two fields, the
 * side and the providers are in activities/orders (domain/quotes.ts, domain/orders.ts).
 */
import Joi from './joi';
import { ORDER_STATUSES } from '../../domain/orders';
import { PAYMENT_METHODS, QUOTE_AMOUNT_PATTERN, QUOTE_ASSETS, QUOTE_NETWORKS, QUOTE_SIDES } from '../../domain/quotes';
import { idOf, listQuery } from './common';

/** A quote amount: a bare decimal string in major units (a Money object is `400`), strictly positive, 15 integer and 18 fractional digits at most. */
const quoteAmount = Joi.string().pattern(QUOTE_AMOUNT_PATTERN).max(34)
  .messages({ 'string.pattern.base': 'must be a positive decimal in major units with at most 15 integer and 18 fractional digits' });

/** `POST /quotes`: exactly one of `from_amount` / `to_amount` (checked with its own code). */
export const createQuoteBody = Joi.object({
  side: Joi.string().valid(...QUOTE_SIDES).required(),
  from_asset: Joi.string().valid(...QUOTE_ASSETS).required(),
  to_asset: Joi.string().valid(...QUOTE_ASSETS).required(),
  from_amount: quoteAmount,
  to_amount: quoteAmount,
  payment_method: Joi.string().valid(...PAYMENT_METHODS),
  country: Joi.string().pattern(/^[A-Z]{2}$/).messages({ 'string.pattern.base': 'must be an ISO 3166-1 alpha-2 code in capitals' }),
  to_network: Joi.string().valid(...QUOTE_NETWORKS),
  from_network: Joi.string().valid(...QUOTE_NETWORKS),
});

/** `POST /orders`: the offer and exactly one destination (checked with its own code). */
export const createOrderBody = Joi.object({
  offer_id: idOf('qof_').required(),
  destination_id: idOf('adr_'),
  wallet_address: Joi.string().min(1).max(200),
  payment_link_id: idOf('pl_'),
  refund_address: Joi.string().min(1).max(200),
});

/** `GET /orders`. */
export const listOrdersQuery = Joi.object({
  ...listQuery,
  status: Joi.string().valid(...ORDER_STATUSES),
  quote_id: idOf('quo_'),
});
