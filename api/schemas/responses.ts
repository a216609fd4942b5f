/**
 * Shared joi fragments for response shapes (the `response` of an operation definition), used by the
 * OpenAPI document and contract fuzzing: Money (spec 2.1) and the list envelope (spec 2.1, 8).
 */
import Joi from 'joi';

/** Money on the wire: `{ amount: digits string (minor units), currency, decimals }` (spec 2.1). */
export const moneyOut = Joi.object({
  amount: Joi.string().pattern(/^-?[0-9]+$/).required(),
  currency: Joi.string().required(),
  decimals: Joi.number().integer().min(0).required(),
});

/** Timestamp on the wire (ISO 8601 string). */
export const timestamp = Joi.string().isoDate();

/** The list envelope of spec 2.1 around `item`; `summary` only with `expand=summary`. */
export function listEnvelope(item: Joi.Schema, summary?: Joi.Schema): Joi.ObjectSchema {
  return Joi.object({
    object: Joi.string().valid('list').required(),
    data: Joi.array().items(item).required(),
    has_more: Joi.boolean().required(),
    next_cursor: Joi.string().allow(null).required(),
    summary: summary ?? Joi.object().unknown(true),
  });
}
