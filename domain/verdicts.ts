/**
 * Pay-in verdicts and link status rules (spec 2.3, 2.4 verdict rules, part 3 Payment link
 * and Payment tables, part 6 event rules). All amounts are bigint minor units of the
 * payment's asset (USDC, 6 decimals, on crypto rails); `expected` is the frozen total due
 * (invoice plus payer fee, see fees.totalDue).
 *
 * Pure: no I/O. Safe to import from Temporal workflows.
 */
import { invalidRequest } from './errors';

/** Pay-in states produced by the deposit ledger below (spec part 3 Payment table). */
export type PaymentStatus = 'awaiting' | 'underpaid' | 'paid' | 'overpaid' | 'settled' | 'unmatched' | 'expired' | 'abandoned' | 'refunded';

/** The states `PaymentLedger` can be in, in lifecycle order. */
export const LEDGER_PAYMENT_STATUSES: readonly PaymentStatus[] = Object.freeze([
  'awaiting',
  'underpaid',
  'paid',
  'overpaid',
  'settled',
  'unmatched',
  'expired',
  'abandoned',
  'refunded',
] as const);

/**
 * The closed enum of the `GET /payments?status=` filter (spec 2.4: 12-state lifecycle; 4.2:
 * unrecognised value is 400). Also the keys of `summary.by_status`.
 */
export const PAYMENT_STATUS_FILTER_VALUES = Object.freeze([
  'awaiting',
  'processing',
  'funds_received',
  'underpaid',
  'paid',
  'overpaid',
  'settled',
  'unmatched',
  'expired',
  'abandoned',
  'refunded',
  'failed',
] as const);

/** One value of the 12-state payment status filter. */
export type PaymentStatusFilterValue = (typeof PAYMENT_STATUS_FILTER_VALUES)[number];

/** True when `s` is one of the 12 filter values (spec 4.2). */
export function isPaymentStatusFilterValue(value: unknown): value is PaymentStatusFilterValue {
  return typeof value === 'string' && (PAYMENT_STATUS_FILTER_VALUES as readonly string[]).includes(value);
}

/**
 * `unmatched_reason` values (spec 2.4, open enum on the wire).
 * @public
 */
export type UnmatchedReason = 'partial_before_cancel' | 'deposit_after_close';

/** Payer-facing `amount_verdict` (spec 2.4; null when none is provable, never meaning exact). */
export type AmountVerdict = 'exact' | 'overpaid' | 'underpaid' | 'unmatched';

/**
 * The deposit ledger of one pay-in. `expected` = frozen total due, `received` = running total
 * of every deposit leg (minor units). The `*Emitted` flags make `payment.underpaid` /
 * `payment.overpaid` fire at most once per payment (spec part 6).
 */
export interface PaymentLedger {
  status: PaymentStatus;
  expected: bigint;
  received: bigint;
  underpaidEmitted: boolean;
  overpaidEmitted: boolean;
}

/** Outcome of `applyDeposit`. `surplus` / `shortfall` describe `next` (see `ledgerFigures`). */
export interface DepositOutcome {
  next: PaymentLedger;
  effect: 'applied' | 'recorded_only';
  events: string[];
  unmatchedReason: 'deposit_after_close' | null;
  verdict: AmountVerdict | null;
  surplus: bigint;
  shortfall: bigint;
}

/** Outcome of the close operations (`closeOnLinkCancel`, `expire`, `closeOnLinkExpiry`, `closeOnLinkEnd`). */
export interface CloseOutcome {
  next: PaymentLedger;
  changed: boolean;
  events: string[];
  unmatchedReason: 'partial_before_cancel' | null;
}

/** A fresh ledger: `awaiting`, nothing received. `expected` > 0 minor units (RangeError otherwise). */
export function newPaymentLedger(expected: bigint): PaymentLedger {
  if (typeof expected !== 'bigint' || expected <= 0n) throw new RangeError('expected must be a positive bigint');
  return { status: 'awaiting', expected, received: 0n, underpaidEmitted: false, overpaidEmitted: false };
}

/**
 * Surplus and shortfall of a ledger (minor units, never negative):
 * `surplus = received - expected` when received exceeds expected and the payment is not
 * `unmatched` (unmatched money is held, not counted against the invoice), else 0;
 * `shortfall = expected - received` while `awaiting` or `underpaid`, else 0.
 */
export function ledgerFigures(paymentLedger: PaymentLedger): { surplus: bigint; shortfall: bigint } {
  const surplus =
    paymentLedger.status !== 'unmatched' && paymentLedger.received > paymentLedger.expected
      ? paymentLedger.received - paymentLedger.expected
      : 0n;
  const shortfall =
    (paymentLedger.status === 'awaiting' || paymentLedger.status === 'underpaid') && paymentLedger.expected > paymentLedger.received
      ? paymentLedger.expected - paymentLedger.received
      : 0n;
  return { surplus, shortfall };
}

/** Options of `amountVerdict` (spec 2.4 verdict rules). */
export interface AmountVerdictOptions {
  /** Another payment of the same link holds money: an exact payment then reads `overpaid` (more than the total due was observed). */
  otherPaymentsHoldMoney?: boolean;
  /** Provider-settled rail: a payment settled as paid reads null (spec 2.4). */
  providerSettled?: boolean;
}

/**
 * Payer projection `amount_verdict` (spec 2.4): `underpaid` while short; `exact` when a
 * paid/settled payment received exactly `expected`; `overpaid` when it received more (or when
 * `otherPaymentsHoldMoney`); `unmatched` for money on a closed payment; null when nothing is
 * provable (awaiting, expired, abandoned, a paid payment short of expected, or a paid/settled
 * payment on a provider-settled rail).
 */
export function amountVerdict(paymentLedger: PaymentLedger, opts: AmountVerdictOptions = {}): AmountVerdict | null {
  switch (paymentLedger.status) {
    case 'underpaid':
      return 'underpaid';
    case 'unmatched':
      return 'unmatched';
    case 'overpaid':
    case 'paid':
    case 'settled': {
      if (opts.providerSettled && paymentLedger.status !== 'overpaid') return null;
      if (paymentLedger.received > paymentLedger.expected) return 'overpaid';
      if (paymentLedger.received < paymentLedger.expected) return null;
      return opts.otherPaymentsHoldMoney ? 'overpaid' : 'exact';
    }
    default:
      return null;
  }
}

/**
 * Apply one observed deposit of `amount` minor units (> 0) to a pay-in (spec part 3, 2.4, 6):
 * - `awaiting` / `underpaid`: received += amount; then short -> `underpaid` (event
 *   `payment.underpaid` the first time only), equal -> `paid` (`payment.paid`), above ->
 *   `overpaid` (`payment.overpaid` once; no `payment.paid`), surplus = received - expected.
 * - `expired` / `abandoned` (closed unpaid): -> `unmatched`, reason `deposit_after_close`,
 *   received += amount, event `payment.unmatched`.
 * - any other status (`paid`, `overpaid`, `settled`, `unmatched`, or a stored status this
 *   ledger does not produce): `recorded_only` — the payment is unchanged and nothing is
 *   published; the caller records the deposit for support.
 * Throws DomainError `invalid_request` code `amount_invalid` param `amount` when amount <= 0.
 */
export function applyDeposit(paymentLedger: PaymentLedger, amount: bigint): DepositOutcome {
  if (typeof amount !== 'bigint' || amount <= 0n) {
    throw invalidRequest('amount_invalid', 'A deposit amount must be a positive number of minor units.', 'amount');
  }
  const events: string[] = [];
  let next: PaymentLedger;
  let unmatchedReason: 'deposit_after_close' | null = null;
  let effect: DepositOutcome['effect'] = 'applied';

  if (paymentLedger.status === 'awaiting' || paymentLedger.status === 'underpaid') {
    const received = paymentLedger.received + amount;
    if (received < paymentLedger.expected) {
      next = { ...paymentLedger, status: 'underpaid', received, underpaidEmitted: true };
      if (!paymentLedger.underpaidEmitted) events.push('payment.underpaid');
    } else if (received === paymentLedger.expected) {
      next = { ...paymentLedger, status: 'paid', received };
      events.push('payment.paid');
    } else {
      next = { ...paymentLedger, status: 'overpaid', received, overpaidEmitted: true };
      if (!paymentLedger.overpaidEmitted) events.push('payment.overpaid');
    }
  } else if (paymentLedger.status === 'expired' || paymentLedger.status === 'abandoned') {
    next = { ...paymentLedger, status: 'unmatched', received: paymentLedger.received + amount };
    unmatchedReason = 'deposit_after_close';
    events.push('payment.unmatched');
  } else {
    next = { ...paymentLedger };
    effect = 'recorded_only';
  }
  const { surplus, shortfall } = ledgerFigures(next);
  return { next, effect, events, unmatchedReason, verdict: amountVerdict(next), surplus, shortfall };
}

const unchanged = (p: PaymentLedger): CloseOutcome => ({ next: { ...p }, changed: false, events: [], unmatchedReason: null });

/**
 * The merchant cancels the link (spec part 3): `underpaid` -> `unmatched` with reason
 * `partial_before_cancel` (event `payment.unmatched`; money held, `received` kept);
 * `awaiting` -> `abandoned` (no event); every other status unchanged.
 */
export function closeOnLinkCancel(paymentLedger: PaymentLedger): CloseOutcome {
  if (paymentLedger.status === 'underpaid') {
    return {
      next: { ...paymentLedger, status: 'unmatched' },
      changed: true,
      events: ['payment.unmatched'],
      unmatchedReason: 'partial_before_cancel',
    };
  }
  if (paymentLedger.status === 'awaiting') {
    return { next: { ...paymentLedger, status: 'abandoned' }, changed: true, events: [], unmatchedReason: null };
  }
  return unchanged(paymentLedger);
}

/**
 * The pay-in's own deposit window ends: `awaiting` -> `expired` (event `payment.expired`);
 * `underpaid` stays `underpaid` (money is held and the payer may still top up; it is closed
 * only when the link ends, see `closeOnLinkEnd`); every other status unchanged.
 */
export function expire(paymentLedger: PaymentLedger): CloseOutcome {
  if (paymentLedger.status === 'awaiting') {
    return { next: { ...paymentLedger, status: 'expired' }, changed: true, events: ['payment.expired'], unmatchedReason: null };
  }
  return unchanged(paymentLedger);
}

/**
 * The link expires: `awaiting` -> `expired` (event `payment.expired`); `underpaid` ->
 * `unmatched` with reason `partial_before_cancel` (event `payment.unmatched`); others unchanged.
 */
export function closeOnLinkExpiry(paymentLedger: PaymentLedger): CloseOutcome {
  if (paymentLedger.status === 'underpaid') {
    return {
      next: { ...paymentLedger, status: 'unmatched' },
      changed: true,
      events: ['payment.unmatched'],
      unmatchedReason: 'partial_before_cancel',
    };
  }
  return expire(paymentLedger);
}

/** The link ends by `cancel` (closeOnLinkCancel) or `expiry` (closeOnLinkExpiry). */
export function closeOnLinkEnd(paymentLedger: PaymentLedger, end: 'cancel' | 'expiry'): CloseOutcome {
  return end === 'cancel' ? closeOnLinkCancel(paymentLedger) : closeOnLinkExpiry(paymentLedger);
}

// ---------------------------------------------------------------------------------------
// Payment link status (spec 2.3, part 3)

/** Link `status` values named by spec 2.3 (open enum on responses). */
export type LinkStatus = 'draft' | 'active' | 'viewed' | 'processing' | 'paid' | 'settled' | 'refunded' | 'cancelled' | 'expired';

/** Every named link status (spec 2.3). */
export const LINK_STATUSES: readonly LinkStatus[] = Object.freeze([
  'draft',
  'active',
  'viewed',
  'processing',
  'paid',
  'settled',
  'refunded',
  'cancelled',
  'expired',
] as const);

/** Link statuses that end the link's life for the payer. `paid` is not terminal (it becomes `settled` or `refunded`); a bank return can still reopen a `settled` link (processing) and a merchant refund can end it `refunded`. */
export const LINK_TERMINAL_STATUSES: readonly LinkStatus[] = Object.freeze(['settled', 'cancelled', 'expired', 'refunded'] as const);

/** Link statuses in which PATCH is allowed (spec 4.1). */
export const LINK_EDITABLE_STATUSES: readonly LinkStatus[] = Object.freeze(['draft', 'active', 'viewed'] as const);

/** Link statuses in which a payer may pay (payable rails are non-empty only here). */
export const LINK_OPEN_FOR_PAYMENT_STATUSES: readonly LinkStatus[] = Object.freeze(['active', 'viewed', 'processing'] as const);

/** True when the link may take a payment (status active, viewed or processing). */
export function isLinkOpenForPayment(status: string): boolean {
  return (LINK_OPEN_FOR_PAYMENT_STATUSES as readonly string[]).includes(status);
}

/** True when the link status is terminal (settled, cancelled, expired, refunded). */
export function isLinkTerminal(status: string): boolean {
  return (LINK_TERMINAL_STATUSES as readonly string[]).includes(status);
}

/** True when the link may be PATCHed (draft, active, viewed; spec 4.1). */
export function isLinkEditable(status: string): boolean {
  return (LINK_EDITABLE_STATUSES as readonly string[]).includes(status);
}

/** Link change implied by a payment status: new status, what to do with `partial_payment`, link events to emit. */
export interface LinkTransition {
  status: LinkStatus;
  partialPayment: 'set' | 'clear' | 'keep';
  events: string[];
}

/**
 * How a pay-in's new status moves its link (spec 2.3 `partial_payment`, part 3). Apply it for
 * the link's current attempt only.
 * - `underpaid`: an open link (active, viewed, processing) -> `processing`, partial `set`;
 *   event `payment_link.partially_paid` unless the link was already processing with a partial;
 *   a `paid` / `settled` link (a bank return overrode the payment, provider-settled rails) ->
 *   `processing`, partial `set`, event `payment_link.partially_paid`.
 * - `paid` / `overpaid`: open link -> `paid`, partial `clear`, event `payment_link.paid`.
 * - `settled`: open or `paid` link -> `settled`, partial `clear`, event
 *   `payment_link.settled` (preceded by `payment_link.paid` when the link was not yet paid).
 * - `unmatched` / `expired` / `abandoned` (no-funds failure): `processing` -> `viewed`,
 *   partial `clear`, no event; any other link status unchanged.
 * - anything else, a `draft` link, or a `paid` / terminal link (never reopened here): unchanged, partial `keep`.
 */
export function linkStatusAfterPayment(linkStatus: LinkStatus, paymentStatus: PaymentStatus, hasPartial = false): LinkTransition {
  const keep: LinkTransition = { status: linkStatus, partialPayment: 'keep', events: [] };
  const open = isLinkOpenForPayment(linkStatus);
  switch (paymentStatus) {
    case 'underpaid':
      // A bank return overriding paid/settled (provider-settled rails, spec part 3) reopens the link as processing.
      if (linkStatus === 'paid' || linkStatus === 'settled')
        return { status: 'processing', partialPayment: 'set', events: ['payment_link.partially_paid'] };
      if (!open) return keep;
      return {
        status: 'processing',
        partialPayment: 'set',
        events: linkStatus === 'processing' && hasPartial ? [] : ['payment_link.partially_paid'],
      };
    case 'paid':
    case 'overpaid':
      if (!open) return keep;
      return { status: 'paid', partialPayment: 'clear', events: ['payment_link.paid'] };
    case 'settled':
      if (linkStatus === 'paid') return { status: 'settled', partialPayment: 'clear', events: ['payment_link.settled'] };
      if (!open) return keep;
      return { status: 'settled', partialPayment: 'clear', events: ['payment_link.paid', 'payment_link.settled'] };
    case 'unmatched':
    case 'expired':
    case 'abandoned':
      if (linkStatus === 'processing') return { status: 'viewed', partialPayment: 'clear', events: [] };
      return keep;
    default:
      return keep;
  }
}

/** `status_group` filter values of `GET /payment_links` (spec 4.1). */
export type LinkStatusGroup = 'open' | 'needs_attention' | 'paid' | 'ended';

/** Every status group, in spec 4.1 order. */
export const LINK_STATUS_GROUP_NAMES: readonly LinkStatusGroup[] = Object.freeze(['open', 'needs_attention', 'paid', 'ended'] as const);

/**
 * Status lists of the plain groups, for SQL filters (spec 4.1). `needs_attention` is not a
 * status list: it is `status = NEEDS_ATTENTION_STATUS AND partial_payment IS NOT NULL`.
 */
export const LINK_STATUS_GROUPS: Readonly<Record<'open' | 'paid' | 'ended', readonly LinkStatus[]>> = Object.freeze({
  open: Object.freeze(['draft', 'active', 'viewed', 'processing'] as LinkStatus[]),
  paid: Object.freeze(['paid', 'settled'] as LinkStatus[]),
  ended: Object.freeze(['cancelled', 'expired', 'refunded'] as LinkStatus[]),
});

/** The one status of the `needs_attention` group (with a non-null partial payment). */
export const NEEDS_ATTENTION_STATUS: LinkStatus = 'processing';

/**
 * Groups a link belongs to (buckets overlap; spec 4.1 `expand=summary`): `open` for draft,
 * active, viewed, processing; `needs_attention` for processing with a partial payment;
 * `paid` for paid, settled; `ended` for cancelled, expired, refunded. Unknown status: [].
 */
export function linkStatusGroups(status: string, hasPartial: boolean): LinkStatusGroup[] {
  const groups: LinkStatusGroup[] = [];
  if ((LINK_STATUS_GROUPS.open as readonly string[]).includes(status)) groups.push('open');
  if (status === NEEDS_ATTENTION_STATUS && hasPartial) groups.push('needs_attention');
  if ((LINK_STATUS_GROUPS.paid as readonly string[]).includes(status)) groups.push('paid');
  if ((LINK_STATUS_GROUPS.ended as readonly string[]).includes(status)) groups.push('ended');
  return groups;
}
