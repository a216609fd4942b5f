/**
 * Starting and signalling payroll workflows (contracts/payroll-run.ts, contracts/payroll-item.ts;
 * spec 2.7, 4.4): what commands call after their commit (signalWithStart heals a lost start) and
 * the recovery sweep at worker start.
 */
import { accountOf } from '../records/account-of';
import { payrollItemContract } from '../../contracts/payroll-item';
import { payrollRunContract } from '../../contracts/payroll-run';
import { payrollRunTransitions } from '../../domain/payroll';
import { sqlStatusList } from '../../domain/payments';
import { db, forEachByKeyset } from '../../lib/db';
import { startIfAbsent, startOrSignal } from '../../temporal/client';

/** The run `runId` changed in PostgreSQL (approved, funding refreshed, execute, cancel): its workflow re-reads it (started if absent). */
export async function wakePayrollRun(runId: string, accountId: string): Promise<void> {
  await startOrSignal(payrollRunContract, { id: runId, accountId }, payrollRunContract.signals.update);
}

/** The provider changed the payment of item `itemId` (e.g. a return): its workflow re-reads it (started again if it had ended). */
export async function wakePayrollItem(itemId: string, accountId: string): Promise<void> {
  await startOrSignal(payrollItemContract, { id: itemId, accountId }, payrollItemContract.signals.update);
}

/** The run statuses the sweep re-drives: the run table's open set (domain/payroll.ts), as an SQL list of constants. */
const OPEN_RUN_STATUSES = sqlStatusList(payrollRunTransitions.open);

/**
 * Recovery sweep at worker start: starts the workflow of every run with work left (the run
 * table's open set: `funding_pending`, `funded`, `executing`) that has none open, in batches of
 * `batch` (a crash between a commit and its signal only delays a run). Returns how many runs it
 * looked at.
 */
export async function ensurePayrollWorkflows(batch = 500): Promise<number> {
  return forEachByKeyset(
    `SELECT id, account_id FROM payroll_runs WHERE id > $1 AND status IN (${OPEN_RUN_STATUSES}) ORDER BY id LIMIT $2`,
    (r) => startIfAbsent(payrollRunContract, { id: r.id, accountId: r.account_id }),
    batch,
  );
}

/**
 * Simulator / provider callback: the rail changed the payment whose client reference is `itemId`:
 * an item's payment (its workflow re-reads it) or a run's funds return (`prfr_...`: the run's
 * workflow re-reads its returns in flight, started again if it had ended). False when neither.
 */
export async function notifyPayrollItemRailUpdate(itemId: string): Promise<boolean> {
  if (itemId.startsWith('prfr_')) {
    const ret: Array<{ run_id: string; account_id: string }> = await db().query(
      'SELECT run_id, account_id FROM payroll_fund_returns WHERE id = $1',
      [itemId],
    );
    if (!ret[0]) return false;
    await wakePayrollRun(ret[0].run_id, ret[0].account_id);
    return true;
  }
  const accountId = await accountOf('payroll_run_items', itemId);
  if (!accountId) return false;
  await wakePayrollItem(itemId, accountId);
  return true;
}

/**
 * Operator (scripts/payroll-return.ts, never a merchant operation): asks run `runId`'s
 * workflow to return the money the run owes back to its funding sources, `reason` kept for audit.
 * signalWithStart `returnFunds`: a run whose workflow has ended starts it again. Safe to repeat (a
 * repeated request finds nothing outstanding). Returns false when there is no such run.
 */
export async function requestPayrollFundsReturn(runId: string, reason: string): Promise<boolean> {
  const accountId = await accountOf('payroll_runs', runId);
  if (!accountId) return false;
  await startOrSignal(payrollRunContract, { id: runId, accountId }, payrollRunContract.signals.returnFunds, { reason });
  return true;
}
