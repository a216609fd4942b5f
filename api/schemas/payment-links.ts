/**
 * joi request schemas of the payment links area (spec 4.1): payment links, their reminder
 * schedule, clients and products. Shapes only: currency registry, rail, ownership and state
 * rules are enforced by domain/ and activities/payment-links/ with the spec's error codes.
 * Unknown body keys are `400 invalid_request` (api/operation/validate.ts).
 */
import Joi from './joi';
import { LINK_STATUS_GROUP_NAMES } from '../../domain/verdicts';
import { offerableRails } from '../../domain/rails';
import { REMINDER_OFFSET_MAX_DAYS, REMINDER_OFFSETS_MAX_COUNT } from '../../domain/reminders';
import {
  allowedRailsParam,
  currencyCode,
  documentedAlso,
  documentedAs,
  idOf,
  listQuery,
  moneyNonNegative,
  moneyPositive,
  NULL_ONLY,
} from './common';

const nullableText = (max: number) => Joi.string().trim().max(max).allow('', null);
const email = Joi.string()
  .trim()
  .email({ tlds: { allow: false } })
  .max(254);

/** One line item of a link: a product reference and/or a name, a quantity and an optional unit amount in the link currency. */
const item = Joi.object({
  product_id: idOf('prd_').allow(null),
  name: Joi.string().trim().max(200).allow('', null),
  quantity: Joi.number().integer().min(1).max(1_000_000).default(1),
  unit_amount: moneyNonNegative
    .allow(null)
    .description(
      "In the link currency (`amount.currency`, else the stored link's); another currency is 400 `currency_mismatch` (param `items.<i>.unit_amount`).",
    ),
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

const NOT_BLANK = { type: 'string', pattern: '\\S' };
const NAMED = { required: ['name'], properties: { name: NOT_BLANK } };
const PRODUCT = { required: ['product_id'], properties: { product_id: { type: 'string', minLength: 1 } } };

/** The currency codes of the registry, as `currencyCode` documents them. */
function registryCurrencies(): string[] {
  return (currencyCode.describe().metas?.find((m: { openapi?: { enum?: string[] } }) => m.openapi)?.openapi?.enum ?? []) as string[];
}

/**
 * `allowed_rails` names only rails offered for the amount's currency (domain/rails
 * `validateAllowedRails`, `400 allowed_rails_invalid_for_currency`): a rule over two fields, stated
 * as one `anyOf` branch per currency. On `PATCH` without `amount` the stored link's
 * currency decides (the link's state).
 */
function railsOfferedForCurrency(): Record<string, unknown> {
  return {
    anyOf: [
      { not: { required: ['amount', 'allowed_rails'], properties: { amount: {}, allowed_rails: {} } } },
      { properties: { allowed_rails: NULL_ONLY } },
      ...registryCurrencies().map((c) => {
        const offered = offerableRails(c);
        return {
          properties: {
            amount: { properties: { currency: { const: c } } },
            allowed_rails: offered.length ? { items: { enum: offered } } : NULL_ONLY,
          },
        };
      }),
    ],
  };
}

/**
 * `POST /payment_links` body (spec 4.1). `amount` is MoneyPositive and required. The example is a
 * whole body the server accepts as it stands (tests/contract/document-examples.test.ts).
 */
export const createLinkBody = documentedAlso(
  Joi.object({ amount: moneyPositive.required(), ...linkFields }).example({
    amount: { amount: '125000', currency: 'USD', decimals: 2 },
    title: 'Invoice 1042',
    memo: 'Design work, March',
    invoice_number: 'INV-1042',
    payer_email: 'ap@client.example',
    items: [{ name: 'Design work', quantity: 1, unit_amount: { amount: '125000', currency: 'USD', decimals: 2 } }],
  }),
  {
    // What the command checks over several fields (`400 parameter_missing`), stated: a
    // line item has a `name` (not blank) or a `product_id`; the title comes from `title`, an
    // `invoice_number` or a line item with a name or a product.
    allOf: [
      { properties: { items: { items: { anyOf: [NAMED, PRODUCT] } } } },
      {
        anyOf: [
          { required: ['title'], properties: { title: NOT_BLANK } },
          { required: ['invoice_number'], properties: { invoice_number: NOT_BLANK } },
          { required: ['items'], properties: { items: { type: 'array', contains: { anyOf: [NAMED, PRODUCT] } } } },
        ],
      },
      railsOfferedForCurrency(),
    ],
  },
);

/**
 * `PATCH /payment_links/{id}` body: every create field optional; null clears a nullable field;
 * `title` cannot be blanked; a line item has a `name` or a `product_id`, and `allowed_rails` fits
 * the amount's currency when both are given (stated as on create).
 */
export const updateLinkBody = documentedAlso(
  Joi.object({
    amount: moneyPositive,
    ...linkFields,
    title: Joi.string().trim().min(1).max(200),
  }),
  { allOf: [{ properties: { items: { items: { anyOf: [NAMED, PRODUCT] } } } }, railsOfferedForCurrency()] },
);

/**
 * `POST /payment_links/{id}/activate` body: `attestation_accepted` must be `true`. Checked by the
 * activity so that absent or false answers `400 invalid_request` `attestation_required` (a
 * non-boolean is joi's `parameter_invalid`); the document states the rule: required, `true`.
 */
export const activateLinkBody = documentedAs(Joi.object({ attestation_accepted: Joi.boolean().strict() }), {
  type: 'object',
  required: ['attestation_accepted'],
  additionalProperties: false,
  properties: { attestation_accepted: { const: true, description: 'The human attestation; must be `true`.' } },
});

/** `POST /payment_links/{id}/refund` body (Stripe's refund reasons). */
export const refundLinkBody = Joi.object({ reason: Joi.string().valid('duplicate', 'fraudulent', 'requested_by_customer').allow(null) });

/**
 * `PATCH /payment_links/{id}/reminder_schedule` body: `offsets_days` (domain validateOffsets).
 * `sent` and `next_reminder_at` are server-owned (spec 2.3: the caller's value is ignored): joi
 * accepts any value and strips it; the document states them as in the ReminderSchedule response,
 * `readOnly: true` (JSON Schema: a value sent is ignored or refused by the owner), so that a
 * client sends the object it read back and generators type them instead of "any type".
 */
export const reminderScheduleBody = Joi.object({
  // Checked by domain/reminders validateOffsets (`400 invalid_request` param `offsets_days`); documented as that rule.
  offsets_days: documentedAs(Joi.any().required(), {
    type: 'array',
    minItems: 1,
    maxItems: REMINDER_OFFSETS_MAX_COUNT,
    uniqueItems: true,
    items: { type: 'integer', minimum: 1, maximum: REMINDER_OFFSET_MAX_DAYS },
    description: 'Whole days after the anchor, 1 to 365, no repeats.',
  }),
  status: Joi.string().valid('on', 'off'),
  sent: documentedAs(Joi.any().strip(), {
    type: 'array',
    items: { type: 'string' },
    readOnly: true,
    description: 'Server-owned: when each reminder was sent (ISO 8601), in offset order. Read-only: a value sent is ignored.',
  }),
  next_reminder_at: documentedAs(Joi.any().strip(), {
    type: ['string', 'null'],
    format: 'date-time',
    readOnly: true,
    description: 'Computed by the server. Read-only: a value sent is ignored.',
  }),
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

/**
 * `unit_price.currency` is the product's `currency` when both are given (activities/catalog
 * `400 currency_mismatch` param `unit_price`): a rule over two fields, stated in the document as one
 * `anyOf` branch per currency of the registry (JSON Schema has no equality between fields).
 */
function unitPriceInCurrency(): Record<string, unknown> {
  const codes = registryCurrencies();
  return {
    anyOf: [
      { not: { required: ['currency', 'unit_price'], properties: { currency: {}, unit_price: {} } } },
      { properties: { unit_price: NULL_ONLY } },
      ...codes.map((c) => ({ properties: { currency: { const: c }, unit_price: { properties: { currency: { const: c } } } } })),
    ],
  };
}

/**
 * `POST /products` body: `currency` defaults to `unit_price.currency`; one of them is required
 * (`400 parameter_missing` param `currency`), and both name one currency (`400 currency_mismatch`
 * param `unit_price`), stated as one `anyOf`; the example is a whole body the server accepts.
 */
export const createProductBody = documentedAlso(
  Joi.object({
    name: Joi.string().trim().min(1).max(200).required(),
    description: nullableText(2000),
    currency: currencyCode,
    unit_price: moneyNonNegative.allow(null),
  }).example({
    name: 'Consulting hour',
    description: 'One hour of senior consulting',
    currency: 'USD',
    unit_price: { amount: '15000', currency: 'USD', decimals: 2 },
  }),
  {
    // One `anyOf` (fuzzers cannot merge an `allOf` of two): `currency` with no price, a price with no
    // `currency` (its currency is the product's), or both in one currency.
    anyOf: [
      { required: ['currency'], properties: { unit_price: NULL_ONLY } },
      { required: ['unit_price'], properties: { unit_price: { type: 'object' }, currency: false } },
      ...registryCurrencies().map((c) => ({
        required: ['currency', 'unit_price'],
        properties: { currency: { const: c }, unit_price: { type: 'object', properties: { currency: { const: c } } } },
      })),
    ],
  },
);

/**
 * `PATCH /products/{id}` body: null (or an empty string) clears `description`; `unit_price` Money
 * or null; `currency` and `unit_price` given together name one currency (`unitPriceInCurrency`). A
 * new `currency` alone on a priced product is refused from the stored price (the product's state).
 */
export const updateProductBody = documentedAlso(
  Joi.object({
    name: Joi.string().trim().min(1).max(200),
    description: nullableText(2000),
    currency: currencyCode,
    unit_price: moneyNonNegative.allow(null),
  }),
  unitPriceInCurrency(),
);

/** `GET /products` query. */
export const listProductsQuery = Joi.object({ ...listQuery, archived: Joi.boolean(), q: Joi.string().trim().max(200).allow('') });
