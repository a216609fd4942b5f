/**
 * Payment (pay-in) status rules (spec 2.4, part 3 "Payment"): the transition table every writer of
 * a payment status goes through. The moves themselves are decided by the deposit ledger
 * (domain/verdicts.ts `applyDeposit`, `expire`, `closeOnLinkEnd`) and by settlement.
 *
 * Pure: no I/O. Safe to import from workflows.
 */
import { transitionTable } from './transitions';
import type { PaymentStatus } from './verdicts';

export type { PaymentStatus } from './verdicts';

/**
 * The payment's transition table (spec part 3): awaiting -> underpaid / paid / overpaid (deposits),
 * expired (its deposit window closes or the link expires), abandoned (the link is cancelled);
 * underpaid -> paid / overpaid (top-up), unmatched (`partial_before_cancel`: the link ended);
 * paid / overpaid -> settled (wallet settlement sent); expired / abandoned -> unmatched
 * (`deposit_after_close`). `unmatched` and `refunded` are terminal (later deposits are recorded
 * only). Provider-settled bank rails add (spec part 3): paid / overpaid / settled ->
 * underpaid (a bank return leaves the total short: the later verdict overrides), overpaid -> paid
 * (a return brings it within the band), and paid / overpaid / settled -> refunded (the merchant
 * refunds the link). `marked_sent` changes no status. An illegal move is `409 conflict` code `payment_state_changed`.
 */
export const paymentTransitions = transitionTable<PaymentStatus>('payment', {
  awaiting: ['underpaid', 'paid', 'overpaid', 'expired', 'abandoned'],
  underpaid: ['paid', 'overpaid', 'unmatched'],
  paid: ['settled', 'underpaid', 'refunded'],
  overpaid: ['settled', 'paid', 'underpaid', 'refunded'],
  settled: ['underpaid', 'refunded'],
  unmatched: [],
  expired: ['unmatched'],
  abandoned: ['unmatched'],
  refunded: [],
});

/**
 * Live payments: those a deposit can still move towards paid, i.e. awaiting and underpaid (a paid
 * one only moves back to underpaid through a bank return). A payer's new attempt reuses one; a link
 * end closes them (`closeOnLinkEnd`).
 */
export const LIVE_PAYMENT_STATUSES: readonly PaymentStatus[] = Object.freeze(['awaiting', 'underpaid'] as const);

/** Statuses of a paid payment whose settlement may still be owed (those the table lets reach `settled`): paid, overpaid. */
export const SETTLEABLE_PAYMENT_STATUSES: readonly PaymentStatus[] = Object.freeze(paymentTransitions.sources('settled'));

/** Statuses of a payment that has been paid (receipts read these): paid, overpaid, settled. */
export const PAID_PAYMENT_STATUSES: readonly PaymentStatus[] = Object.freeze(['paid', 'overpaid', 'settled'] as const);

/** SQL list literal of `statuses` (`'a','b'`) for a WHERE built from a domain list (never from input). */
export function sqlStatusList(statuses: readonly string[]): string {
  return statuses.map((s) => `'${s.replace(/'/g, "''")}'`).join(',');
}
