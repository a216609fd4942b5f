/**
 * Off-ramp from the holder's wallet to a bank account (spec 2.5 "Off-ramp intent", part 3, 4.5):
 * statuses and the transition table, the quote (USDC to the destination currency at the
 * reference rate, less the service fee and the developer's fee), the transit memo rule, and the
 * developer fee's parsing. USDC amounts are bigint minor units (6 decimals); fiat amounts minor
 * units of the destination currency; fees in basis points.
 *
 * Pure: no I/O.
 */
import { invalidRequest } from './errors';
import { floorDiv } from './money';
import { transitionTable } from './transitions';

export const OFFRAMP_STATUSES = Object.freeze([
  'awaiting_funds',
  'funds_received',
  'payment_submitted',
  'payment_processed',
  'refunded',
  'refund_failed',
  'canceled',
  'failed',
] as const);
export type OfframpStatus = (typeof OFFRAMP_STATUSES)[number];

/**
 * Transition table (spec 3; 409 `offramp_intent_state_changed`): funded intents pay the bank
 * (`payment_submitted` -> `payment_processed`) or give the USDC back (`refunded`, or
 * `refund_failed` when the refund cannot be sent); only `awaiting_funds` can be `canceled`, or
 * `failed` (nothing arrived in time), or `refunded` (short funds at the deadline, given back).
 */
export const offrampTransitions = transitionTable<OfframpStatus>('offramp_intent', {
  awaiting_funds: ['funds_received', 'canceled', 'failed', 'refunded'],
  funds_received: ['payment_submitted', 'refunded', 'refund_failed'],
  payment_submitted: ['payment_processed', 'refunded', 'refund_failed'],
  payment_processed: [],
  refunded: [],
  refund_failed: [],
  canceled: [],
  failed: [],
});

/** Why an off-ramp intent failed or was refunded. */
export const OFFRAMP_FAILURE_REASONS = Object.freeze(['funding_expired', 'payment_failed', 'payment_returned'] as const);
export type OfframpFailureReason = (typeof OFFRAMP_FAILURE_REASONS)[number];

/** The service's fee on an off-ramp (basis points of the USDC amount). */
export const OFFRAMP_FEE_BPS = 100n;
/** The largest developer fee (percent). */
export const MAX_DEVELOPER_FEE_PERCENT = 5;
/** Smallest off-ramp: 1 USDC. */
export const MIN_OFFRAMP_MINOR = 1_000_000n;
/** How long an intent waits for its transit deposit (seconds). */
export const OFFRAMP_FUNDING_SECONDS = 60 * 60;
/** How long a quote holds (seconds). */
export const OFFRAMP_QUOTE_SECONDS = 5 * 60;

/** Rails whose pooled settlement account matches on-chain deposits by a memo (the intent's reference). */
const MEMO_RAILS: readonly string[] = Object.freeze(['sepa', 'faster_payments']);

/** The on-chain memo of the transit deposit on `rail`: the reference on pooled rails, else null. */
export function transitMemo(rail: string, reference: string): string | null {
  return MEMO_RAILS.includes(rail) ? reference : null;
}

/**
 * `developer_fee_percent` (a decimal string, 0 to 5 with at most 2 decimals, e.g. `"1.25"`) in basis
 * points. Throws 400 `parameter_invalid` (param `developer_fee_percent`).
 */
export function developerFeeBps(percent: string | undefined | null): bigint {
  if (percent === undefined || percent === null) return 0n;
  const m = /^([0-9])(?:\.([0-9]{1,2}))?$/.exec(percent);
  const bps = m ? BigInt(m[1]) * 100n + BigInt((m[2] ?? '').padEnd(2, '0')) : -1n;
  if (bps < 0n || bps > BigInt(MAX_DEVELOPER_FEE_PERCENT) * 100n) {
    throw invalidRequest(
      'parameter_invalid',
      `developer_fee_percent is a decimal string from 0 to ${MAX_DEVELOPER_FEE_PERCENT} with at most 2 decimals.`,
      'developer_fee_percent',
    );
  }
  return bps;
}

/** A priced off-ramp: every amount the holder sees before signing. */
export interface OfframpPrice {
  amount: bigint;
  serviceFee: bigint;
  developerFee: bigint;
  net: bigint;
  /** Destination currency minor units the bank receives (floored). */
  destinationAmount: bigint;
  /** USDC minor units per destination major unit. */
  rate: bigint;
}

/**
 * Prices `amount` USDC minor units into a currency with `decimals` at `rate` (USDC minor per
 * major): the service fee (OFFRAMP_FEE_BPS) and the developer fee are taken from the USDC, both
 * rounded up; the net converts rounded down (the bank never receives more than the rate gives).
 */
export function priceOfframp(amount: bigint, developerBps: bigint, decimals: number, rate: bigint): OfframpPrice {
  const ceilBps = (v: bigint, bps: bigint) => (v * bps + 9_999n) / 10_000n;
  const serviceFee = ceilBps(amount, OFFRAMP_FEE_BPS);
  const developerFee = ceilBps(amount, developerBps);
  const net = amount - serviceFee - developerFee;
  return { amount, serviceFee, developerFee, net, destinationAmount: net > 0n ? floorDiv(net * 10n ** BigInt(decimals), rate) : 0n, rate };
}
