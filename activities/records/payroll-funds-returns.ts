/**
 * The payroll funds return's record module (money a run owes back, sent to where it came from;
 * spec 2.7, domain/payroll-returns.ts): its transition through `fundsReturnTransitions`. The
 * run's `payroll_run.funds_returned` / `.funds_return_failed` events are written by the caller with
 * the run, after it re-reads what the run still owes.
 */
import type { EntityManager } from 'typeorm';
import { fundsReturnTransitions, type FundsReturnStatus } from '../../domain/payroll-returns';
import type { PayrollFundsReturn } from '../../entities';

/**
 * Records the provider's outcome on a return: -> `change.state` (`submitted`, `returned` with
 * `returned_at` now, `failed`), the provider's reference (kept when none) and the failure reason. Saves.
 */
export async function recordPayrollFundsReturnOutcome(
  manager: EntityManager,
  fundsReturn: PayrollFundsReturn,
  change: { state: Exclude<FundsReturnStatus, 'pending'>; providerRef: string | null; failure: string | null },
): Promise<void> {
  fundsReturnTransitions.move(fundsReturn, change.state);
  fundsReturn.provider_ref = change.providerRef ?? fundsReturn.provider_ref;
  fundsReturn.failure_reason = change.failure;
  if (change.state === 'returned') fundsReturn.returned_at = new Date();
  await manager.save(fundsReturn);
}
