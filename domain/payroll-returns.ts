/**
 * Money a payroll run owes back to whoever funded it (spec 2.7 `needs_attention`, 3, 4.4):
 * what is owed, how much of it is already returned or on its way, which funding sources it goes
 * back to, and the status table of one return (`prfr_`). The return itself is an operator's action
 * through the run's workflow (workflows/payroll-run.ts `returnFunds`), never a merchant operation.
 *
 * - Owed back only once the run is over: a `cancelled` run owes everything confirmed, in every
 *   currency received; a finished run (`completed`, `partial`, `failed`) owes what it received in
 *   the funding currency less what its paid items cost (failed and returned items, overfunding),
 *   and everything received in any other currency. A run still open or executing owes nothing yet.
 * - The cost of a paid item in the funding currency: the item amount for bank funding (run
 *   currency); for crypto funding its USDC value at the reference rate rounded up, per item (what
 *   a wallet destination received), so rounding never returns more than was left.
 * - A return goes back to the source it came from (a bank credit to its sender, a chain transfer
 *   to its sending address), newest source first, never more than that source sent.
 *
 * Amounts are bigint minor units of their own currency (run currency ISO 4217 scale; USDC 6
 * decimals). Pure: no I/O, safe in workflows.
 */
import { currencyDecimals } from './money';
import type { PayrollRunStatus } from './payroll';
import { itemPaymentAmount } from './payroll-execution';
import { transitionTable, type TransitionMap, type TransitionTable } from './transitions';

// ---------------------------------------------------------------------------------------------
// One return and its statuses

/**
 * Statuses of a funds return: `pending` (recorded with its amount, source and idempotency key,
 * not yet accepted by a provider), `submitted` (the fiat rail accepted it), `returned` (the rail
 * paid it, or the chain transfer was sent), `failed` (the provider refused or bounced it; the
 * money is owed again and a later `returnFunds` makes a new return under a new key).
 */
export const FUNDS_RETURN_STATUSES = Object.freeze(['pending', 'submitted', 'returned', 'failed'] as const);
export type FundsReturnStatus = (typeof FUNDS_RETURN_STATUSES)[number];

const NEXT: TransitionMap<FundsReturnStatus> = {
  pending: ['submitted', 'returned', 'failed'],
  submitted: ['returned', 'failed'],
  returned: [],
  failed: [],
};

/** The return table; an illegal transition is `409 conflict` code `payroll_funds_return_state_changed` (a workflow parks on it). */
export const fundsReturnTransitions: TransitionTable<FundsReturnStatus> = transitionTable('payroll_funds_return', NEXT);

/** Statuses that still hold money on its way back (counted as returned for planning, not for `needs_attention`). */
export const FUNDS_RETURN_IN_FLIGHT: readonly FundsReturnStatus[] = Object.freeze(['pending', 'submitted'] as FundsReturnStatus[]);

/** Provider idempotency key of return number `returnNo` (1, 2, ...) of run `runId`: `<run id>:return:<n>`. */
export function fundsReturnKey(runId: string, returnNo: number): string {
  return `${runId}:return:${returnNo}`;
}

/** Normalized `failure_reason` codes of a return (snake_case; the provider's text is never surfaced). */
export const FUNDS_RETURN_FAILURE_REASONS = Object.freeze([
  'sender_unknown',
  'no_account',
  'account_closed',
  'invalid_account',
  'rail_rejected',
  'provider_error',
] as const);
export type FundsReturnFailureReason = (typeof FUNDS_RETURN_FAILURE_REASONS)[number];

/** A code of ours as is; anything else (provider text) becomes `provider_error`. */
export function normalizeFundsReturnFailure(raw: string | null | undefined): FundsReturnFailureReason {
  return (FUNDS_RETURN_FAILURE_REASONS as readonly string[]).includes(raw ?? '') ? (raw as FundsReturnFailureReason) : 'provider_error';
}

// ---------------------------------------------------------------------------------------------
// What is owed back

/** Run statuses in which money can be owed back: the run is over. */
export const RUN_STATUSES_OWING_BACK: readonly PayrollRunStatus[] = Object.freeze([
  'cancelled',
  'completed',
  'partial',
  'failed',
] as PayrollRunStatus[]);

/** One inbound funding of a run as recorded (`payroll_fundings`): a bank credit or a chain transfer. */
export interface FundingSource {
  kind: 'bank_credit' | 'chain_transfer';
  /** The bank credit id, or `<chain>:<tx hash>`. */
  ref: string;
  /** Minor units of `currency` (USDC: 6 decimals). */
  amount: bigint;
  currency: string;
  /** False for a bank credit its sending bank returned (the money is back with the sender already). */
  confirmed: boolean;
}

/** What `fundsOwedBack` needs of a run. */
export interface OwedBackInput {
  status: string;
  /** The run currency (item amounts are in it). */
  runCurrency: string;
  /** The currency the run was funded in for execution: the run currency (bank), `USDC` (crypto). */
  fundingCurrency: string;
  /** Its fundings, in the order observed. */
  sources: readonly FundingSource[];
  /** Amounts of the items paid (status `paid`), minor units of the run currency. */
  paidItems: readonly bigint[];
}

/** Owed back in one currency: `received` (confirmed), `spent` (paid items' cost, in this currency), `owed` (never negative). */
export interface OwedBack {
  currency: string;
  received: bigint;
  spent: bigint;
  owed: bigint;
}

/** Cost of the paid items in `fundingCurrency` (see the module comment); RangeError for a currency that is neither. */
function paidCost(i: OwedBackInput): bigint {
  if (i.fundingCurrency === i.runCurrency) return i.paidItems.reduce((n, a) => n + a, 0n);
  if (i.fundingCurrency === 'USDC') {
    const d = currencyDecimals(i.runCurrency);
    return i.paidItems.reduce((n, a) => n + itemPaymentAmount(a, i.runCurrency, d), 0n);
  }
  throw new RangeError(`a ${i.runCurrency} run is not funded in ${i.fundingCurrency}`);
}

/**
 * The money run `i` owes back, one entry per currency it confirmed receiving (sorted by
 * currency). Nothing is owed (`owed` 0) while the run is not over (RUN_STATUSES_OWING_BACK);
 * `cancelled` owes everything received; a finished run owes the funding currency's received less
 * the paid items' cost, and every other currency in full. Throws RangeError when a finished run's
 * funding currency is neither its run currency nor USDC.
 */
export function fundsOwedBack(owedBackInput: OwedBackInput): OwedBack[] {
  const received = new Map<string, bigint>();
  for (const s of owedBackInput.sources)
    if (s.confirmed && s.amount > 0n) received.set(s.currency, (received.get(s.currency) ?? 0n) + s.amount);
  const over = (RUN_STATUSES_OWING_BACK as readonly string[]).includes(owedBackInput.status);
  const spentInFunding = over && owedBackInput.status !== 'cancelled' ? paidCost(owedBackInput) : 0n;
  return [...received.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, got]) => {
      const spent = currency === owedBackInput.fundingCurrency ? spentInFunding : 0n;
      return { currency, received: got, spent, owed: over && got > spent ? got - spent : 0n };
    });
}

// ---------------------------------------------------------------------------------------------
// Returned so far, and what to return next

/** A return of the run as recorded (`payroll_fund_returns`). */
export interface FundsReturnRecord {
  sourceRef: string;
  currency: string;
  amount: bigint;
  status: FundsReturnStatus;
}

/**
 * Where the run stands in one currency: `owed` (fundsOwedBack), `returned` (returns the provider
 * completed), `in_flight` (pending or submitted), `outstanding` = owed less both (what a new
 * return may take; never negative), `unreturned` = owed less `returned` (never negative: what
 * keeps `needs_attention` set).
 */
export interface FundsPosition {
  currency: string;
  owed: bigint;
  returned: bigint;
  in_flight: bigint;
  outstanding: bigint;
  unreturned: bigint;
}

/** Folds the owed amounts and the returns into one position per currency (every currency of either; sorted). */
export function fundsPosition(owed: readonly OwedBack[], returns: readonly FundsReturnRecord[]): FundsPosition[] {
  const currencies = [...new Set([...owed.map((o) => o.currency), ...returns.map((r) => r.currency)])].sort();
  return currencies.map((currency) => {
    const o = owed.find((x) => x.currency === currency)?.owed ?? 0n;
    const mine = returns.filter((r) => r.currency === currency);
    const returned = mine.filter((r) => r.status === 'returned').reduce((n, r) => n + r.amount, 0n);
    const inFlight = mine.filter((r) => FUNDS_RETURN_IN_FLIGHT.includes(r.status)).reduce((n, r) => n + r.amount, 0n);
    const gone = returned + inFlight;
    return {
      currency,
      owed: o,
      returned,
      in_flight: inFlight,
      outstanding: o > gone ? o - gone : 0n,
      unreturned: o > returned ? o - returned : 0n,
    };
  });
}

/** True while some money owed back has not been returned yet (a return in flight still counts): the run's `needs_attention`. */
export function hasUnreturnedFunds(position: readonly FundsPosition[]): boolean {
  return position.some((p) => p.unreturned > 0n);
}

/** One return to make: `amount` minor units of `currency` back to funding source `ref`. */
export interface PlannedReturn {
  kind: FundingSource['kind'];
  ref: string;
  currency: string;
  amount: bigint;
}

/**
 * The returns that send each currency's `outstanding` back to its sources: the confirmed sources
 * of that currency, newest first, each given at most what it sent less what its earlier returns
 * (not failed) took. Empty when nothing is outstanding, so a repeated request returns nothing
 * twice. Money that no source can take (never when `owed` <= received) stays outstanding.
 */
export function planFundsReturns(
  sources: readonly FundingSource[],
  position: readonly FundsPosition[],
  returns: readonly FundsReturnRecord[],
): PlannedReturn[] {
  const out: PlannedReturn[] = [];
  for (const p of position) {
    let left = p.outstanding;
    for (const s of [...sources].reverse()) {
      if (left === 0n) break;
      if (!s.confirmed || s.currency !== p.currency) continue;
      const taken = returns.filter((r) => r.sourceRef === s.ref && r.status !== 'failed').reduce((n, r) => n + r.amount, 0n);
      const room = s.amount - taken;
      if (room <= 0n) continue;
      const amount = room < left ? room : left;
      out.push({ kind: s.kind, ref: s.ref, currency: p.currency, amount });
      left -= amount;
    }
  }
  return out;
}
