/**
 * Shared records of the payroll area (spec 2.7, 3, 6): locking a run row, writing its outbox
 * events (the run's wire form, views/payroll.ts) and its status changes through the run
 * transition table of domain/payroll.ts. Used by commands.ts inside its transactions.
 */
import type { EntityManager } from 'typeorm';
import { notFound } from '../../domain/errors';
import { PAYROLL_RUN_TRANSITIONS, type PayrollRunStatus } from '../../domain/payroll';
import { PayrollRun } from '../../entities';
import { emitEvent, type RequestRef } from '../../lib/outbox';
import { payrollRunEventView } from '../../views/payroll';

/** Writes one outbox event per type in `types` carrying the run's wire form (same transaction as `m`). */
export async function emitRunEvents(m: EntityManager, run: PayrollRun, types: string[], request: RequestRef | null): Promise<void> {
  for (const type of types) {
    await emitEvent(m, {
      accountId: run.account_id, livemode: run.livemode, type, objectType: 'payroll_run', objectId: run.id,
      object: payrollRunEventView(run), request,
    });
  }
}

/** Locks (`FOR UPDATE`) run `id` of the account and mode; 404 when absent (any other account or mode). */
export async function lockRun(m: EntityManager, accountId: string, livemode: boolean, id: string): Promise<PayrollRun> {
  const run = await m.findOne(PayrollRun, { where: { id, account_id: accountId, livemode }, lock: { mode: 'pessimistic_write' } });
  if (!run) throw notFound(`No such payroll run: ${id}.`, 'id');
  return run;
}

/** Moves `run` to `to` through the run transition table (409 `payroll_run_state_changed` otherwise). Does not save. */
export function moveRun(run: PayrollRun, to: PayrollRunStatus): void {
  run.status = PAYROLL_RUN_TRANSITIONS.assert(run.status, to);
}
