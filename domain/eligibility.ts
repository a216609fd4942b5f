/**
 * Eligibility (spec 4.6 `GET /eligibility`): what a prospective account in a country,
 * of a customer type, can likely use, per product, before it signs up. Four states:
 * `likely_available`, `conditional` (available once the named requirements are met:
 * `requirements`), `unavailable` (a `reason`), `unknown` (no coverage data for the market).
 * Availability is never authorization: create and the money boundaries re-check.
 *
 * Pure: no I/O. The market lists are the sandbox registry (docs/decisions/0044-eligibility.md).
 */
import { COUNTRIES } from './countries';

export type EligibilityState = 'likely_available' | 'conditional' | 'unavailable' | 'unknown';
export type CustomerType = 'individual' | 'business';

export const ELIGIBILITY_PRODUCTS = Object.freeze(['payment_links', 'payouts', 'payroll', 'wallet', 'wallet_bank', 'buy_sell'] as const);
export type EligibilityProduct = (typeof ELIGIBILITY_PRODUCTS)[number];

/** Comprehensively sanctioned jurisdictions: nothing is offered. */
export const SANCTIONED_COUNTRIES: ReadonlySet<string> = new Set(['CU', 'IR', 'KP', 'SY', 'RU', 'BY']);

const EEA = [
  'AT',
  'BE',
  'BG',
  'HR',
  'CY',
  'CZ',
  'DK',
  'EE',
  'FI',
  'FR',
  'DE',
  'GR',
  'HU',
  'IE',
  'IT',
  'LV',
  'LT',
  'LU',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SK',
  'SI',
  'ES',
  'SE',
  'IS',
  'LI',
  'NO',
];

/** Markets where the service operates with its own licences or partners (full coverage data). */
export const SUPPORTED_MARKETS: ReadonlySet<string> = new Set([
  'US',
  'CA',
  'GB',
  'CH',
  'MX',
  'BR',
  'CO',
  'AR',
  'CL',
  'AU',
  'NZ',
  'SG',
  'HK',
  'JP',
  'AE',
  ...EEA,
]);

/** Markets served by partners only: products that need a verified customer are conditional there. */
export const PARTNER_MARKETS: ReadonlySet<string> = new Set([
  'IN',
  'ID',
  'PH',
  'VN',
  'TH',
  'MY',
  'KR',
  'TW',
  'NG',
  'KE',
  'ZA',
  'GH',
  'EG',
  'MA',
  'TR',
  'IL',
  'SA',
  'QA',
  'PE',
  'UY',
  'PY',
  'CR',
  'PA',
  'DO',
  'GT',
]);

/** One product's answer. */
export interface ProductEligibility {
  product: EligibilityProduct;
  state: EligibilityState;
  reason: string | null;
  requirements: string[];
}

/**
 * The eligibility of each product for `country` (an ISO code of the registry, upper-case) and
 * `customerType`. Sanctioned: every product `unavailable` (`country_sanctioned`). Outside the
 * supported and partner markets: `unknown` (`no_coverage_data`). Payroll is for businesses
 * (`unavailable` `business_only` for individuals). Holding money (wallet, wallet_bank, buy_sell)
 * and sending it (payouts, payroll) need a verified customer: `conditional` with
 * `customer_verification` (and `terms_acceptance`); partner markets add `partner_onboarding` to
 * everything beyond payment links. Throws RangeError for a country outside the registry.
 */
export function eligibility(country: string, customerType: CustomerType): ProductEligibility[] {
  if (!COUNTRIES.has(country)) throw new RangeError(`unknown country ${country}`);
  const all = (state: EligibilityState, reason: string | null): ProductEligibility[] =>
    ELIGIBILITY_PRODUCTS.map((product) => ({ product, state, reason, requirements: [] }));
  if (SANCTIONED_COUNTRIES.has(country)) return all('unavailable', 'country_sanctioned');
  const supported = SUPPORTED_MARKETS.has(country);
  if (!supported && !PARTNER_MARKETS.has(country)) return all('unknown', 'no_coverage_data');
  return ELIGIBILITY_PRODUCTS.map((product) => {
    if (product === 'payroll' && customerType === 'individual')
      return { product, state: 'unavailable', reason: 'business_only', requirements: [] };
    const requirements: string[] = [];
    if (product !== 'payment_links') requirements.push('customer_verification', 'terms_acceptance');
    if (!supported && product !== 'payment_links') requirements.push('partner_onboarding');
    return requirements.length === 0
      ? { product, state: 'likely_available', reason: null, requirements }
      : { product, state: 'conditional', reason: null, requirements };
  });
}
