/**
 * Payroll funding (spec 2.7 "Funding instructions", 4.4): the funding poll of the run workflow.
 * WORK IN PROGRESS on the branch: observation of provider credits and chain transfers is being
 * added (funding instructions, attempts); until then the poll reads the run's recorded state.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { FundingState, PayrollRunStatus } from '../../domain/payroll';
import { PayrollRun } from '../../entities';
import { db } from '../../lib/db';

/** Result of one funding poll: the run's status and funding state after it. */
export interface PayrollFundingCheck { status: PayrollRunStatus; funding_state: FundingState }

/** Run workflow activity (every five minutes, and inline from the funding POST): re-reads the run's funding. */
export async function refreshPayrollFunding(runId: string): Promise<PayrollFundingCheck> {
  const r = await db().getRepository(PayrollRun).findOneBy({ id: runId });
  if (!r) throw ApplicationFailure.nonRetryable(`payroll run ${runId} not found`, 'NotFound');
  return { status: r.status, funding_state: r.funding_state };
}
