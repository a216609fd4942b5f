/**
 * Starting and signalling payroll workflows (workflows/payroll-run.ts, workflows/payroll-item.ts;
 * spec 2.7, 4.4): what commands call after their commit (signalWithStart heals a lost start) and
 * the recovery sweep at worker start.
 */
import { db, forEachByKeyset } from '../../lib/db';
import { signalWithStart, startIfAbsent } from '../../temporal/client';
import { payrollItemUpdateSignal, payrollItemWorkflow } from '../../workflows/payroll-item';
import { payrollRunUpdateSignal, payrollRunWorkflow } from '../../workflows/payroll-run';

/** The run `runId` changed in PostgreSQL (approved, funding refreshed, execute, cancel): its workflow re-reads it (started if absent). */
export async function wakePayrollRun(runId: string, accountId: string): Promise<void> {
  await signalWithStart(payrollRunWorkflow, { workflowId: runId, args: [{ runId }], accountId, signal: payrollRunUpdateSignal, signalArgs: [] });
}

/** The provider changed the payment of item `itemId` (e.g. a return): its workflow re-reads it (started again if it had ended). */
export async function wakePayrollItem(itemId: string, accountId: string): Promise<void> {
  await signalWithStart(payrollItemWorkflow, { workflowId: itemId, args: [{ itemId }], accountId, signal: payrollItemUpdateSignal, signalArgs: [] });
}

/**
 * Recovery sweep at worker start: starts the workflow of every run with work left (`funding_pending`,
 * `funded`, `executing`) that has none open, in batches of `batch` (a crash between a commit and
 * its signal only delays a run). Returns how many runs it looked at.
 */
export async function ensurePayrollWorkflows(batch = 500): Promise<number> {
  return forEachByKeyset(`SELECT id, account_id FROM payroll_runs WHERE id > $1 AND status IN ('funding_pending', 'funded', 'executing') ORDER BY id LIMIT $2`,
    (r) => startIfAbsent(payrollRunWorkflow, { workflowId: r.id, args: [{ runId: r.id }], accountId: r.account_id }), batch);
}

/** Simulator / provider callback: the rail changed the payment of item `itemId`; its workflow re-reads it. False when no such item. */
export async function notifyPayrollItemRailUpdate(itemId: string): Promise<boolean> {
  const rows: Array<{ account_id: string }> = await db().query('SELECT account_id FROM payroll_run_items WHERE id = $1', [itemId]);
  if (!rows[0]) return false;
  await wakePayrollItem(itemId, rows[0].account_id);
  return true;
}
