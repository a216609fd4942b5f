/**
 * What the money that arrived means for a payout (spec 2.6, 8): the settlement verdict of the
 * recipient-confirmed fiat amount against the invoice (`settled` within the tolerance of 0.05% of
 * the invoice plus 10 minor units, 25 for MXN; `paid_with_shortfall` below; `paid` with attention
 * above), and on the USDC side the surplus above the quoted gross and what is held for return.
 * Fiat in minor units of the invoice currency, USDC in 6-decimal minor units. Pure.
 */
import { bpsOf } from '../fees';

/** Settled tolerance in basis points of the invoice (spec 8: 0.05%). */
export const SETTLED_TOLERANCE_BPS = 5;

/**
 * USDC received above the quoted gross amount (spec 2.6 funding instructions: the payer is asked
 * for `gross_amount`, which already carries the fee and the buffer). The fiat payment never uses
 * more than the gross (the recipient is paid the invoice, never more), so the surplus goes back to
 * the payer. 0 when nothing arrived above the gross. Amounts in USDC minor units.
 */
export function fundingSurplus(receivedUsdc: bigint, grossUsdc: bigint): bigint {
  return receivedUsdc > grossUsdc ? receivedUsdc - grossUsdc : 0n;
}

/**
 * USDC the provider holds for return to the payer (spec 2.6 `missing_return_policy` while held with
 * no return address): everything observed at the funding address, less what the fiat payment
 * consumed (0 once it failed or was returned) and what was already returned. Null when nothing is
 * held. Throws RangeError when the figures are inconsistent (consumed + returned above observed).
 */
export function heldForReturn(observedUsdc: bigint, consumedUsdc: bigint, returnedUsdc: bigint): bigint | null {
  const held = observedUsdc - consumedUsdc - returnedUsdc;
  if (held < 0n)
    throw new RangeError(`held USDC would be negative: observed ${observedUsdc}, consumed ${consumedUsdc}, returned ${returnedUsdc}`);
  return held === 0n ? null : held;
}

/** The settled tolerance of spec 8 for an invoice: floor(0.05% of invoice) + 10 minor units (25 for MXN). */
export function settledTolerance(invoiceMinor: bigint, currency: string): bigint {
  return bpsOf(invoiceMinor, SETTLED_TOLERANCE_BPS, 'floor') + (currency === 'MXN' ? 25n : 10n);
}

/** Verdict of a recipient-confirmed amount against the invoice (spec 2.6 `settled`, `paid_with_shortfall`). */
export interface SettlementVerdict {
  status: 'settled' | 'paid_with_shortfall' | 'paid';
  /** invoice - received when short, else null. */
  shortfall: bigint | null;
  /** True when received is above the tolerance: the payout stays `paid` and needs attention. */
  needsAttention: boolean;
}

/**
 * `settled` when the recipient got the invoice exactly or at most the tolerance above it;
 * `paid_with_shortfall` (terminal) when below the invoice; above the tolerance the payout stays
 * `paid` with `needs_attention` (the reconciliation signal; decision in docs/decisions/0013-payouts.md).
 */
export function settlementVerdict(invoiceMinor: bigint, receivedMinor: bigint, currency: string): SettlementVerdict {
  if (receivedMinor < invoiceMinor)
    return { status: 'paid_with_shortfall', shortfall: invoiceMinor - receivedMinor, needsAttention: false };
  if (receivedMinor - invoiceMinor <= settledTolerance(invoiceMinor, currency))
    return { status: 'settled', shortfall: null, needsAttention: false };
  return { status: 'paid', shortfall: null, needsAttention: true };
}
