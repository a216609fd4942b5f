/**
 * Bank pay-in rules (spec 2.1 BankDepositInstructions, 2.4 provider-settled verdicts,
 * part 3 Payment, part 6 event rules): the provider-settled reducer of inbound bank credits and
 * returns, the matching basis of each rail, the fiat caps `payer_type` decides and the US
 * `payer_state` rule. Amounts are bigint minor units of the link currency (bank rails carry no
 * payer fee: the total due is the invoice).
 *
 * Pure: no I/O. Safe to import from Temporal workflows.
 */
import { capabilityUnavailable, invalidRequest } from './errors';
import type { PaymentLedger } from './verdicts';

/** How the provider matches an inbound credit to a payment (spec 2.1 `matching`). */
export type BankMatching = 'reference' | 'account_number';

/**
 * The matching basis of each bank rail in the sandbox collection provider: `account_number`
 * where the provider issues a receiving account (or key) per payment (ach, wire: account number;
 * faster_payments: sort code + account number; pix: a PIX key; spei: a CLABE), `reference` where
 * one pooled account takes every payment and only the typed reference tells them apart (sepa: a
 * pooled IBAN).
 */
export const BANK_MATCHING: Readonly<Record<string, BankMatching>> = Object.freeze({
  ach: 'account_number',
  wire: 'account_number',
  faster_payments: 'account_number',
  pix: 'account_number',
  spei: 'account_number',
  sepa: 'reference',
});

/** Tolerance of the provider-settled verdicts (spec 6): plus or minus 1% (100 bps) of the link amount. */
export const BANK_VERDICT_TOLERANCE_BPS = 100n;

/** The tolerance band in minor units: floor(expected x 1%). */
export function bankTolerance(expected: bigint): bigint {
  return (expected * BANK_VERDICT_TOLERANCE_BPS) / 10000n;
}

/**
 * Where a received total stands against the link amount (spec 6 provider-settled rule): `short`
 * below expected - 1%, `over` above expected + 1%, else `within`.
 */
export function bankBand(received: bigint, expected: bigint): 'short' | 'within' | 'over' {
  const tol = bankTolerance(expected);
  if (received < expected - tol) return 'short';
  if (received > expected + tol) return 'over';
  return 'within';
}

/** Outcome of `applyBankCredit` / `applyBankReturn`. */
export interface BankOutcome {
  next: PaymentLedger;
  effect: 'applied' | 'recorded_only';
  events: string[];
  unmatchedReason: 'deposit_after_close' | null;
}

/**
 * Applies one inbound credit (provider-settled reducer; spec 2.4, 3, 6). `inLinkCurrency` false:
 * `recorded_only` (held for support, no verdict: the rule counts only money in the link currency).
 * - `awaiting` / `underpaid`: received += amount; `short` -> `underpaid` (held open with its
 *   received amount; `payment.underpaid` at most once), `within` -> `paid` (`payment.paid`),
 *   `over` -> `overpaid` (`payment.overpaid` at most once).
 * - `expired` / `abandoned`: -> `unmatched` `deposit_after_close` (`payment.unmatched`).
 * - any other status: `recorded_only`, nothing published.
 * Throws 400 `amount_invalid` param `amount` when amount <= 0.
 */
export function applyBankCredit(paymentLedger: PaymentLedger, amount: bigint, inLinkCurrency = true): BankOutcome {
  if (typeof amount !== 'bigint' || amount <= 0n)
    throw invalidRequest('amount_invalid', 'A credit amount must be a positive number of minor units.', 'amount');
  const same = { next: { ...paymentLedger }, effect: 'recorded_only' as const, events: [], unmatchedReason: null };
  if (!inLinkCurrency) return same;
  if (paymentLedger.status === 'awaiting' || paymentLedger.status === 'underpaid') {
    const received = paymentLedger.received + amount;
    const band = bankBand(received, paymentLedger.expected);
    if (band === 'short') {
      return {
        next: { ...paymentLedger, status: 'underpaid', received, underpaidEmitted: true },
        effect: 'applied',
        events: paymentLedger.underpaidEmitted ? [] : ['payment.underpaid'],
        unmatchedReason: null,
      };
    }
    if (band === 'over') {
      return {
        next: { ...paymentLedger, status: 'overpaid', received, overpaidEmitted: true },
        effect: 'applied',
        events: paymentLedger.overpaidEmitted ? [] : ['payment.overpaid'],
        unmatchedReason: null,
      };
    }
    return { next: { ...paymentLedger, status: 'paid', received }, effect: 'applied', events: ['payment.paid'], unmatchedReason: null };
  }
  if (paymentLedger.status === 'expired' || paymentLedger.status === 'abandoned') {
    return {
      next: { ...paymentLedger, status: 'unmatched', received: paymentLedger.received + amount },
      effect: 'applied',
      events: ['payment.unmatched'],
      unmatchedReason: 'deposit_after_close',
    };
  }
  return same;
}

/**
 * The provider returns an applied credit of `amount` to its sender (a bank return: ACH R-code,
 * SEPA R-transaction, ...; spec 2.4 `return_reason`, part 3 "a later underpaid overrides them"):
 * received -= amount (never below 0). A `paid`, `overpaid` or `settled` payment whose total falls
 * `short` becomes `underpaid` (`payment.underpaid` at most once): the later verdict overrides
 * paid/settled. An `underpaid` or `awaiting` payment keeps its status with the lower total (an
 * awaiting one that received nothing stays awaiting); an `unmatched` one keeps its status. A
 * payment that is still `within` or `over` keeps its status.
 */
export function applyBankReturn(paymentLedger: PaymentLedger, amount: bigint): BankOutcome {
  const received = paymentLedger.received > amount ? paymentLedger.received - amount : 0n;
  const next: PaymentLedger = { ...paymentLedger, received };
  const events: string[] = [];
  if (
    (paymentLedger.status === 'paid' || paymentLedger.status === 'overpaid' || paymentLedger.status === 'settled') &&
    bankBand(received, paymentLedger.expected) === 'short'
  ) {
    next.status = 'underpaid';
    next.underpaidEmitted = true;
    if (!paymentLedger.underpaidEmitted) events.push('payment.underpaid');
  } else if (paymentLedger.status === 'overpaid' && bankBand(received, paymentLedger.expected) === 'within') {
    next.status = 'paid';
  }
  return { next, effect: 'applied', events, unmatchedReason: null };
}

/**
 * What the merchant's bank destination is owed for a provider-settled payment: the received
 * total, capped at the invoice (an overpayment's surplus is held, as on crypto rails, never
 * auto-refunded; a payment paid within the 1% band short settles what arrived), minus what was
 * already paid out. Never negative.
 */
export function bankSettlementDue(received: bigint, invoice: bigint, alreadySettled: bigint): bigint {
  const owed = received < invoice ? received : invoice;
  return owed > alreadySettled ? owed - alreadySettled : 0n;
}

/** Who declares themselves paying (spec 4.1 `payer_type`). */
export type PayerType = 'individual' | 'business';

/**
 * Fiat caps per payment by `payer_type` (spec 4.1 "decides the fiat cap"), in major units of the
 * link currency: an individual payer up to the first figure, a business payer up to the second.
 */
export const FIAT_CAPS_MAJOR: Readonly<Record<string, { individual: bigint; business: bigint }>> = Object.freeze({
  USD: { individual: 10_000n, business: 250_000n },
  EUR: { individual: 10_000n, business: 250_000n },
  GBP: { individual: 10_000n, business: 250_000n },
  BRL: { individual: 50_000n, business: 1_250_000n },
  MXN: { individual: 200_000n, business: 5_000_000n },
});

/** The cap of a `payerType` payment in `currency`, in minor units (`decimals`); null when uncapped (unknown currency). */
export function fiatCapMinor(currency: string, decimals: number, payerType: PayerType): bigint | null {
  const caps = FIAT_CAPS_MAJOR[currency];
  return caps ? caps[payerType] * 10n ** BigInt(decimals) : null;
}

/**
 * US states where an individual-to-individual bank collection is not offered by the sandbox
 * provider (money-transmission licensing of person-to-person collection): NY and HI.
 */
export const US_STATES_UNSUPPORTED_P2P: readonly string[] = Object.freeze(['NY', 'HI']);

/** Every US state and DC (two-letter), for `payer_state`. */
export const US_STATES: readonly string[] = Object.freeze([
  'AL',
  'AK',
  'AZ',
  'AR',
  'CA',
  'CO',
  'CT',
  'DE',
  'DC',
  'FL',
  'GA',
  'HI',
  'ID',
  'IL',
  'IN',
  'IA',
  'KS',
  'KY',
  'LA',
  'ME',
  'MD',
  'MA',
  'MI',
  'MN',
  'MS',
  'MO',
  'MT',
  'NE',
  'NV',
  'NH',
  'NJ',
  'NM',
  'NY',
  'NC',
  'ND',
  'OH',
  'OK',
  'OR',
  'PA',
  'RI',
  'SC',
  'SD',
  'TN',
  'TX',
  'UT',
  'VT',
  'VA',
  'WA',
  'WV',
  'WI',
  'WY',
]);

/** Input of `checkBankPayer`. */
export interface BankPayerCheck {
  rail: string;
  currency: string;
  decimals: number;
  amountMinor: bigint;
  payerType: PayerType;
  payerState: string | null;
  merchantType: 'individual' | 'business';
}

/**
 * Payer checks of a bank-rail payment (spec 4.1 `payer_type`, `payer_state`), in order:
 * - the fiat cap of `payerType`: amount above it is `409 capability_unavailable` code
 *   `fiat_cap_exceeded` (details `cap`, `payer_type`);
 * - an `individual` payer on a US rail (ach, wire) paying an `individual` merchant: `payer_state`
 *   is required (400 `parameter_missing` param `payer_state`), must be a US state (400
 *   `parameter_invalid` param `payer_state`) and not one of US_STATES_UNSUPPORTED_P2P (409
 *   capability_unavailable code `payer_state_unsupported`, details `payer_state`). In every other
 *   case `payer_state` is not consulted.
 */
export function checkBankPayer(bankPayerCheck: BankPayerCheck): void {
  const cap = fiatCapMinor(bankPayerCheck.currency, bankPayerCheck.decimals, bankPayerCheck.payerType);
  if (cap !== null && bankPayerCheck.amountMinor > cap) {
    throw capabilityUnavailable(
      'fiat_cap_exceeded',
      `A ${bankPayerCheck.payerType} payer can pay at most ${cap} minor units of ${bankPayerCheck.currency} by bank.`,
      {
        cap: { amount: cap.toString(), currency: bankPayerCheck.currency, decimals: bankPayerCheck.decimals },
        payer_type: bankPayerCheck.payerType,
      },
    );
  }
  if (
    bankPayerCheck.payerType !== 'individual' ||
    bankPayerCheck.merchantType !== 'individual' ||
    (bankPayerCheck.rail !== 'ach' && bankPayerCheck.rail !== 'wire')
  )
    return;
  if (!bankPayerCheck.payerState)
    throw invalidRequest(
      'parameter_missing',
      'payer_state is required for an individual paying an individual by US bank transfer.',
      'payer_state',
    );
  if (!US_STATES.includes(bankPayerCheck.payerState))
    throw invalidRequest('parameter_invalid', 'payer_state must be a US state code.', 'payer_state');
  if (US_STATES_UNSUPPORTED_P2P.includes(bankPayerCheck.payerState)) {
    throw capabilityUnavailable(
      'payer_state_unsupported',
      `Person-to-person bank collection is not offered to payers in ${bankPayerCheck.payerState}.`,
      { payer_state: bankPayerCheck.payerState },
    );
  }
}
