/**
 * Returning the money a payroll run owes back (spec 2.7 `needs_attention`, 3, 6; rules in
 * domain/payroll-returns.ts): the activities the run's workflow runs on an operator's `returnFunds`
 * signal (workflows/payroll-run.ts), and the operator's summary (scripts/payroll-return.ts).
 *
 * Each return is a `payroll_fund_returns` row (`prfr_`) committed with its amount, funding source
 * and provider idempotency key (`<run id>:return:<n>`) before any provider call; a retried
 * activity, a crashed worker or a repeated signal submits under the same key or, once the money is
 * no longer outstanding, creates nothing. A bank credit goes back to its sender as a fiat rail
 * payment on the credit's rail in its currency (client reference = the return id; followed until
 * the rail pays or fails it); a chain transfer goes back to its sending address in the same asset
 * from the funding address it arrived at (final once sent). A return's status is written
 * by its record module (activities/records/payroll-funds-returns.ts); a return completing or failing writes `payroll_run.funds_returned` /
 * `.funds_return_failed` and the run's `needs_attention` (true while money owed back is not yet
 * returned) in one transaction.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { EntityManager } from 'typeorm';
import type { PayrollFundsReturnStep } from '../../contracts/payroll-run';
import {
  fundsReturnTransitions,
  fundsReturnKey,
  hasUnreturnedFunds,
  normalizeFundsReturnFailure,
  planFundsReturns,
  RUN_STATUSES_OWING_BACK,
  type FundsPosition,
  type FundsReturnStatus,
} from '../../domain/payroll-returns';
import { PayrollFundsReturn, PayrollRun } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { emitEvent } from '../../lib/outbox';
import { bankCollection } from '../../providers/bank-collection';
import { chainAdapter } from '../../providers/chain';
import { fiatRails, type RailPayment } from '../../providers/fiat-rails';
import { payrollRunFundsReturnEventView } from '../../views/payroll';
import { refreshPayrollFunding } from './funding';
import { loadFundsState } from './records';
import { recordPayrollFundsReturnOutcome } from '../records/payroll-funds-returns';

/** Longest operator reason kept (longer ones are cut). */
export const FUNDS_RETURN_REASON_MAX = 500;

/** A provider's answer for one return, normalized. */
interface ReturnOutcome {
  state: Exclude<FundsReturnStatus, 'pending'>;
  providerRef: string | null;
  failure: string | null;
}

const fromRail = (p: RailPayment): ReturnOutcome => ({
  state: p.state === 'submitted' ? 'submitted' : p.state === 'paid' ? 'returned' : 'failed',
  providerRef: p.id,
  failure: p.state === 'failed' || p.state === 'returned' ? normalizeFundsReturnFailure(p.reason) : null,
});

const isOver = (status: string) => (RUN_STATUSES_OWING_BACK as readonly string[]).includes(status);

/** Locks run `runId` (NotFound non-retryable when gone). */
async function lockRunById(m: EntityManager, runId: string): Promise<PayrollRun> {
  const run = await m.findOne(PayrollRun, { where: { id: runId }, lock: { mode: 'pessimistic_write' } });
  if (!run) throw ApplicationFailure.nonRetryable(`payroll run ${runId} not found`, 'NotFound');
  return run;
}

/** Sets the run's `needs_attention` from its money position when the run is over (saved only when it changes). */
async function settleAttention(m: EntityManager, run: PayrollRun, position: readonly FundsPosition[]): Promise<void> {
  if (!isOver(run.status)) return;
  const flag = hasUnreturnedFunds(position);
  if (run.needs_attention === flag) return;
  run.needs_attention = flag;
  await m.save(run);
}

/** Sends return `r` to its provider under its idempotency key (no transaction open). Throws on a provider error (the activity retries). */
async function submit(r: PayrollFundsReturn): Promise<ReturnOutcome> {
  const amount = BigInt(r.amount_minor);
  if (r.source_kind === 'bank_credit') {
    const credit = await bankCollection().get(r.source_ref);
    if (!credit) return { state: 'failed', providerRef: null, failure: 'sender_unknown' };
    // Back to the sending account on the rail the credit came in on (the rail addresses the credit's originator).
    return fromRail(
      await fiatRails().submit({
        idempotencyKey: r.idempotency_key,
        clientReference: r.id,
        rail: credit.rail,
        currency: r.currency,
        amount,
        accountId: r.account_id,
      }),
    );
  }
  const chain = chainAdapter();
  const hash = r.source_ref.slice(r.source_ref.indexOf(':') + 1);
  const t = await chain.transaction(hash);
  if (!t || !t.from_address) return { state: 'failed', providerRef: null, failure: 'sender_unknown' };
  const tx = await chain.send(t.to_address, t.from_address, t.asset, amount, r.idempotency_key);
  return { state: 'returned', providerRef: `${chain.chain}:${tx}`, failure: null };
}

/**
 * Records a provider outcome on return `returnId` (one transaction, run then return locked):
 * moves it (records/payroll-funds-returns.ts `recordPayrollFundsReturnOutcome`); on `returned` / `failed` sets the run's
 * `needs_attention` from its position and writes `payroll_run.funds_returned` /
 * `.funds_return_failed` with the return. Idempotent: the same outcome again changes nothing.
 */
async function recordOutcome(returnId: string, o: ReturnOutcome): Promise<FundsReturnStatus> {
  return transaction(async (m) => {
    const r0 = await m.findOneByOrFail(PayrollFundsReturn, { id: returnId });
    const run = await lockRunById(m, r0.run_id);
    const r = await m.findOneOrFail(PayrollFundsReturn, { where: { id: returnId }, lock: { mode: 'pessimistic_write' } });
    if (r.status === o.state || fundsReturnTransitions.terminal.includes(r.status)) return r.status;
    await recordPayrollFundsReturnOutcome(m, r, o);
    if (o.state === 'submitted') return r.status;
    await settleAttention(m, run, (await loadFundsState(m, run)).position);
    await emitEvent(m, {
      accountId: run.account_id,
      livemode: run.livemode,
      type: o.state === 'returned' ? 'payroll_run.funds_returned' : 'payroll_run.funds_return_failed',
      objectType: 'payroll_run',
      objectId: run.id,
      object: payrollRunFundsReturnEventView(run, r),
      request: null,
    });
    return r.status;
  });
}

/** Submits every `pending` return of the run and reads every `submitted` one from its rail; returns how many are still in flight. */
async function advance(runId: string): Promise<number> {
  const open = await db()
    .getRepository(PayrollFundsReturn)
    .find({
      where: [
        { run_id: runId, status: 'pending' },
        { run_id: runId, status: 'submitted' },
      ],
      order: { return_no: 'ASC' },
    });
  let inFlight = 0;
  for (const r of open) {
    const o = r.status === 'pending' ? await submit(r) : fromRail(await fiatRails().get(r.provider_ref!));
    const now = await recordOutcome(r.id, o);
    if (now === 'pending' || now === 'submitted') inFlight++;
  }
  return inFlight;
}

/**
 * Run workflow activity, on the operator's `returnFunds` signal: records what the
 * providers hold for the run first (money may have arrived after a cancel, when nothing polls),
 * then, in one transaction with the run locked, plans returns of what is outstanding
 * (domain `planFundsReturns`: nothing while the run is open or executing, nothing twice) and
 * records them `pending` with their keys and the operator's `reason`; then submits every pending
 * return and follows submitted ones (`advance`). With nothing owed and nothing in flight the run's
 * `needs_attention` is set from its position (a finished run whose money is all back reads false).
 * NotFound (non-retryable) when the run is gone.
 */
export async function returnPayrollFunds(runId: string, reason: string): Promise<PayrollFundsReturnStep> {
  if (!(await db().getRepository(PayrollRun).existsBy({ id: runId })))
    throw ApplicationFailure.nonRetryable(`payroll run ${runId} not found`, 'NotFound');
  await refreshPayrollFunding(runId);
  const why = reason.trim().slice(0, FUNDS_RETURN_REASON_MAX) || '(no reason given)';
  const created = await transaction(async (m) => {
    const run = await lockRunById(m, runId);
    const st = await loadFundsState(m, run);
    const plan = planFundsReturns(st.sources, st.position, st.returns);
    let n = st.returns.length;
    for (const p of plan) {
      n += 1;
      await m.insert(PayrollFundsReturn, {
        id: newId('prfr_'),
        run_id: run.id,
        account_id: run.account_id,
        livemode: run.livemode,
        return_no: n,
        idempotency_key: fundsReturnKey(run.id, n),
        source_kind: p.kind,
        source_ref: p.ref,
        amount_minor: p.amount.toString(),
        currency: p.currency,
        status: 'pending',
        reason: why,
        provider_ref: null,
        failure_reason: null,
        returned_at: null,
      });
    }
    if (plan.length === 0 && !st.returns.some((r) => r.status === 'pending' || r.status === 'submitted'))
      await settleAttention(m, run, st.position);
    return plan.length;
  });
  const inFlight = await advance(runId);
  return { created, in_flight: inFlight, unreturned: await unreturned(runId) };
}

/**
 * Run workflow activity: follows the run's returns in flight (submits `pending` ones left by a
 * crash under their keys, reads `submitted` ones from the rail, records what changed). Returns how
 * many are still in flight.
 */
export async function syncPayrollFundsReturns(runId: string): Promise<{ in_flight: number }> {
  return { in_flight: await advance(runId) };
}

async function unreturned(runId: string): Promise<boolean> {
  return transaction(async (m) => {
    const run = await m.findOneByOrFail(PayrollRun, { id: runId });
    return hasUnreturnedFunds((await loadFundsState(m, run)).position);
  });
}

/** The operator's view of what run `runId` owes back (scripts/payroll-return.ts): status, `needs_attention`, position per currency, returns. Null when no such run. */
export async function payrollFundsSummary(runId: string): Promise<{
  run: { id: string; account_id: string; status: string; needs_attention: boolean };
  position: FundsPosition[];
  returns: Array<{
    id: string;
    status: FundsReturnStatus;
    amount_minor: string;
    currency: string;
    source: string;
    provider_ref: string | null;
    failure_reason: string | null;
  }>;
} | null> {
  const run = await db().getRepository(PayrollRun).findOneBy({ id: runId });
  if (!run) return null;
  const { position } = await loadFundsState(db().manager, run);
  const rows = await db()
    .getRepository(PayrollFundsReturn)
    .find({ where: { run_id: runId }, order: { return_no: 'ASC' } });
  return {
    run: { id: run.id, account_id: run.account_id, status: run.status, needs_attention: run.needs_attention },
    position,
    returns: rows.map((r) => ({
      id: r.id,
      status: r.status,
      amount_minor: r.amount_minor,
      currency: r.currency,
      source: `${r.source_kind} ${r.source_ref}`,
      provider_ref: r.provider_ref,
      failure_reason: r.failure_reason,
    })),
  };
}
