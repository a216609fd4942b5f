/**
 * Payroll funding instructions (spec 2.7 "Funding instructions", 4.4), the money
 * boundary: `POST /payroll_runs/{id}/funding_instructions` creates the run's funding attempt
 * (`prf_`) or refreshes it, switches bank and crypto before money was observed, and re-checks
 * funding at once; `GET` reads the current attempt; `/attempts` lists them. Attempt statuses move
 * only through the attempt's record module (activities/records/payroll-funding-attempts.ts). Bank instructions come
 * from the collection provider on the run currency's rail with the run's `run_reference` as the
 * transfer reference; crypto instructions are a service deposit address and the run total priced
 * in USDC (6 decimals) at the reference rate, rounded up.
 */
import type { EntityManager, SelectQueryBuilder } from 'typeorm';
import { capabilityUnavailable, conflict, notFound } from '../../domain/errors';
import { money } from '../../domain/money';
import { cryptoFundingVerdict, type PayrollRunStatus } from '../../domain/payroll';
import {
  checkFundingRequest,
  cryptoFundingPrice,
  FUNDING_BANK_RAIL,
  fundingRouteType,
  isRetryableFailure,
  normalizeFundingFailure,
  type FundingAttemptStatus,
} from '../../domain/payroll-funding';
import { Account, PayrollFundingAttempt, PayrollRun } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { logger } from '../../lib/logger';
import type { RequestRef } from '../../lib/outbox';
import { bankCollection } from '../../providers/bank-collection';
import { chainAdapter } from '../../providers/chain';
import { recordObservations, refreshPayrollFunding } from './funding';
import type { PayrollGate } from './queries';
import { findRun, payrollGate } from './queries';
import { lockRun } from './records';
import { emitRunEvents } from '../records/payroll-runs';
import { preparePayrollFundingAttempt, retryPayrollFundingAttempt } from '../records/payroll-funding-attempts';
import type { AccountScope, Scope } from '../scope';
import { wakePayrollRun } from './signals';

/** Statuses before approval: funding instructions are refused with `409 payroll_run_not_approved`. */
const NOT_APPROVED: readonly PayrollRunStatus[] = ['draft', 'approved', 'reviewed'];
/** Statuses that can be funded. */
const FUNDABLE: readonly PayrollRunStatus[] = ['funding_pending', 'funded'];

/** What `openAttempt` hands to `prepareAttempt`; `previous` is the attempt's outcome before this refresh (null when new). */
interface Opened {
  run: PayrollRun;
  attempt: PayrollFundingAttempt;
  prepare: boolean;
  previous: { status: FundingAttemptStatus; failure: string | null } | null;
}
type Patch = {
  status: FundingAttemptStatus;
  bank?: Record<string, unknown>;
  crypto?: Record<string, unknown>;
  required?: string;
  failure?: string | null;
};

/**
 * Step 1 (one transaction, run locked): checks the request and returns the attempt to prepare
 * (new, switched, or a blocked / retryable failed one taken back to `preparing`), or the live one
 * unchanged (`prepare: false`). Refusals: `409 payroll_run_not_approved` (not yet approved),
 * `409 payroll_run_state_changed` (cancelled, executing, finished), `409 run_has_no_rows`,
 * `409 funding_method_locked` (switch after money was observed), `409 capability_unavailable`
 * (crypto with the switch off, `details.crypto_funding`).
 */
async function openAttempt(
  m: EntityManager,
  scope: Scope,
  a: { id: string; method?: 'fiat' | 'crypto'; gate: PayrollGate },
): Promise<Opened> {
  const run = await lockRun(m, scope, a.id);
  if (NOT_APPROVED.includes(run.status))
    throw conflict('payroll_run_not_approved', 'Approve the run before requesting its funding instructions.');
  if (!FUNDABLE.includes(run.status))
    throw conflict('payroll_run_state_changed', `A ${run.status} run takes no more funding.`, { status: run.status });
  const observed = Number((await m.query('SELECT count(*)::int AS n FROM payroll_fundings WHERE run_id = $1', [run.id]))[0].n) > 0;
  checkFundingRequest({ itemCount: run.item_count, method: run.funding_method, moneyObserved: observed }, a.method);
  const method = a.method ?? run.funding_method;
  let blocked: string | null = null;
  if (method === 'crypto') {
    const v = cryptoFundingVerdict(run.currency, { switchOn: a.gate.cryptoSwitchOn, verified: a.gate.verified });
    if (v.reason === 'crypto_funding_not_enabled') {
      throw capabilityUnavailable(
        'capability_unavailable',
        'Crypto funding of payroll runs is not enabled for this account. Do not retry.',
        { crypto_funding: v },
      );
    }
    blocked = v.reason;
  }
  // A payer not verified (spec 4.4 `verification_required`): the run exists, its funding is blocked, whatever the method.
  if (blocked === null && !a.gate.verified) blocked = 'verification_required';
  let live = run.current_funding_attempt_id
    ? await m.findOne(PayrollFundingAttempt, { where: { id: run.current_funding_attempt_id }, lock: { mode: 'pessimistic_write' } })
    : null;
  if (live && live.funding_method !== method) {
    live.superseded_at = new Date();
    await m.save(live);
    live = null;
  }
  run.funding_method = method;
  run.funding_blocked_reason = blocked;
  if (!live) {
    live = m.create(PayrollFundingAttempt, {
      id: newId('prf_'),
      run_id: run.id,
      account_id: run.account_id,
      livemode: run.livemode,
      status: 'preparing',
      funding_method: method,
      funding_route_type: fundingRouteType(method),
      run_reference: run.run_reference,
      retryable: false,
      bank: null,
      crypto: null,
      required_minor: method === 'fiat' ? run.total_minor : null,
      required_currency: method === 'fiat' ? run.currency : 'USDC',
      failure_reason: null,
      superseded_at: null,
      refreshed_at: null,
    });
    await m.save(live);
    run.current_funding_attempt_id = live.id;
    await m.save(run);
    await emitRunEvents(m, run, ['payroll_run.funding_instructions_requested'], scope.request);
    return { run, attempt: live, prepare: true, previous: null };
  }
  await m.save(run);
  const previous = { status: live.status as FundingAttemptStatus, failure: live.failure_reason };
  // Prepared again: a `preparing` one left behind (a crashed or concurrent POST; the provider call
  // is idempotent), a `blocked` one whose gate changed, a retryable `failed` one.
  const stillBlocked = live.status === 'blocked' && blocked !== null && normalizeFundingFailure(blocked) === live.failure_reason;
  const retry =
    live.status === 'preparing' ||
    (live.status === 'blocked' && !stillBlocked) ||
    (live.status === 'failed' && isRetryableFailure(normalizeFundingFailure(live.failure_reason)));
  if (retry && live.status !== 'preparing') {
    retryPayrollFundingAttempt(live);
  }
  live.refreshed_at = new Date();
  await m.save(live);
  return { run, attempt: live, prepare: retry, previous };
}

/** The instructions of `attempt0` from the providers (no transaction open; idempotent by run id / attempt id). */
async function obtain(run: PayrollRun, attempt0: PayrollFundingAttempt): Promise<Patch> {
  if (run.funding_blocked_reason) return { status: 'blocked', failure: normalizeFundingFailure(run.funding_blocked_reason) };
  if (attempt0.funding_method === 'fiat') {
    const account = await db().getRepository(Account).findOneByOrFail({ id: run.account_id });
    const rail = FUNDING_BANK_RAIL[run.currency as keyof typeof FUNDING_BANK_RAIL];
    const issued = await bankCollection().issue({
      rail,
      currency: run.currency,
      clientReference: run.id,
      holderName: account.display_name,
      reference: run.run_reference,
      accountId: run.account_id,
    });
    return {
      status: 'pending',
      bank: {
        ...issued.instructions,
        rail,
        reference: issued.reference,
        matching: issued.matching,
        amount: money(BigInt(run.total_minor), run.currency),
      },
    };
  }
  const price = cryptoFundingPrice(BigInt(run.total_minor), run.currency);
  if (price === null) return { status: 'failed', failure: 'fx_unconverted' };
  const chain = chainAdapter();
  return {
    status: 'pending',
    required: price.toString(),
    crypto: {
      address: chain.depositAddress(`payroll:${attempt0.id}`),
      chain: chain.chain,
      asset: chain.stablecoin,
      amount: { amount: price.toString(), currency: 'USDC', decimals: 6 },
    },
  };
}

/**
 * Step 2: obtains the instructions, then records them (one transaction; a concurrent POST that
 * recorded first wins). A provider that fails leaves the attempt `failed` with `provider_error`
 * (retryable: the next POST prepares it again); the provider's text goes to the log only. The
 * `_blocked` / `_failed` event is written when the outcome changed, not on every refresh.
 */
async function prepareAttempt({ run, attempt: attempt0, previous }: Opened, request: RequestRef | null): Promise<void> {
  let patch: Patch;
  try {
    patch = await obtain(run, attempt0);
  } catch (err) {
    logger.warn({ err, runId: run.id, attemptId: attempt0.id }, 'payroll funding instructions: provider call failed');
    patch = { status: 'failed', failure: 'provider_error' };
  }
  const repeated = previous !== null && previous.status === patch.status && previous.failure === (patch.failure ?? null);
  await transaction(async (m) => {
    const run1 = await m.findOneOrFail(PayrollRun, { where: { id: run.id }, lock: { mode: 'pessimistic_write' } });
    const at = await m.findOneOrFail(PayrollFundingAttempt, { where: { id: attempt0.id }, lock: { mode: 'pessimistic_write' } });
    if (at.status !== 'preparing') return;
    preparePayrollFundingAttempt(at, patch.status);
    if (patch.bank) at.bank = patch.bank;
    if (patch.crypto) at.crypto = patch.crypto;
    if (patch.required) at.required_minor = patch.required;
    at.failure_reason = patch.failure ?? null;
    at.retryable = isRetryableFailure(normalizeFundingFailure(at.failure_reason));
    await m.save(at);
    if (patch.status === 'blocked' && !repeated) await emitRunEvents(m, run1, ['payroll_run.funding_instructions_blocked'], request);
    if (patch.status === 'failed' && !repeated) await emitRunEvents(m, run1, ['payroll_run.funding_instructions_failed'], request);
  });
}

/**
 * `POST /payroll_runs/{id}/funding_instructions` (spec 4.4): opens or refreshes the attempt,
 * obtains its instructions when needed, re-checks funding at once (`refreshPayrollFunding`), wakes
 * the run's workflow and returns the current attempt. `input`: the validated body with the path's
 * `id`; the payer-compliance facts are the account's now (queries.ts `payrollGate`). Errors: see `openAttempt` (404 param `id` when the run is not the scope's).
 */
export async function requestFundingInstructions(
  scope: Scope,
  input: { id: string; funding_method?: 'fiat' | 'crypto' },
): Promise<PayrollFundingAttempt> {
  const gate = await payrollGate(scope);
  // What the providers already hold counts as observed money before the checks (funding_method_locked).
  await recordObservations((await findRun(scope, { id: input.id })).id);
  const opened = await transaction((m) => openAttempt(m, scope, { id: input.id, method: input.funding_method, gate }));
  const { run, attempt } = opened;
  if (opened.prepare) await prepareAttempt(opened, scope.request);
  await refreshPayrollFunding(run.id);
  await wakePayrollRun(run.id, run.account_id);
  return db().getRepository(PayrollFundingAttempt).findOneByOrFail({ id: attempt.id });
}

/** `GET /payroll_runs/{id}/funding_instructions`: the current attempt; 404 when the run is not the scope's or none was requested. */
export async function currentFundingInstructions(scope: AccountScope, input: { id: string }): Promise<PayrollFundingAttempt> {
  const run = await findRun(scope, input);
  const at = run.current_funding_attempt_id
    ? await db().getRepository(PayrollFundingAttempt).findOneBy({ id: run.current_funding_attempt_id })
    : null;
  if (!at) throw notFound(`No funding instructions were requested for payroll run ${run.id} yet (POST them first).`, 'id');
  return at;
}

/** `GET /payroll_runs/{id}/attempts`: the query (alias `f`) of the run's funding attempts, superseded ones included; the caller paginates. 404 when the run is not the scope's. */
export async function fundingAttemptsQuery(scope: AccountScope, input: { id: string }): Promise<SelectQueryBuilder<PayrollFundingAttempt>> {
  const run = await findRun(scope, input);
  return db().getRepository(PayrollFundingAttempt).createQueryBuilder('f').where('f.run_id = :id', { id: run.id });
}
