/**
 * Payroll recipient destinations (spec 4.4 recipient sessions and adoption): the item's
 * destination-readiness transition table, when a run is open to destination changes, when a
 * session may still submit, the check of a submitted destination (a bank account on a rail of the
 * run currency, through domain/bank-details.ts; or a USDC wallet on the sandbox chain, its address
 * checksum-checked by domain/addresses.ts), the wallet mask, the adoption plan (which items take
 * the adopted destination, which are skipped and why) and the keyless rule (422
 * `destination_rail_keyless`). Decisions: docs/decisions/0037-payroll-recipient-sessions-and-destinations.md.
 *
 * Pure: no I/O, no clock.
 */
import { normalizeBeneficiary, RAIL_CURRENCY, type BankRail, type BeneficiaryInput, type MaskedBeneficiary } from './bank-details';
import { checkAddress, resolveChain } from './addresses';
import { invalidRequest } from './errors';
import { PAYROLL_RUN_CANCELLABLE, type PayrollItemStatus } from './payroll';
import type { PayrollDestination } from './payroll-execution';
import { REFERENCE_RATES_USDC_PER_MAJOR } from './payouts/pricing';
import { transitionTable, type TransitionMap, type TransitionTable } from './transitions';

/** Masked destination (the shape entities/payroll.ts stores): bank details masked, or a shortened wallet address. */
export type MaskedPayrollDestination =
  { type: 'bank_account'; bank: MaskedBeneficiary } | { type: 'wallet'; chain: string; asset: string; address_masked: string };

/** Destination readiness of an item (spec 2.7 "item counts by destination readiness"). */
export type DestinationStatus = 'missing' | 'pending_adoption' | 'ready';

/**
 * `missing` -> `pending_adoption` (the recipient submitted one) | `ready` (adopted);
 * `pending_adoption` -> `ready`. A ready item whose destination is replaced by a later adoption
 * stays `ready` (not a transition: only its destination changes).
 */
const DESTINATION_NEXT: TransitionMap<DestinationStatus> = {
  missing: ['pending_adoption', 'ready'],
  pending_adoption: ['ready'],
  ready: [],
};

/** The destination-readiness table; illegal: `409 conflict` `payroll_item_state_changed`. */
export const payrollDestinationTransitions: TransitionTable<DestinationStatus> = transitionTable(
  'payroll_item_destination',
  DESTINATION_NEXT,
  'payroll_item_state_changed',
);

/** A run still open to destination changes: not yet executing, finished or cancelled. */
export function runOpenForDestinations(runStatus: string): boolean {
  return (PAYROLL_RUN_CANCELLABLE as readonly string[]).includes(runStatus);
}

/** A run whose links may be reissued: anything but finished or cancelled (an executing run's recipient may still look). */
export function runAllowsReissue(runStatus: string): boolean {
  return !['completed', 'partial', 'failed', 'cancelled'].includes(runStatus);
}

/** Why a session cannot submit now, or null when it can (spec 4.4 session `can_submit`). */
export type SessionClosedReason = 'destination_already_submitted' | 'run_not_open' | 'item_in_payment';

export function sessionClosedReason(input: {
  submittedAt: Date | null;
  runStatus: string;
  itemStatus: string;
}): SessionClosedReason | null {
  if (input.submittedAt !== null) return 'destination_already_submitted';
  if (!runOpenForDestinations(input.runStatus)) return 'run_not_open';
  if (input.itemStatus !== 'pending') return 'item_in_payment';
  return null;
}

/** The body of `POST /payroll_recipient_sessions/{token}/destination` after joi (fields by `type`). */
export type DestinationInput =
  ({ type: 'bank_account' } & Partial<BeneficiaryInput>) | { type: 'wallet'; chain?: string; address?: string };

/** The sandbox chain a wallet destination is paid on (the chain adapter's identity). */
export interface PayoutChain {
  chain: string;
  asset: string;
  network: 'mainnet' | 'testnet';
}

const BANK_KEYS = [
  'account_owner_type',
  'account_holder_name',
  'bank_name',
  'rail',
  'account_number',
  'routing_number',
  'account_type',
  'iban',
  'bic',
  'sort_code',
  'clabe',
  'pix_key',
  'tax_id',
  'country',
] as const;

/** `0x5290...9EE7`: the first six and last four characters (case preserved). */
export function maskWalletAddress(address: string): string {
  return `${address.slice(0, 6)}...${address.slice(-4)}`;
}

/** Rails whose currency is `currency` (`ach` and `wire` for USD, ...). */
export function railsForCurrency(currency: string): BankRail[] {
  return (Object.keys(RAIL_CURRENCY) as BankRail[]).filter((r) => RAIL_CURRENCY[r] === currency);
}

/**
 * Checks a submitted destination for a run paying in `currency` and returns the raw destination
 * (stored encrypted only) and its masked projection. `400 invalid_request`:
 * - bank: `parameter_missing` for `account_owner_type` / `account_holder_name` / `rail`;
 *   `parameter_invalid` param `rail` when the rail does not pay in the run currency
 *   (`details.allowed_rails`); then the bank-details rules (field named);
 * - wallet: `parameter_missing` `chain` / `address`; `parameter_invalid` `chain` when not the
 *   sandbox chain, `address` when it fails its format or EIP-55 checksum;
 * - either: `parameter_invalid` naming a field of the other kind.
 */
export function checkSubmittedDestination(
  input: DestinationInput,
  currency: string,
  chain: PayoutChain,
): { destination: PayrollDestination; masked: MaskedPayrollDestination } {
  const raw = input as Record<string, unknown>;
  const given = (k: string) => raw[k] !== undefined && raw[k] !== null && raw[k] !== '';
  if (input.type === 'wallet') {
    const stray = BANK_KEYS.find(given);
    if (stray) throw invalidRequest('parameter_invalid', `\`${stray}\` does not apply to a wallet destination.`, stray);
    if (!given('chain')) throw invalidRequest('parameter_missing', 'A wallet destination needs `chain`.', 'chain');
    if (!given('address')) throw invalidRequest('parameter_missing', 'A wallet destination needs `address`.', 'address');
    if (resolveChain(input.chain) !== chain.chain) {
      throw invalidRequest('parameter_invalid', `Payroll pays wallets in ${chain.asset} on ${chain.chain} only.`, 'chain', {
        allowed_chains: [chain.chain],
      });
    }
    const check = checkAddress(chain.chain as never, input.address as string, chain.network);
    if (!check.ok) throw invalidRequest('parameter_invalid', `\`address\` is not valid: ${check.reason}.`, 'address');
    return {
      destination: { type: 'wallet', chain: chain.chain, asset: chain.asset, address: check.address },
      masked: { type: 'wallet', chain: chain.chain, asset: chain.asset, address_masked: maskWalletAddress(check.address) },
    };
  }
  for (const k of ['chain', 'address'])
    if (given(k)) throw invalidRequest('parameter_invalid', `\`${k}\` does not apply to a bank destination.`, k);
  for (const k of ['account_owner_type', 'account_holder_name', 'rail'] as const) {
    if (!given(k)) throw invalidRequest('parameter_missing', `A bank destination needs \`${k}\`.`, k);
  }
  const allowed = railsForCurrency(currency);
  const rail = input.rail as BankRail;
  if (!allowed.includes(rail)) {
    throw invalidRequest('parameter_invalid', `This run pays in ${currency}: \`rail\` must be ${allowed.join(' or ')}.`, 'rail', {
      currency,
      allowed_rails: allowed,
    });
  }
  const { details, masked } = normalizeBeneficiary(input as BeneficiaryInput);
  return { destination: { type: 'bank_account', bank: details }, masked: { type: 'bank_account', bank: masked } };
}

/**
 * Why `d` cannot be keyed for paying an item in `currency`, or null when it can (422
 * `destination_rail_keyless`): a bank destination whose rail does not pay in that currency (the
 * recipient submitted it through a run of another currency), or whose rail's account key is
 * absent (account number, IBAN, CLABE, Pix key; only details stored by older versions can lack
 * it); a wallet without a reference rate for the currency (it is paid in USDC at that rate).
 */
export function keylessReason(
  payrollDestination: PayrollDestination,
  currency: string,
): 'rail_currency_mismatch' | 'account_key_missing' | 'no_usdc_rate' | null {
  if (payrollDestination.type === 'wallet') return REFERENCE_RATES_USDC_PER_MAJOR[currency] === undefined ? 'no_usdc_rate' : null;
  const b = payrollDestination.bank;
  if (RAIL_CURRENCY[b.rail] !== currency) return 'rail_currency_mismatch';
  const key = b.rail === 'sepa' ? b.iban : b.rail === 'spei' ? b.clabe : b.rail === 'pix' ? b.pix_key : b.account_number;
  return key ? null : 'account_key_missing';
}

/** One item of the recipient, as the adoption sees it. */
export interface AdoptionItem {
  id: string;
  runId: string;
  runStatus: string;
  status: PayrollItemStatus;
  currency: string;
}

/** Why an item keeps its destination at adoption. */
export type AdoptionSkipReason = 'run_not_open' | 'item_in_payment' | 'item_finished';

/**
 * Splits the recipient's items: `update` (open run, item still `pending`) take the adopted
 * destination; the rest are skipped with a reason (`run_not_open`; `item_in_payment` while queued
 * or processing; `item_finished` once paid, failed or returned).
 */
export function adoptionPlan(items: readonly AdoptionItem[]): {
  update: AdoptionItem[];
  skipped: Array<AdoptionItem & { reason: AdoptionSkipReason }>;
} {
  const update: AdoptionItem[] = [];
  const skipped: Array<AdoptionItem & { reason: AdoptionSkipReason }> = [];
  for (const i of items) {
    if (!runOpenForDestinations(i.runStatus)) skipped.push({ ...i, reason: 'run_not_open' });
    else if (i.status === 'queued' || i.status === 'processing') skipped.push({ ...i, reason: 'item_in_payment' });
    else if (i.status !== 'pending') skipped.push({ ...i, reason: 'item_finished' });
    else update.push(i);
  }
  return { update, skipped };
}
