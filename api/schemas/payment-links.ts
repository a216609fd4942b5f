/**
 * joi request schemas of the payment links area (spec 4.1): payment links, their reminder
 * schedule, clients and products. Shapes only: currency registry, rail, ownership and state
 * rules are enforced by domain/ and activities/payment-links/ with the spec's error codes.
 * Unknown body keys are `400 invalid_request` (api/operation.ts).
 */
import Joi from './joi';
import { LINK_STATUS_GROUP_NAMES } from '../../domain/verdicts';
import { REMINDER_OFFSET_MAX_DAYS, REMINDER_OFFSETS_MAX_COUNT } from '../../domain/reminders';
import { allowedRailsParam, currencyCode, documentedAs, idOf, listQuery, moneyNonNegative, moneyPositive } from './common';

const nullableText = (max: number) => Joi.string().trim().max(max).allow('', null);
const email = Joi.string().trim().email({ tlds: { allow: false } }).max(254);

/** One line item of a link: a product reference and/or a name, a quantity and an optional unit amount in the link currency. */
const item = Joi.object({
  product_id: idOf('prd_').allow(null),
  name: Joi.string().trim().max(200).allow('', null),
  quantity: Joi.number().integer().min(1).max(1_000_000).default(1),
  unit_amount: moneyNonNegative.allow(null),
});

const linkFields = {
  title: Joi.string().trim().max(200).allow('', null),
  memo: nullableText(2000),
  invoice_number: nullableText(100),
  client_id: idOf('cli_').allow(null),
  expected_payer_type: Joi.string().valid('crypto', 'bank', 'any').allow(null),
  // Rail names are checked by domain/rails (param `allowed_rails`, closed enum on requests).
  allowed_rails: allowedRailsParam,
  // Any value other than [crypto] answers 409 capability_unavailable (spec 2.3), so any strings pass here.
  accepted_rail_kinds: Joi.array().items(Joi.string().max(50)).max(10).allow(null),
  expires_at: Joi.date().iso().allow(null),
  payer_email: email.allow(null),
  settlement_destination: Joi.object({ address_book_id: idOf('adr_').required() }).allow(null),
  items: Joi.array().items(item).max(100).allow(null),
};

/** `POST /payment_links` body (spec 4.1). `amount` is MoneyPositive and required. */
export const createLinkBody = Joi.object({ amount: moneyPositive.required(), ...linkFields });

/** `PATCH /payment_links/{id}` body: every create field optional; null clears a nullable field; `title` cannot be blanked. */
export const updateLinkBody = Joi.object({
  amount: moneyPositive,
  ...linkFields,
  title: Joi.string().trim().min(1).max(200),
});

/**
 * `POST /payment_links/{id}/activate` body: `attestation_accepted` must be `true`. Checked by the
 * activity so that absent or false answers `400 invalid_request` `attestation_required` (a
 * non-boolean is joi's `parameter_invalid`); the document states the rule: required, `true`.
 */
export const activateLinkBody = documentedAs(Joi.object({ attestation_accepted: Joi.boolean().strict() }), {
  type: 'object', required: ['attestation_accepted'], additionalProperties: false,
  properties: { attestation_accepted: { const: true, description: 'The human attestation; must be `true`.' } },
});

/** `PATCH /payment_links/{id}/reminder_schedule` body: `offsets_days` (domain validateOffsets); `sent`/`next_reminder_at` are server-owned and ignored. */
/** `POST /payment_links/{id}/refund` body (issue 12; Stripe's refund reasons). */
export const refundLinkBody = Joi.object({ reason: Joi.string().valid('duplicate', 'fraudulent', 'requested_by_customer').allow(null) });

export const reminderScheduleBody = Joi.object({
  // Checked by domain/reminders validateOffsets (`400 invalid_request` param `offsets_days`); documented as that rule.
  offsets_days: documentedAs(Joi.any().required(), {
    type: 'array', minItems: 1, maxItems: REMINDER_OFFSETS_MAX_COUNT, uniqueItems: true,
    items: { type: 'integer', minimum: 1, maximum: REMINDER_OFFSET_MAX_DAYS }, description: 'Whole days after the anchor, 1 to 365, no repeats.',
  }),
  status: Joi.string().valid('on', 'off'),
  sent: Joi.any().strip(),
  next_reminder_at: Joi.any().strip(),
});

/** `GET /payment_links` query (spec 4.1). */
export const listLinksQuery = Joi.object({
  ...listQuery,
  status_group: Joi.string().valid(...LINK_STATUS_GROUP_NAMES),
  q: Joi.string().trim().max(200).allow(''),
  client_id: idOf('cli_'),
  settlement_kind: Joi.string().valid('crypto_only', 'fiat_provider'),
});

/** `GET /payment_links/{id}/events` query. */
export const linkEventsQuery = Joi.object({ ...listQuery });

// ---------------------------------------------------------------------------------------
// Clients and products (spec 2.3, 4.1)

/** `POST /clients` body. */
export const createClientBody = Joi.object({
  display_name: Joi.string().trim().min(1).max(200).required(),
  email: email.allow(null),
  company: nullableText(200),
  country: nullableText(100),
  role: nullableText(100),
  notes: nullableText(5000),
});

/** `PATCH /clients/{id}` body: null clears email/company/country/notes (and role); an empty-string email is 400. */
export const updateClientBody = Joi.object({
  display_name: Joi.string().trim().min(1).max(200),
  email: email.allow(null),
  company: nullableText(200),
  country: nullableText(100),
  role: nullableText(100),
  notes: nullableText(5000),
});

/** `GET /clients` query: `archived` true/false narrows (absent lists both), `q` matches name, email or company. */
export const listClientsQuery = Joi.object({ ...listQuery, archived: Joi.boolean(), q: Joi.string().trim().max(200).allow('') });

/** `POST /products` body: `currency` defaults to `unit_price.currency`; one of them is required. */
export const createProductBody = Joi.object({
  name: Joi.string().trim().min(1).max(200).required(),
  description: nullableText(2000),
  currency: currencyCode,
  unit_price: moneyNonNegative.allow(null),
});

/** `PATCH /products/{id}` body: null (or an empty string) clears `description`; `unit_price` Money or null. */
export const updateProductBody = Joi.object({
  name: Joi.string().trim().min(1).max(200),
  description: nullableText(2000),
  currency: currencyCode,
  unit_price: moneyNonNegative.allow(null),
});

/** `GET /products` query. */
export const listProductsQuery = Joi.object({ ...listQuery, archived: Joi.boolean(), q: Joi.string().trim().max(200).allow('') });
