/**
 * Payroll funding (spec 2.7 "Funding instructions", 4.4): request or refresh the run's
 * funding instructions (the money boundary; a refresh re-checks funding at once), read them, and
 * list the run's funding attempts. Scopes `payroll.read` / `.write`; test mode unavailable (503).
 * Rules in activities/payroll/funding-instructions.ts, wire names in views/payroll-funding.ts.
 */
import type Router from '@koa/router';
import Joi from '../schemas/joi';
import {
  currentFundingInstructions,
  fundingAttemptsQuery,
  requestFundingInstructions,
} from '../../activities/payroll/funding-instructions';
import { paginate } from '../../lib/pagination';
import {
  payrollFundingAttemptListResponse,
  payrollFundingInstructionsResponse,
  payrollFundingInstructionsView,
} from '../../views/payroll-funding';
import type { AppState } from '../context';
import { mount } from '../operation';
import { listQuery } from '../schemas/common';
import { fundingInstructionsBody } from '../schemas/payroll-funding';

/** Registers the payroll funding operations on `r`. */
export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'payroll_runs.funding_instructions.create',
    terms: 'account',
    method: 'post',
    path: '/payroll_runs/:id/funding_instructions',
    scope: 'payroll.write',
    testMode: 'unavailable',
    // 409 payroll_run_not_approved, payroll_run_state_changed, run_has_no_rows, funding_method_locked; 409 capability_unavailable (crypto off).
    body: fundingInstructionsBody,
    response: payrollFundingInstructionsResponse,
    summary:
      "Request the run's funding instructions (first call creates them, later calls refresh the same attempt and re-check funding at once); funding_method switches bank and crypto before money arrives.",
    handler: async ({ scope, params, body }) =>
      payrollFundingInstructionsView(await requestFundingInstructions(scope, { ...body, id: params.id })),
  });

  mount(router, {
    id: 'payroll_runs.funding_instructions.get',
    method: 'get',
    path: '/payroll_runs/:id/funding_instructions',
    scope: 'payroll.read',
    testMode: 'unavailable',
    response: payrollFundingInstructionsResponse,
    summary: "The run's current funding instructions; 404 until they were requested. Funding status updates come from a five-minute poll.",
    handler: async ({ scope, params }) => payrollFundingInstructionsView(await currentFundingInstructions(scope, { id: params.id })),
  });

  mount(router, {
    id: 'payroll_runs.attempts.list',
    method: 'get',
    path: '/payroll_runs/:id/attempts',
    scope: 'payroll.read',
    testMode: 'unavailable',
    query: Joi.object(listQuery),
    response: payrollFundingAttemptListResponse,
    summary: "The run's funding attempts, newest first (an attempt replaced by a funding method switch has superseded_at).",
    handler: async ({ scope, params, query }) =>
      paginate(await fundingAttemptsQuery(scope, { id: params.id }), 'f', query, payrollFundingInstructionsView),
  });
}
