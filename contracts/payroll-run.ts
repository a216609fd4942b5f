/**
 * Contract of a payroll run (workflows/payroll-run.ts, workflow id = the run id `pr_...`;
 * activities/payroll/activities.ts `payrollRunWorkflowActivities`). Its items are children with
 * their own contract (contracts/payroll-item.ts).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { FundingState, PayrollRunStatus } from '../domain/payroll';
import { defineContract } from './contract';

/** Arguments of payrollRunWorkflow. */
export interface PayrollRunWorkflowArgs {
  runId: string;
}

/** What the run workflow needs of a run each turn: its status and how many of its funds returns are in flight (`pending`, `submitted`). */
export interface PayrollRunState {
  status: string;
  returns_in_flight?: number;
}

/** Result of one funding poll: the run's status and funding state after it. */
export interface PayrollFundingCheck {
  status: PayrollRunStatus;
  funding_state: FundingState;
}

/** What a returns step leaves behind: returns created now, returns still in flight, and whether money owed back is not yet returned. */
export interface PayrollFundsReturnStep {
  created: number;
  in_flight: number;
  unreturned: boolean;
}

/** Operator's request to return the money the run owes back (`reason`: why, kept for audit; never on the wire). */
export interface PayrollReturnFundsRequest {
  reason: string;
}

/** The activities payrollRunWorkflow calls. */
export interface PayrollRunActivities {
  loadPayrollRunState(runId: string): Promise<PayrollRunState>;
  /** Reads the run's funding from its provider (the five-minute poll). */
  refreshPayrollFunding(runId: string): Promise<PayrollFundingCheck>;
  /** Ids of the items an execution has still to pay or follow, in row order. */
  payrollItemsToPay(runId: string): Promise<string[]>;
  /** Ends an execution with its outcome; returns the run's status. */
  finishPayrollExecution(runId: string): Promise<string>;
  /** Returns what the run owes back to its funding sources (idempotent by the return keys). */
  returnPayrollFunds(runId: string, reason: string): Promise<PayrollFundsReturnStep>;
  /** Re-reads the funds returns in flight. */
  syncPayrollFundsReturns(runId: string): Promise<{ in_flight: number }>;
}

export const payrollRunContract = defineContract<PayrollRunActivities>()({
  workflowType: 'payrollRunWorkflow',
  idPrefix: 'pr_',
  startArgs: (runId: string): [PayrollRunWorkflowArgs] => [{ runId }],
  signals: {
    /** The run changed in PostgreSQL (approved, funding refreshed, execute requested, cancelled): re-read it. */
    update: defineSignal('update'),
    /** Operator only (never a merchant operation): return what the run owes back to its funding sources. */
    returnFunds: defineSignal<[PayrollReturnFundsRequest]>('returnFunds'),
    /** Operator: the cause of a parked step was fixed; run the loop again. */
    retry: defineSignal('retry'),
  },
  queries: { waitingFor: defineQuery<string>('waiting_for') },
});
