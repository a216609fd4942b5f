/** Shared joi fragments: Money (spec 2.1), ids, list queries (spec 8). */
import type { Schema } from 'joi';
import Joi from './joi';
import { CHAIN_NAMES, CHAINS } from '../../domain/addresses';
import { FIAT_DECIMALS, MAX_AMOUNT_DIGITS, MAX_STORED_MINOR, STABLECOIN_DECIMALS } from '../../domain/money';
import { CATALOGUED_EVENT_TYPES, isKnownEventType } from '../../domain/event-types';
import { COUNTRIES } from '../../domain/countries';
import { RAILS_CLOSED } from '../../domain/rails';

/**
 * JavaScript's `String.prototype.trim` whitespace as a regex character-class body, spelled out so a
 * document pattern means the same in every regex dialect (joi trims strings before the domain reads them).
 */
export const TRIM_WHITESPACE = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

/**
 * "Null" in a rule's property schema: `enum: [null]`, not `type: 'null'` (openapi-generator's
 * typescript-fetch imports a `Null` model for the latter that it never writes).
 */
export const NULL_ONLY = Object.freeze({ enum: [null] });

/**
 * `schema`, documented as `jsonSchema` in the OpenAPI document instead of its joi-to-json
 * conversion (api/openapi.ts `ContractParser`). For rules the server checks in code with their
 * own error codes (a closed catalogue answering `event_type_unknown`, a lenient `limit`): the
 * document states the rule, the wire error stays the one the domain answers.
 */
export function documentedAs<S extends Schema>(schema: S, jsonSchema: Record<string, unknown>): S {
  return schema.meta({ openapi: jsonSchema }) as S;
}

/**
 * `schema`, documented with `jsonSchema`'s keywords added to its conversion (api/openapi.ts
 * `withAlso`): for a rule over two fields the server checks in code with its own error code
 * (exactly one of two fields: `oneOf` of required sets; a field that goes with another:
 * `dependentRequired`), so the document states what the server enforces.
 */
export function documentedAlso<S extends Schema>(schema: S, jsonSchema: Record<string, unknown>): S {
  return schema.meta({ openapiAlso: jsonSchema }) as S;
}

/** Exactly one of `names` is present (JSON Schema: `oneOf` of each alone, the others absent: a `false` property schema). */
export function exactlyOneOf(...names: string[]): Record<string, unknown> {
  return { oneOf: names.map((n) => ({ required: [n], properties: Object.fromEntries(names.map((o) => [o, o === n ? {} : false])) })) };
}

/** Event types a request may name (`type` filters, `event_types`): catalogued and not retired (domain/event-types). */
export const REQUEST_EVENT_TYPES: readonly string[] = Object.freeze(CATALOGUED_EVENT_TYPES.filter(isKnownEventType));

/**
 * One event type on a request: checked against the closed catalogue by the domain (`400
 * invalid_request` `event_type_unknown`, param `type` / `event_types`); documented as its enum.
 */
export const eventTypeParam = documentedAs(Joi.string().max(100), { type: 'string', enum: [...REQUEST_EVENT_TYPES] });

/**
 * `allowed_rails` of a link: null (no restriction) or 1 to 20 names of the closed rail set; checked
 * by domain/rails `validateAllowedRails` (param `allowed_rails`, codes `invalid_request`,
 * `allowed_rails_invalid_for_currency`, `allowed_rails_invalid_for_settlement`).
 */
export const allowedRailsParam = documentedAs(Joi.array().items(Joi.string()).max(20).allow(null), {
  type: ['array', 'null'],
  minItems: 1,
  maxItems: 20,
  items: { type: 'string', enum: [...RAILS_CLOSED] },
});

const caseInsensitiveLetters = (s: string) => s.replace(/[A-Za-z]/g, (c) => `[${c.toUpperCase()}${c.toLowerCase()}]`);
const caseInsensitive = (s: string) => s.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`).replace(/ /g, '\\x20');
const CHAIN_ALIASES = CHAIN_NAMES.flatMap((n) => CHAINS[n].aliases);

/**
 * A chain by name, alias or EVM chain id (domain/addresses `resolveChain`: case-insensitive,
 * trimmed); an unsupported one is `400 invalid_request` `parameter_invalid` param `chain` from the
 * domain. Documented as the exact accepted set (a case-insensitive pattern over the aliases).
 */
/** The JSON Schema pattern of a chain name or alias (any case, surrounding blanks allowed). */
export const CHAIN_PATTERN = `^\\s*(?:${CHAIN_ALIASES.map(caseInsensitive).join('|')})\\s*$`;
export const chainParam = documentedAs(Joi.string().max(40), {
  type: 'string',
  minLength: 1,
  maxLength: 40,
  examples: ['base'],
  pattern: CHAIN_PATTERN,
});

/** JSON Schema pattern of a registry country code in any case, surrounding blanks allowed (fields the server trims). */
export const TRIMMED_COUNTRY_PATTERN = `^\\s*(?:${[...COUNTRIES].map(caseInsensitiveLetters).join('|')})\\s*$`;

/** A registry country (domain/countries), ISO 3166-1 alpha-2 in any case (upper-cased by the server); unknown is `400 country_invalid`. */
export const countryCode = documentedAs(Joi.string().uppercase().length(2), {
  type: 'string',
  pattern: `^(?:${[...COUNTRIES].map(caseInsensitiveLetters).join('|')})$`,
  examples: ['US'],
});

/**
 * An ISO 3166-1 alpha-2 code written exactly as `^[A-Z]{2}$` (spec 4.7 customer create): no case
 * folding, a lower-case `us` is `400 invalid_request` param `country`; a code outside the market
 * registry is refused by the command (`400`).
 */
export const strictCountryCode = documentedAs(Joi.string().pattern(/^[A-Z]{2}$/), {
  type: 'string',
  pattern: `^(?:${[...COUNTRIES].join('|')})$`,
  examples: ['US'],
});

/** An EVM address: `0x` and 40 hex digits; mixed case must be its EIP-55 checksum (checked by domain/addresses). */
export const evmAddressDocument = {
  type: 'string',
  pattern: '^0x[0-9a-fA-F]{40}$',
  examples: ['0x52908400098527886e0f7030069857d2e4169ee7'],
  description: 'An EVM address: 0x and 40 hex digits; a mixed-case address must carry its EIP-55 checksum.',
};

/** The EVM chain ids among the chain aliases (a `chain` given as a JSON integer). */
export const CHAIN_IDS: readonly number[] = Object.freeze(CHAIN_ALIASES.filter((a) => /^[0-9]+$/.test(a)).map(Number));

/**
 * A regular expression (source, anchored) of the digit strings whose value is at most `max`
 * (leading zeros allowed), at least 1 when `positive`: the storable range of an amount column
 * (domain/money MAX_STORED_MINOR), stated in the document since an amount is a string (spec 2.1).
 */
export function digitsUpTo(max: bigint, positive: boolean): string {
  const m = max.toString();
  const shorter = `[1-9][0-9]{0,${m.length - 2}}`;
  const sameLength = [...m]
    .map((d, i) => {
      if (i === m.length - 1) return `${m.slice(0, i)}[0-${d}]`;
      if (d === '0') return null;
      const lower = i === 0 ? (d === '1' ? null : `[1-${Number(d) - 1}]`) : `[0-${Number(d) - 1}]`;
      return lower === null ? null : `${m.slice(0, i)}${lower}[0-9]{${m.length - 1 - i}}`;
    })
    .filter((x): x is string => x !== null);
  const body = `0*(?:${[shorter, ...sameLength].join('|')})`;
  return positive ? `^${body}$` : `^(?:0+|${body})$`;
}

/**
 * A regular expression (source, anchored) of the digit strings whose value is at least `min` (>= 1),
 * leading zeros allowed: a lower bound of an amount string, e.g. a payout corridor's minimum.
 */
export function digitsAtLeast(min: bigint): string {
  const m = min.toString();
  const alts = [`[1-9][0-9]{${m.length},}`, m];
  [...m].forEach((c, i) => {
    if (Number(c) < 9) alts.push(`${m.slice(0, i)}[${Number(c) + 1}-9][0-9]{${m.length - 1 - i}}`);
  });
  return `^0*(?:${alts.join('|')})$`;
}

/**
 * The registry's currencies grouped by scale (domain/money): the document states each currency
 * with the one `decimals` the server accepts for it (spec 2.1), as one alternative per scale.
 */
function moneyDocument(amountPattern: string, description: string, only?: readonly string[]): Record<string, unknown> {
  const byScale = new Map<number, string[]>();
  for (const [code, scale] of [...Object.entries(FIAT_DECIMALS), ...Object.entries(STABLECOIN_DECIMALS)]) {
    if (only && !only.includes(code)) continue;
    byScale.set(scale, [...(byScale.get(scale) ?? []), code]);
  }
  const examples = [
    { amount: '125000', currency: 'USD', decimals: 2 },
    { amount: '250000000', currency: 'USDC', decimals: 6 },
  ];
  const branches = [...byScale.entries()]
    .sort(([a], [b]) => a - b)
    .map(([scale, codes]) => ({
      type: 'object',
      additionalProperties: false,
      required: ['amount', 'currency', 'decimals'],
      properties: {
        amount: { type: 'string', pattern: amountPattern, maxLength: MAX_AMOUNT_DIGITS },
        currency: { type: 'string', enum: codes },
        decimals: { type: 'integer', enum: [scale] },
      },
    }));
  const described = { description, examples: only ? examples.filter((e) => only.includes(e.currency)) : examples };
  if (branches.length === 1) return { ...described, ...branches[0] };
  return {
    ...described,
    oneOf: branches,
  };
}

/** A currency of the registry (domain/money), e.g. a product's `currency`; unknown is `400 currency_invalid`. */
export const currencyCode = documentedAs(Joi.string().min(3).max(12), {
  type: 'string',
  enum: [...Object.keys(FIAT_DECIMALS), ...Object.keys(STABLECOIN_DECIMALS)],
  examples: ['USD'],
});

/**
 * Money with a strictly positive amount (MoneyPositive, spec 2.1). Currency/decimals are checked by
 * domain/money (`currency_invalid`, `amount_invalid`); the document states them as the registry.
 */
export const moneyPositive = documentedAs(
  Joi.object({
    // Two patterns for two messages; the last one alone is exact (the OpenAPI document keeps only it).
    amount: Joi.string()
      .pattern(/^[0-9]+$/)
      .pattern(/^0*[1-9][0-9]*$/, 'positive')
      .required()
      .messages({
        'string.pattern.base': '`amount` must be a string of digits in minor units',
        'string.pattern.name': '`amount` must be strictly positive',
      }),
    currency: Joi.string().min(3).max(12).required(),
    decimals: Joi.number().integer().min(0).max(18).required(),
  }),
  moneyDocument(
    digitsUpTo(MAX_STORED_MINOR, true),
    "MoneyPositive (spec 2.1): minor units as a string of digits, strictly positive; `decimals` is the currency's scale.",
  ),
);

/**
 * MoneyPositive in one of `currencies` only (e.g. a subscription, billed in USDC): the same joi
 * rules (another currency is `400 currency_invalid` from the command), the document states the
 * currencies the operation takes.
 */
export function moneyPositiveIn(currencies: readonly string[]): Schema {
  return documentedAs(
    moneyPositive,
    moneyDocument(
      digitsUpTo(MAX_STORED_MINOR, true),
      `MoneyPositive (spec 2.1) in ${currencies.join(' or ')}: minor units as a string of digits, strictly positive; \`decimals\` is the currency's scale.`,
      currencies,
    ),
  );
}

/** Money whose amount may be zero (MoneyNonNegative, spec 2.1); currency/decimals checked by domain/money. */
export const moneyNonNegative = documentedAs(
  Joi.object({
    amount: Joi.string()
      .pattern(/^[0-9]+$/)
      .required()
      .messages({ 'string.pattern.base': '`amount` must be a string of digits in minor units' }),
    currency: Joi.string().min(3).max(12).required(),
    decimals: Joi.number().integer().min(0).max(18).required(),
  }),
  moneyDocument(
    digitsUpTo(MAX_STORED_MINOR, false),
    "MoneyNonNegative (spec 2.1): minor units as a string of digits; `decimals` is the currency's scale.",
  ),
);

/**
 * `limit` of every list (spec 8): never refused; 0, negative, fractional, non-numeric or absent
 * is 25 and above 100 is 100 (domain/pagination `parseLimit`). The document says so: any string
 * or integer, no bounds.
 */
export const limitQuery = Joi.any().meta({
  openapi: {
    type: ['string', 'integer'],
    description: 'Page size, never refused: 1 to 100; above 100 is 100; absent, 0, negative, fractional or non-numeric is 25 (spec 8).',
  },
});

/**
 * `expand` of every read (spec 4 conventions): a name, a comma-separated list or a repeated
 * parameter; unrecognised and empty values are ignored (never a 400).
 */
export const expandQuery = documentedAs(Joi.alternatives(Joi.string().allow(''), Joi.array().items(Joi.string().allow(''))), {
  anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
  description: 'Expansions to include; unrecognised values (empty, unknown, any characters) are ignored (spec 4 conventions).',
});

/** List query: `limit` is never rejected (parsed leniently), `cursor` opaque (400 `cursor_invalid` when not one of ours), `expand` free. */
export const listQuery = {
  limit: limitQuery,
  cursor: Joi.string()
    .allow('')
    .description(
      'Opaque: the `next_cursor` of the previous page, passed back as it was minted. ' +
        'Any other string is refused with `400 invalid_request` code `cursor_invalid`; the document cannot state "a cursor this server minted", ' +
        'which is the one refusal of a schema-valid value a contract fuzzer is told to expect (issue 24).',
    ),
  expand: expandQuery,
};

/** Prefixed id, e.g. idOf('cli_'). */
export const idOf = (prefix: string) =>
  Joi.string()
    .pattern(new RegExp(`^${prefix}[A-Za-z0-9]+$`))
    .messages({ 'string.pattern.base': `must be an id starting with ${prefix}` });
