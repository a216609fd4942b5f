/**
 * Payroll funding detection (spec 2.7, 3, 4.4, 8): what the providers observed for a
 * run, folded into the run's funding. The run workflow calls `refreshPayrollFunding` every five
 * minutes (spec 4.4 "Funding status updates come from a five-minute poll") and the funding POST
 * calls it inline (a refresh "re-checks at once"). Bank credits are the collection provider's
 * credits matched to the run (client reference = run id, by account or run reference); crypto
 * funding is every USDC transfer to a funding address of the run. Each is recorded once in
 * `payroll_fundings` (by source); a credit the sending bank returned counts as not confirmed.
 * Amounts: bigint minor units (run currency; USDC 6 decimals).
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { EntityManager } from 'typeorm';
import type { PayrollFundingCheck } from '../../contracts/payroll-run';
import { reduceFunding } from '../../domain/payroll';
import { hasUnreturnedFunds } from '../../domain/payroll-returns';
import { PayrollFundingAttempt, PayrollRun } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { bankCollection } from '../../providers/bank-collection';
import { chainAdapter } from '../../providers/chain';
import { loadFundsState } from './records';
import { applyPayrollRunFunding } from '../records/payroll-runs';

/** Stablecoin symbols that are USDC (the sandbox chain's own symbol on mainnet is `USDC.e`). */
const USDC_SYMBOLS = new Set(['USDC', 'USDC.e']);

/** Records what the providers observed for run `runId` (idempotent by source). */
async function observe(runId: string, attempts: PayrollFundingAttempt[]): Promise<void> {
  const record = async (
    attemptId: string,
    kind: 'bank_credit' | 'chain_transfer',
    ref: string,
    amount: bigint,
    currency: string,
    confirmed: boolean,
  ) => {
    await db().query(
      `INSERT INTO payroll_fundings(id, run_id, attempt_id, source_kind, source_ref, amount_minor, currency, confirmed, observed_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8, now()) ON CONFLICT (source_kind, source_ref) DO UPDATE SET confirmed = EXCLUDED.confirmed
       WHERE payroll_fundings.confirmed IS DISTINCT FROM EXCLUDED.confirmed`,
      [newId('prfd_'), runId, attemptId, kind, ref, amount.toString(), currency, confirmed],
    );
  };
  // Credits name the run, not an attempt: they are filed under the live bank attempt, else the newest one.
  const banks = attempts.filter((a) => a.funding_route_type === 'bank').sort((x, y) => x.created_at.getTime() - y.created_at.getTime());
  const bankAttempt = banks.find((a) => a.superseded_at === null) ?? banks[banks.length - 1];
  if (bankAttempt) {
    for (const c of await bankCollection().creditsFor(runId)) {
      if (c.amount > 0n) await record(bankAttempt.id, 'bank_credit', c.id, c.amount, c.currency, c.state === 'received');
    }
  }
  const chain = chainAdapter();
  for (const a of attempts) {
    const address = typeof a.crypto?.address === 'string' ? a.crypto.address : null;
    if (!address) continue;
    for (const t of await chain.transfersTo(String(a.crypto?.chain ?? chain.chain), address, String(a.crypto?.asset ?? chain.stablecoin))) {
      if (t.amount > 0n)
        await record(a.id, 'chain_transfer', `${t.chain}:${t.tx_hash}`, t.amount, USDC_SYMBOLS.has(t.asset) ? 'USDC' : t.asset, true);
    }
  }
}

/**
 * Records what the providers observed for run `runId` across its funding attempts (idempotent by
 * source) and returns the attempts. The funding POST calls it before its checks, so a credit the
 * provider already holds locks the funding method even before the poll has seen it.
 */
export async function recordObservations(runId: string): Promise<PayrollFundingAttempt[]> {
  const attempts = await db().getRepository(PayrollFundingAttempt).findBy({ run_id: runId });
  if (attempts.length > 0) await observe(runId, attempts);
  return attempts;
}

/** Folds the run's observations into its funding fields and status (one transaction, run locked). */
async function apply(m: EntityManager, run: PayrollRun): Promise<void> {
  const attempt = run.current_funding_attempt_id
    ? await m.findOne(PayrollFundingAttempt, { where: { id: run.current_funding_attempt_id }, lock: { mode: 'pessimistic_write' } })
    : null;
  const required =
    attempt && attempt.required_minor !== null
      ? { amount: BigInt(attempt.required_minor), currency: attempt.required_currency }
      : { amount: BigInt(run.total_minor), currency: run.currency };
  const obs: Array<{ amount_minor: string; currency: string; confirmed: boolean }> = await m.query(
    'SELECT amount_minor, currency, confirmed FROM payroll_fundings WHERE run_id = $1',
    [run.id],
  );
  const f = reduceFunding(
    required,
    obs.map((o) => ({ amount: BigInt(o.amount_minor), currency: o.currency, confirmed: o.confirmed })),
  );
  await applyPayrollRunFunding(m, run, {
    funding: f,
    currency: required.currency,
    attempt,
    owesFundsBack: async (r) => hasUnreturnedFunds((await loadFundsState(m, r)).position),
  });
}

/**
 * Run workflow activity (every five minutes) and the funding POST's inline re-check: records
 * what the providers observed for the run since the last look, then folds it into the run
 * (domain `reduceFunding`): `funding_state`, `needs_attention`, `funding_confirmed_amount`;
 * `funding_pending` -> `funded` on the first inbound funding (`payroll_run.funding_verified`);
 * `payroll_run.underfunded` when it becomes partially funded; the attempt `verified` once fully
 * funded. Idempotent: nothing new, nothing written. NotFound (non-retryable) when the run is gone.
 */
export async function refreshPayrollFunding(runId: string): Promise<PayrollFundingCheck> {
  const run0 = await db().getRepository(PayrollRun).findOneBy({ id: runId });
  if (!run0) throw ApplicationFailure.nonRetryable(`payroll run ${runId} not found`, 'NotFound');
  const attempts = await recordObservations(runId);
  return transaction(async (m) => {
    const run = await m.findOneOrFail(PayrollRun, { where: { id: runId }, lock: { mode: 'pessimistic_write' } });
    if (attempts.length > 0 && ['funding_pending', 'funded', 'cancelled'].includes(run.status)) await apply(m, run);
    return { status: run.status, funding_state: run.funding_state };
  });
}
