/**
 * Payroll run rules (spec 2.7, 3 "Payroll run", 4.4, 4.6, 8): run and item statuses
 * with their transition tables, `status_group` and the list summary, caps (25,000 per run, 10,000
 * per item, stated in US dollars; 500 rows), `run_reference`, the funding reducer
 * (`funding_state`, `needs_attention`, `funding_confirmed_amount`), the execute gate and the
 * run outcome after execution. Row shape and CSV: domain/payroll-rows.ts.
 *
 * Every amount is a bigint of minor units: run amounts in the run currency's scale (ISO 4217),
 * crypto funding in USDC (6 decimals). Pure: no I/O, safe in workflows.
 */
import { conflict, invalidRequest } from './errors';
import { currencyDecimals, money, type Money } from './money';
import { fiatToUsdcCeil, REFERENCE_RATES_USDC_PER_MAJOR } from './payouts/pricing';
import { transitionTable, type TransitionMap, type TransitionTable } from './transitions';

// ---------------------------------------------------------------------------------------------
// Run statuses and transitions

/** Run statuses (spec 2.7, open enum). `draft` and `approved` are published but never produced by the API. */
export const PAYROLL_RUN_STATUSES = Object.freeze([
  'draft',
  'approved',
  'reviewed',
  'funding_pending',
  'funded',
  'executing',
  'completed',
  'partial',
  'failed',
  'cancelled',
] as const);
export type PayrollRunStatus = (typeof PAYROLL_RUN_STATUSES)[number];

/**
 * Run transitions. The spec names four (create -> `reviewed`, approve, first inbound funding,
 * execute); the rest are ours (docs/decisions/0033-payroll-runs-rows-items-templates.md):
 * - cancel from every status before `executing` (a funded run keeps its money recorded for return);
 * - `executing` ends `completed` (every item paid), `partial` (some) or `failed` (none);
 * - `draft` and `approved` (internal ops, seeded rows) join the API's path at `reviewed` / `funding_pending`.
 */
const RUN_NEXT: TransitionMap<PayrollRunStatus> = {
  draft: ['reviewed', 'approved', 'cancelled'],
  approved: ['funding_pending', 'cancelled'],
  reviewed: ['funding_pending', 'cancelled'],
  funding_pending: ['funded', 'cancelled'],
  funded: ['executing', 'cancelled'],
  executing: ['completed', 'partial', 'failed'],
  completed: [],
  partial: [],
  failed: [],
  cancelled: [],
};

/**
 * The run transition table; an illegal transition is `409 conflict` code `payroll_run_state_changed`.
 * Open set (a run with work left, whose workflow the recovery sweep starts when none runs):
 * `funding_pending`, `funded`, `executing`; the workflow starts at approval, so `draft`,
 * `approved` and `reviewed` runs have none.
 */
export const payrollRunTransitions: TransitionTable<PayrollRunStatus> = transitionTable(
  'payroll_run',
  RUN_NEXT,
  'payroll_run_state_changed',
  {
    open: ['funding_pending', 'funded', 'executing'],
  },
);

/** Statuses a run may be cancelled from (everything before `executing`). */
export const PAYROLL_RUN_CANCELLABLE: readonly PayrollRunStatus[] = Object.freeze(
  PAYROLL_RUN_STATUSES.filter((s) => payrollRunTransitions.can(s, 'cancelled')),
);

/** Statuses from which `to` is reachable in one transition (for guarded UPDATE ... WHERE status IN). */
export function payrollRunSources(to: PayrollRunStatus): PayrollRunStatus[] {
  return payrollRunTransitions.statuses.filter((s) => payrollRunTransitions.can(s, to));
}

// ---------------------------------------------------------------------------------------------
// Item statuses and transitions (not in the spec: ours, named after the payroll_item.payout_* events)

/**
 * Item statuses: `pending` (not yet picked by an execution), `queued` (execution took it; its
 * payment id is fixed), `processing` (the rail accepted it), `paid`, `failed`, `returned` (paid,
 * then sent back by the recipient's bank). There is no item-level `cancelled` (spec 3).
 */
export const PAYROLL_ITEM_STATUSES = Object.freeze(['pending', 'queued', 'processing', 'paid', 'failed', 'returned'] as const);
export type PayrollItemStatus = (typeof PAYROLL_ITEM_STATUSES)[number];

const ITEM_NEXT: TransitionMap<PayrollItemStatus> = {
  pending: ['queued', 'failed'], // failed: no destination when the execution reached it
  queued: ['processing', 'failed'],
  processing: ['paid', 'failed'],
  paid: ['returned'],
  failed: [],
  returned: [],
};

/** The item transition table; an illegal transition is `409 conflict` code `payroll_item_state_changed`. */
export const payrollItemTransitions: TransitionTable<PayrollItemStatus> = transitionTable('payroll_item', ITEM_NEXT);

/**
 * Statuses of an item's payment attempt (`pria_`): the status of its item from the moment the
 * attempt is made (`queued`) on, so never `pending`.
 */
export const PAYROLL_ITEM_ATTEMPT_STATUSES = Object.freeze(['queued', 'processing', 'paid', 'failed', 'returned'] as const);
export type PayrollItemAttemptStatus = (typeof PAYROLL_ITEM_ATTEMPT_STATUSES)[number];

/**
 * Attempt transitions: the item's, closed over several steps, since one provider answer may move
 * the item through more than one (`queued` -> `processing` -> `paid` -> `returned`) and the
 * attempt follows it in one write.
 */
const ITEM_ATTEMPT_NEXT: TransitionMap<PayrollItemAttemptStatus> = {
  queued: ['processing', 'paid', 'failed', 'returned'],
  processing: ['paid', 'failed', 'returned'],
  paid: ['returned'],
  failed: [],
  returned: [],
};

/** The item attempt table; an illegal transition is the item's `409 conflict` code `payroll_item_state_changed` (the attempt is part of its item). */
export const payrollItemAttemptTransitions: TransitionTable<PayrollItemAttemptStatus> = transitionTable(
  'payroll_item_attempt',
  ITEM_ATTEMPT_NEXT,
  'payroll_item_state_changed',
);

// ---------------------------------------------------------------------------------------------
// Status groups (spec 4.4)

/** `status_group` filter values of `GET /payroll_runs` (spec 4.4); `draft` and `approved` are in none. */
export const PAYROLL_STATUS_GROUPS = Object.freeze({
  needs_you: Object.freeze(['reviewed', 'funding_pending'] as PayrollRunStatus[]),
  in_progress: Object.freeze(['funded', 'executing'] as PayrollRunStatus[]),
  done: Object.freeze(['completed', 'partial', 'failed', 'cancelled'] as PayrollRunStatus[]),
});
export type PayrollStatusGroup = keyof typeof PAYROLL_STATUS_GROUPS;

/** The group of a run status, or null (`draft`, `approved`, unknown). */
export function payrollStatusGroup(status: string): PayrollStatusGroup | null {
  for (const [g, list] of Object.entries(PAYROLL_STATUS_GROUPS))
    if ((list as readonly string[]).includes(status)) return g as PayrollStatusGroup;
  return null;
}

/** `summary` of `GET /payroll_runs?expand=summary` (spec 4.4). */
export interface PayrollRunSummary {
  needs_action: number;
  in_progress: number;
  completed: number;
  total: number;
}

/**
 * Folds per-status run counts into the summary: `needs_action` = needs_you group, `in_progress`
 * = in_progress group, `completed` = done group (every finished run, cancelled included), `total`
 * = every run of the caller, `draft` and `approved` included.
 */
export function payrollRunSummary(countsByStatus: Readonly<Record<string, number>>): PayrollRunSummary {
  const sum = (list: readonly string[]) => list.reduce((n, s) => n + (countsByStatus[s] ?? 0), 0);
  return {
    needs_action: sum(PAYROLL_STATUS_GROUPS.needs_you),
    in_progress: sum(PAYROLL_STATUS_GROUPS.in_progress),
    completed: sum(PAYROLL_STATUS_GROUPS.done),
    total: Object.values(countsByStatus).reduce((n, c) => n + c, 0),
  };
}

// ---------------------------------------------------------------------------------------------
// Currencies and caps (spec 8)

/** Run currencies: the fiat currencies of an executable payout corridor (bank funding and bank destinations). */
export const PAYROLL_CURRENCIES = Object.freeze(['USD', 'EUR', 'GBP', 'BRL', 'MXN'] as const);
export type PayrollCurrency = (typeof PAYROLL_CURRENCIES)[number];

/** True when `c` is a run currency. */
export function isPayrollCurrency(value: unknown): value is PayrollCurrency {
  return typeof value === 'string' && (PAYROLL_CURRENCIES as readonly string[]).includes(value);
}

/** Caps of spec 8 in US dollars (major units), and the row limit. */
export const PAYROLL_RUN_CAP_USD = 25_000n;
export const PAYROLL_ITEM_CAP_USD = 10_000n;
export const PAYROLL_MAX_ROWS = 500;

const USD_CENTS = 100n;

/**
 * US-dollar value of `minor` units of `currency`, in cents, rounded up (a cap is never passed by
 * rounding). USD is exact; other currencies go through the reference rate table (USDC per major
 * unit, 1 USDC = 1 USD). Throws `400 currency_invalid` for a currency without a rate.
 */
export function usdCentsCeil(minor: bigint, currency: string): bigint {
  if (currency === 'USD') return minor;
  const rate = REFERENCE_RATES_USDC_PER_MAJOR[currency];
  if (rate === undefined) throw invalidRequest('currency_invalid', `Payroll does not pay in ${currency}.`, 'currency');
  const usdcMinor = fiatToUsdcCeil(minor, currencyDecimals(currency), rate);
  return (usdcMinor + 9_999n) / 10_000n; // USDC (6 decimals) -> cents, rounded up
}

/**
 * Checks the caps of spec 8 on a run's row amounts (minor units of `currency`) and throws
 * `422 invalid_request` code `payroll_cap_exceeded` on the first breach: param `rows` (row count),
 * `rows[i].amount` (the first row over the item cap) or `rows` (total over the run cap);
 * `details`: `cap`, `limit` (Money in USD), `row` (index, item cap only), `usd_value` (Money in USD,
 * amount caps only). Used at create and again at execute.
 */
export function checkPayrollCaps(amounts: readonly bigint[], currency: string): void {
  const usd = (cents: bigint): Money => money(cents, 'USD');
  if (amounts.length > PAYROLL_MAX_ROWS) {
    throw invalidRequest(
      'payroll_cap_exceeded',
      `A payroll run holds at most ${PAYROLL_MAX_ROWS} rows.`,
      'rows',
      { cap: 'rows', limit: PAYROLL_MAX_ROWS, rows: amounts.length },
      422,
    );
  }
  let total = 0n;
  amounts.forEach((a, i) => {
    const cents = usdCentsCeil(a, currency);
    if (cents > PAYROLL_ITEM_CAP_USD * USD_CENTS) {
      throw invalidRequest(
        'payroll_cap_exceeded',
        `Row ${i} is over the 10,000 USD per item cap.`,
        `rows[${i}].amount`,
        { cap: 'item', row: i, limit: usd(PAYROLL_ITEM_CAP_USD * USD_CENTS), usd_value: usd(cents) },
        422,
      );
    }
    total += a;
  });
  const totalCents = usdCentsCeil(total, currency);
  if (totalCents > PAYROLL_RUN_CAP_USD * USD_CENTS) {
    throw invalidRequest(
      'payroll_cap_exceeded',
      'The run is over the 25,000 USD per run cap.',
      'rows',
      { cap: 'run', limit: usd(PAYROLL_RUN_CAP_USD * USD_CENTS), usd_value: usd(totalCents) },
      422,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Run reference (spec 2.7)

/** `run_reference`: `PAYROLL-` + the run id stripped of non-alphanumerics, first 12 characters, upper-cased. */
export function runReference(runId: string): string {
  return (
    'PAYROLL-' +
    runId
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(0, 12)
      .toUpperCase()
  );
}

/** Normalizes a reference typed by a payer (trim, upper-case, inner spaces removed) for matching a bank credit. */
export function normalizeRunReference(text: string): string {
  return text.trim().toUpperCase().replace(/\s+/g, '');
}

// ---------------------------------------------------------------------------------------------
// Funding (spec 2.7, 4.4)

export type FundingState = 'unfunded' | 'partially_funded' | 'funded' | 'overfunded';

/** One inbound funding observed for a run: amount in minor units of `currency`; `confirmed` once final. */
export interface FundingObservation {
  amount: bigint;
  currency: string;
  confirmed: boolean;
}

/** Result of `reduceFunding`. Amounts in minor units of `required.currency`. */
export interface FundingReduction {
  funding_state: FundingState;
  needs_attention: boolean;
  /** Confirmed total in the currency received; null when nothing was ever confirmed (the run cannot execute). */
  confirmed: bigint | null;
  /** Still owed (0 when funded or overfunded). */
  shortfall: bigint;
  /** Received beyond what is owed (0 unless overfunded). */
  surplus: bigint;
  /** True when any money was observed (confirmed or not, any currency): the funding method is then locked. */
  observed: boolean;
}

/**
 * Folds the funding observations of a run against what it must receive (`required`: the run
 * total in the run currency for bank funding, the priced USDC amount for crypto funding).
 * Only confirmed observations in `required.currency` count; an observation in another currency
 * counts for nothing and sets `needs_attention` (it needs an operator). `needs_attention` is true
 * when money was observed but is short, in surplus or never confirmed (spec 2.7).
 */
export function reduceFunding(
  required: { amount: bigint; currency: string },
  observations: readonly FundingObservation[],
): FundingReduction {
  const observed = observations.length > 0;
  const counted = observations.filter((o) => o.confirmed && o.currency === required.currency);
  const foreign = observations.some((o) => o.currency !== required.currency);
  const confirmed = counted.length ? counted.reduce((n, o) => n + o.amount, 0n) : null;
  const got = confirmed ?? 0n;
  const funding_state: FundingState =
    got === 0n ? 'unfunded' : got < required.amount ? 'partially_funded' : got === required.amount ? 'funded' : 'overfunded';
  const needs_attention =
    observed && (foreign || confirmed === null || funding_state === 'partially_funded' || funding_state === 'overfunded');
  return {
    funding_state,
    needs_attention,
    confirmed,
    shortfall: got < required.amount ? required.amount - got : 0n,
    surplus: got > required.amount ? got - required.amount : 0n,
    observed,
  };
}

/**
 * Execute gate (spec 3, 4.4): the run must be `funded` and its `funding_state` `funded` or
 * `overfunded` with a confirmed amount. Throws `409 conflict` code `payroll_run_underfunded` with
 * `details.shortfall` (Money in `currency`) and `details.funding_state` when short, and
 * `payroll_run_state_changed` (IllegalTransition) for a status that cannot execute.
 */
export function assertExecutable(status: string, fundingReduction: FundingReduction, currency: string): void {
  if (
    status === 'funding_pending' ||
    (status === 'funded' &&
      !(
        fundingReduction.confirmed !== null &&
        (fundingReduction.funding_state === 'funded' || fundingReduction.funding_state === 'overfunded')
      ))
  ) {
    throw conflict('payroll_run_underfunded', 'The run is not fully funded yet.', {
      funding_state: fundingReduction.funding_state,
      shortfall: money(fundingReduction.shortfall, currency),
    });
  }
  payrollRunTransitions.assert(status, 'executing');
}

/** Run status after execution from its items' final statuses: all paid `completed`, none `failed`, else `partial`. */
export function executionOutcome(itemStatuses: readonly PayrollItemStatus[]): 'completed' | 'partial' | 'failed' {
  const paid = itemStatuses.filter((s) => s === 'paid').length;
  if (itemStatuses.length > 0 && paid === itemStatuses.length) return 'completed';
  return paid === 0 ? 'failed' : 'partial';
}

// ---------------------------------------------------------------------------------------------
// Crypto funding capability (spec 4.4, 4.6) and readiness (spec 2.7)

/** `crypto_funding.reason` values (spec 4.4); null when available. */
export type CryptoFundingReason = 'crypto_funding_not_enabled' | 'provider_funding_currency_unsupported' | 'verification_required';

/** Run currencies the crypto funding provider can price in USDC (sandbox: all but BRL). */
export const CRYPTO_FUNDING_CURRENCIES: readonly PayrollCurrency[] = Object.freeze(['USD', 'EUR', 'GBP', 'MXN'] as PayrollCurrency[]);

/** Account facts deciding crypto funding. */
export interface CryptoFundingGate {
  switchOn: boolean;
  verified: boolean;
}

/**
 * `funding_currencies[].crypto_funding` of one run currency (spec 4.6): `available` and `reason`
 * (null when available). Order of reasons: the switch, then the currency, then verification.
 */
export function cryptoFundingVerdict(
  currency: string,
  cryptoFundingGate: CryptoFundingGate,
): { available: boolean; reason: CryptoFundingReason | null } {
  if (!cryptoFundingGate.switchOn) return { available: false, reason: 'crypto_funding_not_enabled' };
  if (!(CRYPTO_FUNDING_CURRENCIES as readonly string[]).includes(currency))
    return { available: false, reason: 'provider_funding_currency_unsupported' };
  if (!cryptoFundingGate.verified) return { available: false, reason: 'verification_required' };
  return { available: true, reason: null };
}

/** Readiness blockers (open list of reason codes; spec 2.7 names `run_has_no_rows`). */
export type PayrollBlocker = 'run_has_no_rows' | 'account_restricted' | 'verification_required' | 'run_not_open' | CryptoFundingReason;

/**
 * Readiness preview (spec 2.7): `ready` when no blocker stands. Blockers, in this order:
 * `run_not_open` (cancelled or finished run), `run_has_no_rows`, `account_restricted` (access
 * state not active), `verification_required` (payer not verified), and for crypto funding the
 * `crypto_funding.reason` of the run currency. Ready means only the payer-compliance gate is
 * clear: destinations and funding are not blockers.
 */
export function payrollReadiness(
  input: { status: string; rows: number; fundingMethod: 'fiat' | 'crypto'; currency: string },
  options: { accessState: string; verified: boolean; cryptoSwitchOn: boolean },
): { ready: boolean; blockers: PayrollBlocker[] } {
  const blockers: PayrollBlocker[] = [];
  if (payrollRunTransitions.terminal.includes(input.status as PayrollRunStatus)) blockers.push('run_not_open');
  if (input.rows === 0) blockers.push('run_has_no_rows');
  if (options.accessState !== 'active') blockers.push('account_restricted');
  if (!options.verified) blockers.push('verification_required');
  if (input.fundingMethod === 'crypto') {
    const v = cryptoFundingVerdict(input.currency, { switchOn: options.cryptoSwitchOn, verified: options.verified });
    if (v.reason && !blockers.includes(v.reason)) blockers.push(v.reason);
  }
  return { ready: blockers.length === 0, blockers };
}
