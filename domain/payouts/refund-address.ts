/**
 * The payout `refund_address` rule (spec 2.6 fund request): an EVM address, never the zero
 * address, EIP-55 checksum when mixed-case; `400 invalid_request` `parameter_invalid` otherwise.
 * Pure.
 */
import { getAddress, isAddress } from 'viem';
import { invalidRequest } from '../errors';

/**
 * Validates a `refund_address` (spec 2.6 fund request): EVM `0x` + 40 hex, never the zero address,
 * a mixed-case address must carry a valid EIP-55 checksum (checked by viem). Returns the EIP-55 form.
 * Throws `400 invalid_request` code `parameter_invalid` param `refund_address`.
 */
export function normalizeRefundAddress(raw: unknown): string {
  const bad = (why: string) => invalidRequest('parameter_invalid', `refund_address ${why}.`, 'refund_address');
  if (typeof raw !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(raw)) throw bad('must be 0x followed by 40 hex characters');
  if (/^0x0{40}$/.test(raw)) throw bad('must not be the zero address');
  const hex = raw.slice(2);
  const mixed = hex !== hex.toLowerCase() && hex !== hex.toUpperCase();
  if (mixed && !isAddress(raw, { strict: true })) throw bad('has an invalid EIP-55 checksum');
  return getAddress(raw);
}
