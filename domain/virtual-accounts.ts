/**
 * Virtual accounts funding the holder's wallet (spec 2.5, 4.5, 4.6 `wallet_bank`): the
 * currencies and rails a virtual account is issued for, its statuses and transition table, the
 * purposes a list can filter by, and the conversion of a bank credit into USDC at the reference
 * rate. Fiat amounts are bigint minor units of their currency; USDC amounts minor units (6 decimals).
 *
 * Pure: no I/O.
 */
import { floorDiv } from './money';
import { transitionTable } from './transitions';

/** The rails each virtual-account currency receives on (USD: ACH and wire on one account number). */
export const VIRTUAL_ACCOUNT_RAILS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  USD: Object.freeze(['ach', 'wire']),
  EUR: Object.freeze(['sepa']),
  GBP: Object.freeze(['faster_payments']),
  MXN: Object.freeze(['spei']),
  BRL: Object.freeze(['pix']),
});
export const VIRTUAL_ACCOUNT_CURRENCIES: readonly string[] = Object.freeze(Object.keys(VIRTUAL_ACCOUNT_RAILS));

/**
 * What a virtual-account row is for: `wallet_funding` (created here; credits become USDC in the
 * wallet), `collection` (the account's bank collection in a currency: its bank-rail payment links
 * received money in it), `legacy_wallet` (rows of an earlier wallet product; listed, never created).
 */
export const VIRTUAL_ACCOUNT_PURPOSES = Object.freeze(['wallet_funding', 'collection', 'legacy_wallet'] as const);
export type VirtualAccountPurpose = (typeof VIRTUAL_ACCOUNT_PURPOSES)[number];

export const VIRTUAL_ACCOUNT_STATUSES = Object.freeze(['active', 'inactive'] as const);
export type VirtualAccountStatus = (typeof VIRTUAL_ACCOUNT_STATUSES)[number];

/**
 * Transition table (409 `virtual_account_state_changed`): deactivate and reactivate. Open set:
 * `active` only (an inactive account's workflow ends once no credit is pending; the recovery sweep
 * re-drives active accounts and those with a `received` credit).
 */
export const virtualAccountTransitions = transitionTable<VirtualAccountStatus>(
  'virtual_account',
  {
    active: ['inactive'],
    inactive: ['active'],
  },
  'virtual_account_state_changed',
  { open: ['active'] },
);

/**
 * What happened to a bank credit of a virtual account: `received` (recorded from the provider,
 * waiting for its account's workflow) -> `converted` (USDC sent to the wallet) | `returned` (to its
 * sender: the account was inactive, or the sending bank returned it).
 */
export const VIRTUAL_ACCOUNT_CREDIT_STATUSES = Object.freeze(['received', 'converted', 'returned'] as const);
export type VirtualAccountCreditStatus = (typeof VIRTUAL_ACCOUNT_CREDIT_STATUSES)[number];

/**
 * Transition table of a virtual-account credit; open set: `received`. Only the account's workflow
 * moves a credit; an illegal move answers its account's code, 409 `virtual_account_state_changed`.
 */
export const virtualAccountCreditTransitions = transitionTable<VirtualAccountCreditStatus>(
  'virtual_account_credit',
  {
    received: ['converted', 'returned'],
    converted: [],
    returned: [],
  },
  'virtual_account_state_changed',
);

/** The provider's return text for a credit to a deactivated virtual account. */
export const INACTIVE_RETURN_REASON = 'R16 Account frozen';

/**
 * USDC minor units for `fiatMinor` of a currency with `decimals` at `ratePerMajor` (USDC minor
 * units per major unit), rounded down: the wallet is never credited more than the rate gives.
 */
export function usdcForCredit(fiatMinor: bigint, decimals: number, ratePerMajor: bigint): bigint {
  return floorDiv(fiatMinor * ratePerMajor, 10n ** BigInt(decimals));
}
