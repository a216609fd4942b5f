/** Shared joi fragments: Money (spec 2.1), ids, list queries (spec 8). */
import Joi from 'joi';

/** Money with a strictly positive amount (MoneyPositive, spec 2.1). Currency/decimals are checked by domain/money. */
export const moneyPositive = Joi.object({
  // Two patterns for two messages; the last one alone is exact (the OpenAPI document keeps only it).
  amount: Joi.string().pattern(/^[0-9]+$/).pattern(/^0*[1-9][0-9]*$/, 'positive').required()
    .messages({ 'string.pattern.base': '`amount` must be a string of digits in minor units', 'string.pattern.name': '`amount` must be strictly positive' }),
  currency: Joi.string().min(3).max(12).required(),
  decimals: Joi.number().integer().min(0).max(18).required(),
});

/** List query: `limit` is never rejected (parsed leniently), `cursor` opaque, `expand` free. */
export const listQuery = {
  limit: Joi.any(),
  cursor: Joi.string().allow(''),
  expand: Joi.alternatives(Joi.string(), Joi.array().items(Joi.string())),
};

/** Prefixed id, e.g. idOf('cli_'). */
export const idOf = (prefix: string) => Joi.string().pattern(new RegExp(`^${prefix}[A-Za-z0-9]+$`)).messages({ 'string.pattern.base': `must be an id starting with ${prefix}` });
