/**
 * ISO 3166-1 alpha-2 country codes (market registry for `country` fields), read from the ISO 3166
 * data package `i18n-iso-countries` (docs/decisions/0072-libraries-for-csv-iso-and-month-arithmetic.md),
 * in alphabetical order (the OpenAPI patterns list them so).
 * tests/unit/countries-iso3166.test.ts pins the set: a data update that adds or drops a code fails
 * there instead of changing which countries a request may name.
 *
 * Pure: no I/O. Safe to import from Temporal workflows.
 */
import { getAlpha2Codes } from 'i18n-iso-countries';

/**
 * Codes the package lists that are not officially assigned ISO 3166-1 codes, and so not ours:
 * XK (Kosovo) is a user-assigned code (ISO 3166-1 leaves XA-XZ to users; the package carries it for
 * its country names), and the registry has always been the 249 assigned codes.
 */
const NOT_ASSIGNED = new Set(['XK']);

/** ISO 3166-1 alpha-2 country codes (market registry for `country` fields). */
export const COUNTRIES: ReadonlySet<string> = new Set(
  Object.keys(getAlpha2Codes())
    .filter((c) => !NOT_ASSIGNED.has(c))
    .sort(),
);
