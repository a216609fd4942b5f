/**
 * Shared joi fragments for response shapes (the `response` of an operation definition), used by the
 * OpenAPI document (api/openapi.ts) and contract fuzzing: Money (spec 2.1), the list envelope
 * (spec 2.1, 8) and required/nullable field helpers. Response schemas are exact: every field the
 * view always writes is `.required()`, nullable ones allow null, and unknown keys are not allowed
 * (spec 1 rule 7 makes `additionalProperties: false` advisory for clients; for us it catches drift).
 */
import Joi from 'joi';

/** Money on the wire: `{ amount: digits string (minor units), currency, decimals }` (spec 2.1). */
export const moneyOut = Joi.object({
  amount: Joi.string()
    .pattern(/^-?[0-9]+$/)
    .required(),
  currency: Joi.string().required(),
  decimals: Joi.number().integer().min(0).required(),
});

/** Timestamp on the wire (ISO 8601 string). */
export const timestamp = Joi.string().isoDate();

/**
 * The list envelope of spec 2.1 around `item`. A list that computes a summary passes its exact
 * shape (`summary`, present only with `expand=summary`); a list without one declares no `summary`
 * (there `expand=summary` is an unrecognised value, ignored per spec 4).
 */
export function listEnvelope(item: Joi.Schema, summary?: Joi.Schema): Joi.ObjectSchema {
  const envelope = Joi.object({
    object: Joi.string().valid('list').required(),
    data: Joi.array().items(item).required(),
    has_more: Joi.boolean().required(),
    next_cursor: Joi.string().allow(null).required(),
  });
  return summary ? envelope.keys({ summary }) : envelope;
}

/** Required string (may be empty). */
export const text = () => Joi.string().allow('').required();
/** Required string or null. */
export const textOrNull = () => Joi.string().allow('', null).required();
/** Required constant string, e.g. the `object` field: `kind('payment_link')`. */
export const kind = (name: string) => Joi.string().valid(name).required();
/** Required ISO timestamp. */
export const at = () => timestamp.required();
/** Required ISO timestamp or null. */
export const atOrNull = () => timestamp.allow(null).required();
/** Required Money. */
export const money = () => moneyOut.required();
/** Required Money or null. */
export const moneyOrNull = () => moneyOut.allow(null).required();
/** Required boolean. */
export const bool = () => Joi.boolean().required();
/** Required integer. */
export const int = () => Joi.number().integer().required();
/** Required integer or null. */
export const intOrNull = () => Joi.number().integer().allow(null).required();
/** Required array of strings. */
export const strings = () => Joi.array().items(Joi.string().allow('')).required();
/** Required array of strings or null. */
export const stringsOrNull = () => Joi.array().items(Joi.string().allow('')).allow(null).required();
/** Required free-form JSON object. */
export const freeObject = () => Joi.object().unknown(true).required();
