/**
 * Starting and signalling payroll workflows (workflows/payroll-run.ts, workflows/payroll-item.ts;
 * spec 2.7, 4.4): what commands call after their commit. signalWithStart heals a lost start.
 */
import { signalWithStart } from '../../temporal/client';
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
