/**
 * The recipient page's form mapping (spec 4.4 recipient sessions): which destination inputs the
 * run currency's rails take (domain/bank-details.ts `RAIL_FIELDS`), the JSON body of
 * `submitDestinationBody` built from the submitted form, and the form re-rendered with a refusal.
 */
import { RAIL_FIELDS, type DetailField } from '../../../domain/bank-details';
import { isDomainError } from '../../../domain/errors';
import { railsForCurrency } from '../../../domain/payroll-destinations';
import type { FormState } from '../forms';
import type { Locale } from '../i18n';

/** Form position of each rail detail input (which rail takes which: `RAIL_FIELDS`). */
const FORM_ORDER: Readonly<Record<DetailField, number>> = {
  routing_number: 0,
  sort_code: 1,
  account_number: 2,
  account_type: 3,
  iban: 4,
  bic: 5,
  pix_key: 6,
  clabe: 7,
};
/** Inputs a rail may leave empty (its `RAIL_FIELDS` optional ones) and the bank name. */
export const OPTIONAL_INPUTS: ReadonlySet<string> = new Set<string>([
  ...Object.values(RAIL_FIELDS).flatMap((f) => f.optional),
  'bank_name',
]);
/** Inputs typed as digits (the numeric keyboard). */
export const NUMERIC_INPUTS: ReadonlySet<string> = new Set(['routing_number', 'account_number', 'sort_code', 'clabe']);
const WALLET_KEYS = ['chain', 'address'];
const BANK_COMMON = ['account_owner_type', 'account_holder_name', 'rail', 'bank_name'];

/** The detail inputs of the run currency's rails (the union of their `RAIL_FIELDS`), in form order. */
export function detailInputs(currency: string): DetailField[] {
  const taken = new Set(railsForCurrency(currency).flatMap((rail) => [...RAIL_FIELDS[rail].required, ...RAIL_FIELDS[rail].optional]));
  return [...taken].sort((a, b) => FORM_ORDER[a] - FORM_ORDER[b]);
}

/**
 * The JSON body of `submitDestinationBody` from the form's fields (trimmed, empty ones absent):
 * `type` and the fields of that type only (with JavaScript off both groups are on the page); the
 * bank `rail` is the run currency's when it has one rail; `account_type` goes with `ach` only.
 */
export function destinationBodyOf(fields: Record<string, string>, currency: string): Record<string, string> {
  const rails = railsForCurrency(currency);
  const type = fields.type;
  const keys =
    type === 'wallet'
      ? WALLET_KEYS
      : type === 'bank_account'
        ? [...BANK_COMMON, ...detailInputs(currency)]
        : [...WALLET_KEYS, ...BANK_COMMON, ...detailInputs(currency)];
  const body: Record<string, string> = {};
  if (type !== undefined) body.type = type;
  for (const k of keys) if (fields[k] !== undefined) body[k] = fields[k];
  if (type === 'bank_account' && body.rail === undefined && rails.length === 1) body.rail = rails[0];
  if (body.rail !== 'ach') delete body.account_type;
  return body;
}

/** The fields the form shows (a refusal naming another field is shown at the top of the form). */
function visibleFields(currency: string): Set<string> {
  const s = new Set(['type', 'account_owner_type', 'account_holder_name', 'bank_name', 'address', ...detailInputs(currency)]);
  if (railsForCurrency(currency).length > 1) s.add('rail');
  return s;
}

/** The re-rendered form of a refused submission: the localized message next to the field the error names, else at the top. */
export function refusedForm(
  error: unknown,
  values: Record<string, string>,
  currency: string,
  locale: Locale,
): FormState & { status: number } {
  if (!isDomainError(error) || error.status >= 500 || error.type === 'not_found' || error.type === 'rate_limit_error') throw error;
  const errors = locale.copy.payroll.errors;
  const param = error.param?.split('.')[0];
  if (param && visibleFields(currency).has(param))
    return { values, errors: { [param]: errors[param] ?? errors.other }, status: error.status };
  const formError = error.type === 'conflict' ? errors.closed : (param && errors[param]) || errors.other;
  return { values, errors: {}, formError, status: error.status };
}
