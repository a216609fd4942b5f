/**
 * The payroll funding attempt's record module (spec 2.7 funding instructions): one named function
 * per transition, through domain/payroll-funding.ts `fundingAttemptTransitions`. An attempt's events are
 * the run's (`payroll_run.funding_instructions_*`), written by their callers with the run's view.
 */
import type { EntityManager } from 'typeorm';
import { fundingAttemptTransitions, type FundingAttemptStatus } from '../../domain/payroll-funding';
import type { PayrollFundingAttempt } from '../../entities';

/** The run is fully funded: a `pending` attempt -> `verified`. Saves. */
export async function verifyPayrollFundingAttempt(manager: EntityManager, attempt: PayrollFundingAttempt): Promise<void> {
  fundingAttemptTransitions.move(attempt, 'verified');
  await manager.save(attempt);
}

/** A `blocked` or retryable `failed` attempt is prepared again: -> `preparing`, `failure_reason` cleared. In memory (the caller saves). */
export function retryPayrollFundingAttempt(attempt: PayrollFundingAttempt): void {
  fundingAttemptTransitions.move(attempt, 'preparing');
  attempt.failure_reason = null;
}

/** A `preparing` attempt takes the providers' outcome `to` (`pending`, `blocked`, `failed`). In memory (the caller sets the instructions and saves). */
export function preparePayrollFundingAttempt(attempt: PayrollFundingAttempt, to: FundingAttemptStatus): void {
  fundingAttemptTransitions.move(attempt, to);
}
