/**
 * joi schemas of the address book (spec 2.11, 4.10): request bodies and queries, and the response
 * shapes of the operation definitions. Shapes only: chain/address formats, countries and bank
 * details per rail are checked by domain/ (activities/address-book.ts) with the spec's codes.
 */
import Joi from './joi';
import { bankDetailsBody } from './beneficiary';
import { CHAIN_IDS, chainParam, documentedAlso, documentedAs, listQuery, NULL_ONLY, TRIMMED_COUNTRY_PATTERN } from './common';

const text = (max: number) => Joi.string().trim().max(max).allow('', null);
/** A registry country in any case, trimmed (upper-cased and checked against the registry by the activity); documented as that set. */
const alpha2 = documentedAs(
  Joi.string()
    .trim()
    .pattern(/^[A-Za-z]{2}$/)
    .messages({ 'string.pattern.base': 'must be an ISO 3166-1 alpha-2 country code' }),
  { type: 'string', pattern: TRIMMED_COUNTRY_PATTERN, examples: ['DE'] },
).allow(null);

const counterparty = {
  label: text(100),
  counterparty_name: text(200),
  counterparty_country: alpha2,
  counterparty_vasp_name: text(200),
  counterparty_vasp_jurisdiction: alpha2,
};

/**
 * `POST /address_book`: `kind` required; crypto needs `chain` and `address`, a bank entry takes
 * neither nor the VASP fields (checked in the activity with codes naming the field; stated in the
 * document as one `anyOf` branch per kind). Address formats and checksums stay the domain's.
 */
export const createEntryBody = documentedAlso(
  Joi.object({
    kind: Joi.string().valid('crypto', 'bank').required(),
    chain: Joi.alternatives(chainParam, documentedAs(Joi.number().integer(), { type: 'integer', enum: [...CHAIN_IDS] })).allow(null),
    address: Joi.string().max(200).allow(null),
    ...counterparty,
  }),
  {
    anyOf: [
      {
        required: ['kind', 'chain', 'address'],
        properties: { kind: { const: 'crypto' }, chain: { not: NULL_ONLY }, address: { type: 'string', minLength: 1 } },
      },
      {
        required: ['kind'],
        properties: {
          kind: { const: 'bank' },
          chain: NULL_ONLY,
          address: NULL_ONLY,
          counterparty_vasp_name: NULL_ONLY,
          counterparty_vasp_jurisdiction: NULL_ONLY,
        },
      },
    ],
  },
);

/** `PATCH /address_book/{id}`: label and counterparty fields only (null clears). */
export const updateEntryBody = Joi.object(counterparty);

/** `GET /address_book`: `kind`, `chain` (id or name, resolved by the route), `q` (label, address, counterparty name). */
export const listEntriesQuery = Joi.object({
  ...listQuery,
  kind: Joi.string().valid('crypto', 'bank'),
  chain: chainParam,
  q: Joi.string().trim().max(200).allow(''),
});

/** `POST /address_book/{id}/beneficiary`: raw bank details of one rail (spec 2.6 request uses `account_owner_type`). */
export const beneficiaryBody = bankDetailsBody('required');
