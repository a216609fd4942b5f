/**
 * Two payout inputs the service checks (spec 2.6, 4.3): the fund request's `refund_address` (EVM
 * `0x` + 40 hex, never the zero address, an EIP-55 checksum when mixed-case) and the derived
 * `payer_type`. Each refusal's exact message and the edges the mutation run found unchecked: text
 * around a valid address, an all-upper-case address, an explicit null declaration.
 */
import { derivePayerType } from '../../domain/payouts/payer-type';
import { normalizeRefundAddress } from '../../domain/payouts/refund-address';
import { caught } from '../helpers/domain';

const CHECKSUMMED = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

describe('normalizeRefundAddress (spec 2.6 fund request)', () => {
  it('an all-lower-case or all-upper-case address carries no checksum and comes back in its EIP-55 form', () => {
    expect(normalizeRefundAddress(CHECKSUMMED.toLowerCase())).toBe(CHECKSUMMED);
    expect(normalizeRefundAddress(`0x${CHECKSUMMED.slice(2).toUpperCase()}`)).toBe(CHECKSUMMED);
    expect(normalizeRefundAddress(CHECKSUMMED)).toBe(CHECKSUMMED);
  });

  it('text before or after the 40 hex characters is refused', () => {
    for (const raw of [`x${CHECKSUMMED}`, `${CHECKSUMMED}0`, ` ${CHECKSUMMED}`, `${CHECKSUMMED}\n`]) {
      const e = caught(() => normalizeRefundAddress(raw));
      expect([e.type, e.code, e.param, e.status, e.message]).toEqual([
        'invalid_request',
        'parameter_invalid',
        'refund_address',
        400,
        'refund_address must be 0x followed by 40 hex characters.',
      ]);
    }
    expect(caught(() => normalizeRefundAddress(42)).message).toBe('refund_address must be 0x followed by 40 hex characters.');
  });

  it('the zero address is refused', () => {
    const e = caught(() => normalizeRefundAddress(`0x${'0'.repeat(40)}`));
    expect([e.code, e.param, e.message]).toEqual(['parameter_invalid', 'refund_address', 'refund_address must not be the zero address.']);
  });

  it('a mixed-case address with a wrong checksum is refused', () => {
    const wrong = CHECKSUMMED.replace('aAeb', 'AaEB');
    const e = caught(() => normalizeRefundAddress(wrong));
    expect([e.code, e.param, e.message]).toEqual(['parameter_invalid', 'refund_address', 'refund_address has an invalid EIP-55 checksum.']);
  });
});

describe('derivePayerType (spec 2.6, 4.3)', () => {
  it('an absent declaration, undefined or null, takes the account type', () => {
    expect(derivePayerType('individual', null)).toBe('individual');
    expect(derivePayerType('business', null)).toBe('business');
    expect(derivePayerType('individual', undefined)).toBe('individual');
  });

  it('a declaration that differs: 422 payer_type_mismatch naming the expected type', () => {
    const e = caught(() => derivePayerType('individual', 'business'));
    expect([e.code, e.status, e.param, e.message]).toEqual([
      'payer_type_mismatch',
      422,
      'payer_type',
      'payer_type is set by the service; this account pays as `individual`.',
    ]);
  });
});
