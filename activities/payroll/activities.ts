/**
 * The activities of the payroll workflows (workflows/payroll-run.ts and workflows/payroll-item.ts
 * call them through their proxies; spec 2.7, 4.4).
 */
import { finishPayrollExecution, loadPayrollRunState, payPayrollItem, payrollItemsToPay, syncPayrollItem } from './execution';
import { refreshPayrollFunding } from './funding';
import { returnPayrollFunds, syncPayrollFundsReturns } from './returns';

export const payrollWorkflowActivities = {
  loadPayrollRunState, refreshPayrollFunding, payrollItemsToPay, finishPayrollExecution, payPayrollItem, syncPayrollItem,
  returnPayrollFunds, syncPayrollFundsReturns,
};
export type PayrollWorkflowActivities = typeof payrollWorkflowActivities;
