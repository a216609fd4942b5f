/**
 * Shared reads of the payroll area (spec 2.7, 3, 6): locking a run row and where the run stands
 * with the money it owes back (domain/payroll-returns.ts). Used by commands.ts and the activities
 * inside their transactions; the run's status changes and events are in its record module
 * (activities/records/payroll-runs.ts).
 */
import type { EntityManager } from 'typeorm';
import { notFound } from '../../domain/errors';
import {
  fundsOwedBack,
  fundsPosition,
  type FundingSource,
  type FundsPosition,
  type FundsReturnRecord,
  type FundsReturnStatus,
} from '../../domain/payroll-returns';
import { PayrollFundingAttempt, PayrollRun } from '../../entities';
import { scoped } from '../../lib/scoped';
import type { AccountScope } from '../scope';

/** Locks (`FOR UPDATE`) run `id` of the scope's account and mode; 404 param `id` when absent (any other account or mode). */
export async function lockRun(manager: EntityManager, scope: AccountScope, id: string): Promise<PayrollRun> {
  return scoped(scope, manager).lock(PayrollRun, { id }, () => notFound(`No such payroll run: ${id}.`, 'id'));
}

/** What a run owes back, read in the caller's transaction: its fundings, returns and per-currency position. */
export interface RunFundsState {
  sources: FundingSource[];
  returns: Array<FundsReturnRecord & { id: string }>;
  position: FundsPosition[];
}

/**
 * Reads, in `m`'s transaction, the fundings of `run` (observed order), the cost of its paid items
 * and its returns, and folds them with domain `fundsOwedBack` / `fundsPosition`. The funding
 * currency is the current funding attempt's (`USDC` for crypto), else the run currency.
 */
export async function loadFundsState(manager: EntityManager, run: PayrollRun): Promise<RunFundsState> {
  const fundings: Array<{
    source_kind: FundingSource['kind'];
    source_ref: string;
    amount_minor: string;
    currency: string;
    confirmed: boolean;
  }> = await manager.query(
    'SELECT source_kind, source_ref, amount_minor, currency, confirmed FROM payroll_fundings WHERE run_id = $1 ORDER BY observed_at, id',
    [run.id],
  );
  const paid: Array<{ amount_minor: string }> = await manager.query(
    `SELECT amount_minor FROM payroll_run_items WHERE run_id = $1 AND status = 'paid'`,
    [run.id],
  );
  const rets: Array<{ id: string; source_ref: string; currency: string; amount_minor: string; status: FundsReturnStatus }> =
    await manager.query(
      'SELECT id, source_ref, currency, amount_minor, status FROM payroll_fund_returns WHERE run_id = $1 ORDER BY return_no',
      [run.id],
    );
  const attempt = run.current_funding_attempt_id
    ? await manager.findOneBy(PayrollFundingAttempt, { id: run.current_funding_attempt_id })
    : null;
  const sources = fundings.map((f) => ({
    kind: f.source_kind,
    ref: f.source_ref,
    amount: BigInt(f.amount_minor),
    currency: f.currency,
    confirmed: f.confirmed,
  }));
  const returns = rets.map((r) => ({
    id: r.id,
    sourceRef: r.source_ref,
    currency: r.currency,
    amount: BigInt(r.amount_minor),
    status: r.status,
  }));
  const owed = fundsOwedBack({
    status: run.status,
    runCurrency: run.currency,
    fundingCurrency: attempt?.required_currency ?? run.currency,
    sources,
    paidItems: paid.map((p) => BigInt(p.amount_minor)),
  });
  return { sources, returns, position: fundsPosition(owed, returns) };
}
