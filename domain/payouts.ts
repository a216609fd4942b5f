/**
 * Payout rules (spec 2.6, 3 "Payout", 4.3, 4.6, 8): the corridor table, status groups and
 * transitions, funding maths (quote rounded up to the cent, buffer of at most 0.05%, gross-up
 * for the 100 bps fee on the gross source amount), the settled tolerance (0.05% of the invoice
 * plus 10 minor units, 25 for MXN) and the refund-address rules.
 *
 * Every amount is a bigint of minor units: fiat amounts in the corridor currency's scale
 * (ISO 4217), source amounts in USDC (6 decimals). Pure: no I/O, safe in workflows.
 */
import { getAddress, isAddress } from 'viem';
import { invalidRequest } from './errors';
import { bpsOf } from './fees';
import { ceilDiv, floorDiv, type Money } from './money';
import { transitionTable, type TransitionMap, type TransitionTable } from './transitions';

/** Payout statuses (spec 2.6: 11 values). `paid` is not terminal. */
export const PAYOUT_STATUSES = Object.freeze([
  'draft', 'awaiting_funds', 'funds_received', 'processing', 'paid', 'paid_with_shortfall',
  'settled', 'failed', 'returned', 'expired', 'cancelled',
] as const);
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** Terminal statuses: nothing moves after them (spec 2.6: `paid_with_shortfall` never becomes `settled`). */
export const PAYOUT_TERMINAL: readonly PayoutStatus[] = Object.freeze(['settled', 'paid_with_shortfall', 'failed', 'returned', 'expired', 'cancelled'] as PayoutStatus[]);

/** Pre-funds statuses: the ones `POST /payouts/{id}/cancel` may leave (spec 3). */
export const PAYOUT_PRE_FUNDS: readonly PayoutStatus[] = Object.freeze(['draft', 'awaiting_funds'] as PayoutStatus[]);

/** True for a terminal payout status. */
export function isPayoutTerminal(s: string): boolean {
  return (PAYOUT_TERMINAL as readonly string[]).includes(s);
}

/** `status_group` filter values of `GET /payouts` (spec 4.3). */
export const PAYOUT_STATUS_GROUPS = Object.freeze({
  /** draft, awaiting_funds, paid_with_shortfall, or any payout with needs_attention true. */
  needs_you: Object.freeze(['draft', 'awaiting_funds', 'paid_with_shortfall'] as PayoutStatus[]),
  in_progress: Object.freeze(['funds_received', 'processing', 'paid'] as PayoutStatus[]),
  done: Object.freeze(['settled', 'failed', 'returned', 'expired', 'cancelled'] as PayoutStatus[]),
});
export type PayoutStatusGroup = keyof typeof PAYOUT_STATUS_GROUPS;

/** Fee on the gross source amount, in basis points (spec 2.6 `fee_bps`, 8: 100 bps). */
export const PAYOUT_FEE_BPS = 100;
/** Funding buffer in basis points (spec 8: at most 0.05%). */
export const PAYOUT_BUFFER_BPS = 5;
/** Settled tolerance in basis points of the invoice (spec 8: 0.05%). */
export const SETTLED_TOLERANCE_BPS = 5;

/** Source asset of every payout (spec 2.6: only USDC) and its scale. */
export const PAYOUT_SOURCE_ASSET = 'USDC';
export const USDC_DECIMALS = 6;

/** Source chains an external wallet can fund from (EVM chains with USDC). */
export const PAYOUT_SOURCE_CHAINS = Object.freeze(['base', 'ethereum', 'polygon', 'arbitrum', 'optimism'] as const);
/** `source_chain` while none was chosen (spec 2.6). */
export const DEFAULT_SOURCE_CHAIN = 'base';

/** Version of the corridor table stamped into `capability_snapshot.version` at creation (spec 2.6). */
export const CAPABILITY_VERSION = '2026-11-01';

export type CorridorId = 'usd_ach' | 'usd_wire' | 'eur_sepa' | 'gbp_faster_payments' | 'brl_pix' | 'mxn_spei' | 'cop_co_bank_transfer';

/** One row of the corridor table (spec 2.6, 4.6). Amounts in minor units of `currency`. */
export interface Corridor {
  id: CorridorId;
  currency: string;
  decimals: number;
  /** Fiat rail name as published (`faster_payments`, never `fps`; spec 9 rule 7). */
  fiat_rail: string;
  lifecycle: 'public' | 'preview' | 'blocked';
  public_claim_status: 'live' | 'unverified' | 'planned';
  /** Set on a corridor blocked by its lifecycle (never payable). */
  lifecycle_blocked_reason: string | null;
  source_chains: readonly string[];
  min_minor: bigint;
  max_minor: bigint;
  /** Typical time from funds received to the recipient's bank, seconds. */
  eta_seconds: number;
  display_label: string;
  logo_url: string;
  /** Tolerance floor in minor units of the settled check (spec 8: 10, 25 for MXN). */
  tolerance_minor_units: bigint;
}

const LOGO = (id: string) => `https://assets.payments.example/corridors/${id}.svg`;
const ALL = PAYOUT_SOURCE_CHAINS;

/** The corridor table, in publication order. */
export const CORRIDORS: readonly Corridor[] = Object.freeze([
  { id: 'usd_ach', currency: 'USD', decimals: 2, fiat_rail: 'ach', lifecycle: 'public', public_claim_status: 'live', lifecycle_blocked_reason: null, source_chains: ALL, min_minor: 100n, max_minor: 10_000_000n, eta_seconds: 172800, display_label: 'US bank account (ACH)', logo_url: LOGO('usd_ach'), tolerance_minor_units: 10n },
  { id: 'usd_wire', currency: 'USD', decimals: 2, fiat_rail: 'wire', lifecycle: 'public', public_claim_status: 'live', lifecycle_blocked_reason: null, source_chains: ALL, min_minor: 10_000n, max_minor: 100_000_000n, eta_seconds: 86400, display_label: 'US bank account (wire)', logo_url: LOGO('usd_wire'), tolerance_minor_units: 10n },
  { id: 'eur_sepa', currency: 'EUR', decimals: 2, fiat_rail: 'sepa', lifecycle: 'public', public_claim_status: 'live', lifecycle_blocked_reason: null, source_chains: ALL, min_minor: 100n, max_minor: 10_000_000n, eta_seconds: 86400, display_label: 'Euro bank account (SEPA)', logo_url: LOGO('eur_sepa'), tolerance_minor_units: 10n },
  { id: 'gbp_faster_payments', currency: 'GBP', decimals: 2, fiat_rail: 'faster_payments', lifecycle: 'public', public_claim_status: 'live', lifecycle_blocked_reason: null, source_chains: ALL, min_minor: 100n, max_minor: 25_000_000n, eta_seconds: 7200, display_label: 'UK bank account (Faster Payments)', logo_url: LOGO('gbp_faster_payments'), tolerance_minor_units: 10n },
  { id: 'brl_pix', currency: 'BRL', decimals: 2, fiat_rail: 'pix', lifecycle: 'preview', public_claim_status: 'unverified', lifecycle_blocked_reason: null, source_chains: ['base', 'ethereum', 'polygon'], min_minor: 1_000n, max_minor: 5_000_000n, eta_seconds: 600, display_label: 'Brazil (PIX)', logo_url: LOGO('brl_pix'), tolerance_minor_units: 10n },
  { id: 'mxn_spei', currency: 'MXN', decimals: 2, fiat_rail: 'spei', lifecycle: 'preview', public_claim_status: 'unverified', lifecycle_blocked_reason: null, source_chains: ['base', 'ethereum', 'polygon'], min_minor: 2_000n, max_minor: 50_000_000n, eta_seconds: 1800, display_label: 'Mexico (SPEI)', logo_url: LOGO('mxn_spei'), tolerance_minor_units: 25n },
  { id: 'cop_co_bank_transfer', currency: 'COP', decimals: 2, fiat_rail: 'co_bank_transfer', lifecycle: 'blocked', public_claim_status: 'planned', lifecycle_blocked_reason: 'corridor_blocked', source_chains: [], min_minor: 0n, max_minor: 0n, eta_seconds: 0, display_label: 'Colombia (bank transfer)', logo_url: LOGO('cop_co_bank_transfer'), tolerance_minor_units: 10n },
] as Corridor[]);

/** Every corridor id (the closed request enum of `corridor_id`). */
export const CORRIDOR_IDS: readonly CorridorId[] = Object.freeze(CORRIDORS.map((c) => c.id));

/** The corridor `id`, or null. */
export function corridorById(id: string): Corridor | null {
  return CORRIDORS.find((c) => c.id === id) ?? null;
}

/** Account facts that decide whether a corridor is executable for it now. */
export interface CorridorGate {
  /** Account access state (spec 2.2): anything but `active` blocks every corridor. */
  accessState: string;
  /** Whether preview corridors are open to this account (launch flag). */
  previewOpen: boolean;
  /** Whether payouts are switched on at all (resource switch). */
  payoutsOpen: boolean;
}

/** Executable verdict of one corridor for an account: `blocked_reason` null exactly when executable. */
export interface CorridorVerdict { executable: boolean; blocked_reason: string | null; action: string }

/**
 * Whether `c` is executable now for the account described by `g` (spec 4.6; availability is
 * never authorization: callers re-check at create and at the money boundary).
 * Reasons (open enum): `corridor_blocked` (lifecycle), `payouts_disabled`, `account_restricted`,
 * `preview_not_enabled`.
 */
export function corridorVerdict(c: Corridor, g: CorridorGate): CorridorVerdict {
  if (c.lifecycle === 'blocked') return { executable: false, blocked_reason: c.lifecycle_blocked_reason ?? 'corridor_blocked', action: 'none' };
  if (!g.payoutsOpen) return { executable: false, blocked_reason: 'payouts_disabled', action: 'none' };
  if (g.accessState !== 'active') return { executable: false, blocked_reason: 'account_restricted', action: 'contact_support' };
  if (c.lifecycle === 'preview' && !g.previewOpen) return { executable: false, blocked_reason: 'preview_not_enabled', action: 'contact_support' };
  return { executable: true, blocked_reason: null, action: 'none' };
}

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
    throw invalidRequest('payer_type_mismatch', `payer_type is set by the service; this account pays as \`${expected}\`.`, 'payer_type',
      { expected, received: declared }, 422);
  }
  return expected;
}

/**
 * Checks an invoice amount against the corridor (spec 2.6, 4.3): currency must be the corridor's
 * (400 `currency_mismatch`, param `invoice_amount`), and the amount within [minimum, max_amount]
 * (400 `amount_invalid` with `details.minimum` / `details.max_amount` as Money).
 */
export function checkInvoiceAmount(c: Corridor, invoice: Money, minor: bigint): void {
  if (invoice.currency !== c.currency) {
    throw invalidRequest('currency_mismatch', `Corridor ${c.id} pays in ${c.currency}, not ${invoice.currency}.`, 'invoice_amount',
      { corridor_id: c.id, currency: c.currency });
  }
  const mk = (v: bigint): Money => ({ amount: v.toString(), currency: c.currency, decimals: c.decimals });
  if (minor < c.min_minor) throw invalidRequest('amount_invalid', `The minimum for ${c.id} is ${mk(c.min_minor).amount} minor units.`, 'invoice_amount', { minimum: mk(c.min_minor) });
  if (minor > c.max_minor) throw invalidRequest('amount_invalid', `The maximum for ${c.id} is ${mk(c.max_minor).amount} minor units.`, 'invoice_amount', { max_amount: mk(c.max_minor) });
}

/**
 * Sandbox reference rates: USDC minor units (6 decimals) per one major unit of fiat. A live
 * deployment reads these from its quote provider; figures derived from them are estimates.
 */
export const REFERENCE_RATES_USDC_PER_MAJOR: Readonly<Record<string, bigint>> = Object.freeze({
  USD: 1_000_000n, EUR: 1_080_000n, GBP: 1_270_000n, BRL: 200_000n, MXN: 58_000n, COP: 250n,
});

/**
 * Converts a fiat amount (minor units at `decimals`) to USDC minor units at `ratePerMajor`
 * (USDC minor per fiat major), rounded up (never under-quote).
 */
export function fiatToUsdcCeil(fiatMinor: bigint, decimals: number, ratePerMajor: bigint): bigint {
  return ceilDiv(fiatMinor * ratePerMajor, 10n ** BigInt(decimals));
}

/** Converts USDC minor units to fiat minor units at `ratePerMajor`, rounded down (never over-promise). */
export function usdcToFiatFloor(usdcMinor: bigint, decimals: number, ratePerMajor: bigint): bigint {
  return floorDiv(usdcMinor * 10n ** BigInt(decimals), ratePerMajor);
}

/** USDC minor units in one cent. */
const CENT_USDC = 10_000n;

/**
 * Gross source amount for a net `amount` with a fee of `bps` on the gross (spec 2.6):
 * gross = amount x 10000 / (10000 - bps), rounded up to the USDC minor unit. RangeError for bps outside 0..9999.
 */
export function grossUp(amount: bigint, bps: number): bigint {
  if (!Number.isSafeInteger(bps) || bps < 0 || bps >= 10000) throw new RangeError(`bps must be 0..9999, got ${bps}`);
  return ceilDiv(amount * 10000n, BigInt(10000 - bps));
}

/** Funding estimate of spec 2.6, all in USDC minor units (6 decimals). */
export interface FundingQuote {
  /** The invoice converted at the reference rate, before rounding. */
  quote: bigint;
  /** `quote` rounded up to the cent (a multiple of 10000). */
  rounded: bigint;
  /** floor(rounded x 0.05%) floored to the cent: at most 0.05% (spec 8). */
  buffer: bigint;
  /** rounded + buffer: what must arrive net of the fee. */
  amount: bigint;
  /** gross - amount. */
  fee: bigint;
  /** amount x 10000 / (10000 - fee_bps), rounded up: what the payer sends. */
  gross: bigint;
}

/**
 * Funding quote of an invoice (spec 2.6 funding instructions, 8): quote rounded up to the cent,
 * plus a buffer of at most 0.05% (floored to the cent, so never above the cap), then grossed up
 * for `feeBps` on the gross source amount. Throws RangeError for an unknown currency rate.
 */
export function fundingQuote(invoiceMinor: bigint, currency: string, decimals: number, feeBps = PAYOUT_FEE_BPS): FundingQuote {
  const rate = REFERENCE_RATES_USDC_PER_MAJOR[currency];
  if (rate === undefined) throw new RangeError(`no reference rate for ${currency}`);
  const quote = fiatToUsdcCeil(invoiceMinor, decimals, rate);
  const rounded = ceilDiv(quote, CENT_USDC) * CENT_USDC;
  const buffer = floorDiv(bpsOf(rounded, PAYOUT_BUFFER_BPS, 'floor'), CENT_USDC) * CENT_USDC;
  const amount = rounded + buffer;
  const gross = grossUp(amount, feeBps);
  return { quote, rounded, buffer, amount, fee: gross - amount, gross };
}

/**
 * Fiat the provider pays for `receivedUsdc` that arrived (spec 2.6, 8): the fee of `feeBps` on the
 * gross received amount (rounded up) is taken, the rest converted at the reference rate (floored),
 * capped at the invoice: the recipient is paid the invoice, never more.
 */
export function fiatPayable(receivedUsdc: bigint, invoiceMinor: bigint, currency: string, decimals: number, feeBps = PAYOUT_FEE_BPS): { fee: bigint; net: bigint; fiat: bigint } {
  const rate = REFERENCE_RATES_USDC_PER_MAJOR[currency];
  if (rate === undefined) throw new RangeError(`no reference rate for ${currency}`);
  const fee = bpsOf(receivedUsdc, feeBps, 'ceil');
  const net = receivedUsdc - fee;
  const fiat = usdcToFiatFloor(net, decimals, rate);
  return { fee, net, fiat: fiat > invoiceMinor ? invoiceMinor : fiat };
}

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
  if (held < 0n) throw new RangeError(`held USDC would be negative: observed ${observedUsdc}, consumed ${consumedUsdc}, returned ${returnedUsdc}`);
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
 * `paid` with `needs_attention` (the reconciliation signal; decision in docs/decisions.md).
 */
export function settlementVerdict(invoiceMinor: bigint, receivedMinor: bigint, currency: string): SettlementVerdict {
  if (receivedMinor < invoiceMinor) return { status: 'paid_with_shortfall', shortfall: invoiceMinor - receivedMinor, needsAttention: false };
  if (receivedMinor - invoiceMinor <= settledTolerance(invoiceMinor, currency)) return { status: 'settled', shortfall: null, needsAttention: false };
  return { status: 'paid', shortfall: null, needsAttention: true };
}

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

/** Transitions of a payout, as (from -> allowed next) (spec 3; others: decision). */
const NEXT: TransitionMap<PayoutStatus> = {
  draft: ['awaiting_funds', 'cancelled'],
  awaiting_funds: ['funds_received', 'expired', 'cancelled', 'failed'],
  funds_received: ['processing', 'failed', 'returned'],
  processing: ['paid', 'failed', 'returned'],
  paid: ['settled', 'paid_with_shortfall', 'returned'],
  paid_with_shortfall: [],
  settled: [],
  failed: [],
  returned: [],
  expired: [],
  cancelled: [],
};

/**
 * The payout transition table (spec 3): every payout status write goes through
 * `PAYOUT_TRANSITIONS.assert(from, to)`; an illegal one is `409 conflict` code `payout_state_changed`.
 */
export const PAYOUT_TRANSITIONS: TransitionTable<PayoutStatus> = transitionTable('payout', NEXT, 'payout_state_changed');

/**
 * Asserts `from -> to` is a payout transition; throws `409 conflict` code `payout_state_changed`
 * (IllegalTransition) otherwise (state moved; re-read).
 */
export function assertPayoutTransition(from: string, to: PayoutStatus): void {
  PAYOUT_TRANSITIONS.assert(from, to);
}

/** True when `from -> to` is a payout transition. */
export function canTransition(from: string, to: PayoutStatus): boolean {
  return PAYOUT_TRANSITIONS.can(from, to);
}

/**
 * Payout attempt statuses: `creating` (no provider transfer yet), then the payout statuses the
 * attempt went through while it was the payout's current one.
 */
export const PAYOUT_ATTEMPT_STATUSES = Object.freeze([
  'creating', 'awaiting_funds', 'funds_received', 'processing', 'paid', 'paid_with_shortfall',
  'settled', 'failed', 'returned', 'expired', 'cancelled',
] as const);
export type PayoutAttemptStatus = (typeof PAYOUT_ATTEMPT_STATUSES)[number];

/**
 * Transitions of a payout attempt: it follows its payout (the payout table without `draft`), and
 * `creating` ends when the transfer exists or the payout is cancelled, expires or fails.
 */
const { draft: _draft, ...NEXT_AFTER_DRAFT } = NEXT;
const ATTEMPT_NEXT = {
  creating: ['awaiting_funds', 'cancelled', 'expired', 'failed'],
  ...NEXT_AFTER_DRAFT,
} as TransitionMap<PayoutAttemptStatus>;

/** The payout attempt transition table; an illegal transition is `409 conflict` code `payout_attempt_state_changed`. */
export const PAYOUT_ATTEMPT_TRANSITIONS: TransitionTable<PayoutAttemptStatus> = transitionTable('payout_attempt', ATTEMPT_NEXT);

/** The attempt statuses that may move to `to` (the `WHERE status IN (...)` of an SQL status update). */
export function payoutAttemptSources(to: PayoutAttemptStatus): PayoutAttemptStatus[] {
  return PAYOUT_ATTEMPT_TRANSITIONS.statuses.filter((s) => PAYOUT_ATTEMPT_TRANSITIONS.can(s, to));
}

/** The payout statuses that may move to `to` (the `WHERE status IN (...)` of an SQL status update). */
export function payoutSources(to: PayoutStatus): PayoutStatus[] {
  return PAYOUT_TRANSITIONS.statuses.filter((s) => PAYOUT_TRANSITIONS.can(s, to));
}

/** Seconds a funding address waits for USDC before the payout expires (decision: 24 hours). */
export const FUNDING_WINDOW_SECONDS = 24 * 3600;
/** Seconds a prepared service-wallet send stays signable (decision: 15 minutes). */
export const WALLET_SEND_SIGNABLE_SECONDS = 15 * 60;

/** Hold after a prepared wallet send stops being signable during which cancel is refused (spec 4.3, 8: 30 minutes). */
export const WALLET_FUNDING_CANCEL_HOLD_MS = 30 * 60 * 1000;

/**
 * Whether a prepared wallet send blocks cancel at `nowMs` (spec 4.3): while signable and for 30
 * minutes after it expires. Returns the time cancel is allowed again (ms), or null when not blocking.
 */
export function walletSendCancelBlock(send: { status: string; signableUntilMs: number }, nowMs: number): number | null {
  if (send.status !== 'signable' && send.status !== 'expired') return null;
  const until = send.signableUntilMs + WALLET_FUNDING_CANCEL_HOLD_MS;
  return nowMs < until ? until : null;
}

/** Cross-network cost of a service-wallet send in bps of the delivery (sandbox router), minimum one cent. */
export const CROSS_NETWORK_COST_BPS = 10;

/** Wallet send estimate for delivering `required` USDC on another chain: required + max(ceil(10 bps), 1 cent). */
export function walletSendEstimate(required: bigint, sameChain: boolean): bigint {
  if (sameChain) return required;
  const cost = bpsOf(required, CROSS_NETWORK_COST_BPS, 'ceil');
  return required + (cost < CENT_USDC ? CENT_USDC : cost);
}
