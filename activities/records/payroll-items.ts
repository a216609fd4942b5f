/**
 * The payroll item's record module (spec 2.7, 3 "Payroll item", part 6), with its payment attempts
 * and its destination: one named function per transition. An item's status moves through
 * domain/payroll.ts `payrollItemTransitions` with the fields that move with it (`paid_at`,
 * `failure_reason`, `return_reason`) and its `payroll_item.*` event, in the caller's manager `m`;
 * its attempt follows it through `payrollItemAttemptTransitions`; its `destination_status`
 * moves through domain/payroll-destinations.ts `payrollDestinationTransitions`.
 */
import type { EntityManager } from 'typeorm';
import { payrollItemAttemptTransitions, payrollItemTransitions, type PayrollItemStatus } from '../../domain/payroll';
import { payrollDestinationTransitions } from '../../domain/payroll-destinations';
import type { PayrollItemAttempt, PayrollRunItem } from '../../entities';
import { emitEvent } from '../../lib/outbox';
import { payrollItemEventView } from '../../views/payroll';

/** Moves `item` to `to`, saves it and writes its `payroll_item.<event>` event. */
async function moveItem(m: EntityManager, item: PayrollRunItem, to: PayrollItemStatus, event: string): Promise<void> {
  payrollItemTransitions.move(item, to);
  if (to === 'paid') item.paid_at = new Date();
  await m.save(item);
  await emitEvent(m, {
    accountId: item.account_id,
    livemode: item.livemode,
    type: `payroll_item.${event}`,
    objectType: 'payroll_item',
    objectId: item.id,
    object: payrollItemEventView(item),
    request: null,
  });
}

/** A pending item got its attempt `change.attemptId`: -> `queued`; `payroll_item.payout_queued`. */
export async function queuePayrollItem(manager: EntityManager, item: PayrollRunItem, change: { attemptId: string }): Promise<void> {
  item.current_attempt_id = change.attemptId;
  await moveItem(manager, item, 'queued', 'payout_queued');
}

/** The rail took the item's payment: `queued` -> `processing`; `payroll_item.payout_processing`. */
export async function processPayrollItem(manager: EntityManager, item: PayrollRunItem): Promise<void> {
  await moveItem(manager, item, 'processing', 'payout_processing');
}

/** The rail paid: `processing` -> `paid`, `paid_at` now; `payroll_item.payout_paid`. */
export async function markPayrollItemPaid(manager: EntityManager, item: PayrollRunItem): Promise<void> {
  await moveItem(manager, item, 'paid', 'payout_paid');
}

/** The payment came back: `paid` -> `returned` with `return_reason`; `payroll_item.payout_returned`. */
export async function returnPayrollItem(manager: EntityManager, item: PayrollRunItem, change: { reason: string | null }): Promise<void> {
  item.return_reason = change.reason;
  await moveItem(manager, item, 'returned', 'payout_returned');
}

/** The item cannot be paid (`failure_reason`, e.g. `destination_missing`): -> `failed`; `payroll_item.payout_failed`. */
export async function failPayrollItem(manager: EntityManager, item: PayrollRunItem, change: { reason: string }): Promise<void> {
  item.failure_reason = change.reason;
  await moveItem(manager, item, 'failed', 'payout_failed');
}

/** The item's current attempt follows the item (never `pending`; one answer may move the item several steps) and takes its failure reason. Saves. */
export async function alignPayrollItemAttempt(manager: EntityManager, attempt: PayrollItemAttempt, item: PayrollRunItem): Promise<void> {
  if (item.status !== 'pending' && item.status !== attempt.status) payrollItemAttemptTransitions.move(attempt, item.status);
  attempt.failure_reason = item.failure_reason;
  await manager.save(attempt);
}

/** A recipient submitted a destination another item may adopt: `missing` -> `pending_adoption`, in memory (the caller saves). */
export function offerPayrollItemDestination(item: PayrollRunItem): void {
  item.destination_status = payrollDestinationTransitions.assert(item.destination_status, 'pending_adoption');
}

/** The item takes the recipient's destination: -> `ready` (unchanged when already ready), in memory (the caller sets the destination and saves). */
export function readyPayrollItemDestination(item: PayrollRunItem): void {
  if (item.destination_status !== 'ready') item.destination_status = payrollDestinationTransitions.assert(item.destination_status, 'ready');
}
