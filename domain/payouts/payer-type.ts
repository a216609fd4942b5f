/**
 * The payout `payer_type` (spec 2.6, 4.3): set by the service from the account's customer type; a
 * declared value that differs is `422 invalid_request` `payer_type_mismatch`. Pure.
 */
import { invalidRequest } from '../errors';

/** Payer type of a payout (spec 2.6 `payer_type`, set by the service from the account's customer type). */
export type PayoutPayerType = 'individual' | 'business';

/**
 * Derives `payer_type` from the account's `customer_type` and checks a declared value against it.
 * Throws `422 invalid_request` code `payer_type_mismatch` with `details.expected`, `details.received`
 * (param `payer_type`) when `declared` is given and differs (spec 4.3).
 */
export function derivePayerType(customerType: string, declared: string | undefined | null): PayoutPayerType {
  const expected: PayoutPayerType = customerType === 'individual' ? 'individual' : 'business';
  if (declared !== undefined && declared !== null && declared !== expected) {
    throw invalidRequest(
      'payer_type_mismatch',
      `payer_type is set by the service; this account pays as \`${expected}\`.`,
      'payer_type',
      { expected, received: declared },
      422,
    );
  }
  return expected;
}
