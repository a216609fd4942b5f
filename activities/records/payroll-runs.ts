/**
 * The payroll run's record module (spec 2.7, 3 "Payroll run", part 6): its outbox events (the
 * run's wire form, views/payroll.ts) and one named function per transition. Each moves `status`
 * through domain/payroll.ts `payrollRunTransitions`, sets the fields that move with it
 * (`approved_at`, `cancelled_at`, `funded_at`, `completed_at`, `needs_attention`, and the funding
 * state columns `funding_state`, `funding_confirmed_*`), saves the run in the caller's manager `m`
 * and writes the transition's `payroll_run.*` event there. What the run owes back is read by the
 * payroll area (activities/payroll/records.ts `loadFundsState`) and passed in as `owesFundsBack`,
 * asked after the status moved (what is owed depends on it).
 */
import type { EntityManager } from 'typeorm';
import { payrollRunTransitions, type FundingReduction } from '../../domain/payroll';
import type { PayrollFundingAttempt, PayrollRun } from '../../entities';
import { emitEvent, type RequestRef } from '../../lib/outbox';
import { payrollRunEventView } from '../../views/payroll';
import { verifyPayrollFundingAttempt } from './payroll-funding-attempts';

/** Whether the run (in its new status) still holds money it owes back. */
type OwesFundsBack = (run: PayrollRun) => Promise<boolean>;

/** Writes one outbox event per type in `types` carrying the run's wire form (same transaction as `m`). */
export async function emitRunEvents(manager: EntityManager, run: PayrollRun, types: string[], request: RequestRef | null): Promise<void> {
  for (const type of types) {
    await emitEvent(manager, {
      accountId: run.account_id,
      livemode: run.livemode,
      type,
      objectType: 'payroll_run',
      objectId: run.id,
      object: payrollRunEventView(run),
      request,
    });
  }
}

/** `POST /payroll_runs/{id}/approve`: `reviewed` -> `funding_pending`, `approved_at` now; `payroll_run.approved`. */
export async function approvePayrollRun(manager: EntityManager, run: PayrollRun, request: RequestRef | null): Promise<void> {
  payrollRunTransitions.move(run, 'funding_pending');
  run.approved_at = new Date();
  await manager.save(run);
  await emitRunEvents(manager, run, ['payroll_run.approved'], request);
}

/** `POST /payroll_runs/{id}/cancel`: -> `cancelled`, `cancelled_at` now, `needs_attention` when it owes money back; `payroll_run.cancelled`. */
export async function cancelPayrollRun(
  manager: EntityManager,
  run: PayrollRun,
  change: { owesFundsBack: OwesFundsBack },
  request: RequestRef | null,
): Promise<void> {
  payrollRunTransitions.move(run, 'cancelled');
  run.cancelled_at = new Date();
  if (await change.owesFundsBack(run)) run.needs_attention = true;
  await manager.save(run);
  await emitRunEvents(manager, run, ['payroll_run.cancelled'], request);
}

/** `POST /payroll_runs/{id}/execute`: `funded` -> `executing`, `execution_started_at` now; `payroll_run.execution_started`. */
export async function executePayrollRun(manager: EntityManager, run: PayrollRun, request: RequestRef | null): Promise<void> {
  payrollRunTransitions.move(run, 'executing');
  run.execution_started_at = new Date();
  await manager.save(run);
  await emitRunEvents(manager, run, ['payroll_run.execution_started'], request);
}

/**
 * Ends an execution: `executing` -> `change.outcome` (`completed`, `partial`, `failed`),
 * `completed_at` now, `needs_attention` unless completed with nothing owed back; `payroll_run.<outcome>`.
 */
export async function finishPayrollRun(
  manager: EntityManager,
  run: PayrollRun,
  change: { outcome: 'completed' | 'partial' | 'failed'; owesFundsBack: OwesFundsBack },
): Promise<void> {
  payrollRunTransitions.move(run, change.outcome);
  run.completed_at = new Date();
  if (change.outcome !== 'completed' || (await change.owesFundsBack(run))) run.needs_attention = true;
  await manager.save(run);
  await emitRunEvents(manager, run, [`payroll_run.${change.outcome}`], null);
}

/**
 * Folds the run's funding (domain `reduceFunding` outcome `change.funding`, in `change.currency`)
 * into it: `funding_state`, `funding_confirmed_*`, `needs_attention` (a cancelled run: whether it
 * owes money back); `funding_pending` -> `funded` on the first confirmed inbound funding
 * (`funded_at`, `payroll_run.funding_verified`); `payroll_run.underfunded` when it becomes partially
 * funded; the pending funding attempt `verified` once fully funded
 * (`payroll_run.funding_instructions_verified`). Writes nothing when nothing changed.
 */
export async function applyPayrollRunFunding(
  manager: EntityManager,
  run: PayrollRun,
  change: { funding: FundingReduction; currency: string; attempt: PayrollFundingAttempt | null; owesFundsBack: OwesFundsBack },
): Promise<void> {
  const f = change.funding;
  const attempt = change.attempt;
  const before = { state: run.funding_state, attention: run.needs_attention, confirmed: run.funding_confirmed_minor, status: run.status };
  const events: string[] = [];
  run.funding_state = f.funding_state;
  run.funding_confirmed_minor = f.confirmed === null ? null : f.confirmed.toString();
  run.funding_confirmed_currency = f.confirmed === null ? null : change.currency;
  // A cancelled run owes back everything it received: it needs a person until that is returned
  // (domain/payroll-returns.ts; the operator's `returnFunds`, activities/payroll/returns.ts).
  run.needs_attention = run.status === 'cancelled' ? await change.owesFundsBack(run) : f.needs_attention;
  if (run.status === 'funding_pending' && f.confirmed !== null && f.confirmed > 0n) {
    payrollRunTransitions.move(run, 'funded'); // spec 3: the first inbound funding, not necessarily all of it
    run.funded_at = new Date();
    events.push('payroll_run.funding_verified');
  }
  if (f.funding_state === 'partially_funded' && before.state !== 'partially_funded' && run.status !== 'cancelled')
    events.push('payroll_run.underfunded');
  if (attempt && attempt.status === 'pending' && (f.funding_state === 'funded' || f.funding_state === 'overfunded')) {
    await verifyPayrollFundingAttempt(manager, attempt);
    events.push('payroll_run.funding_instructions_verified');
  }
  const changed =
    events.length > 0 ||
    before.state !== run.funding_state ||
    before.attention !== run.needs_attention ||
    before.confirmed !== run.funding_confirmed_minor ||
    before.status !== run.status;
  if (!changed) return;
  await manager.save(run);
  await emitRunEvents(manager, run, events, null);
}
