/**
 * The payout attempt's record module (spec 2.6, 3): one named function per transition of an
 * attempt, through domain/payouts/statuses.ts `payoutAttemptTransitions`. An attempt follows its
 * payout; it carries no events of its own (the payout's record module emits them). The in-memory
 * moves take the locked row and save it in the caller's manager `m`; the moves that follow a
 * payout's end take the attempt id and write in SQL only from the statuses the table allows
 * (lib/status-writes.ts `moveRows`): an attempt in any other status is left as is.
 */
import type { EntityManager } from 'typeorm';
import { payoutAttemptTransitions, type PayoutAttemptStatus, type PayoutStatus } from '../../domain/payouts/statuses';
import type { PayoutAttempt } from '../../entities';
import { moveRows } from '../../lib/status-writes';

/** The provider transfer exists: `creating` -> `awaiting_funds`, the funding window ends at `change.expiresAt`. Saves. */
export async function openPayoutAttempt(manager: EntityManager, attempt: PayoutAttempt, change: { expiresAt: Date }): Promise<void> {
  payoutAttemptTransitions.move(attempt, 'awaiting_funds');
  attempt.expires_at = change.expiresAt;
  await manager.save(attempt);
}

/**
 * The payout left draft while the attempt's transfer was being created (it was cancelled): the
 * attempt takes the payout's status `change.status`. Saves. Throws IllegalTransition (409) when the
 * attempt table has no such move.
 */
export async function alignPayoutAttempt(manager: EntityManager, attempt: PayoutAttempt, change: { status: PayoutStatus }): Promise<void> {
  payoutAttemptTransitions.move(attempt, change.status as PayoutAttemptStatus);
  await manager.save(attempt);
}

/** The funding arrived: `awaiting_funds` -> `funds_received`, in memory (the caller saves the attempt with its received figures). */
export function receivePayoutAttemptFunds(attempt: PayoutAttempt): void {
  payoutAttemptTransitions.move(attempt, 'funds_received');
}

/** The fiat payment was submitted: `funds_received` -> `processing` with the rail payment id and the funding surplus (minor units). Saves. */
export async function submitPayoutAttempt(
  manager: EntityManager,
  attempt: PayoutAttempt,
  change: { railPaymentId: string; surplusMinor: string },
): Promise<void> {
  attempt.rail_payment_id = change.railPaymentId;
  payoutAttemptTransitions.move(attempt, 'processing');
  attempt.surplus_minor = change.surplusMinor;
  await manager.save(attempt);
}

async function moveAttempt(m: EntityManager, attemptId: string, to: PayoutAttemptStatus): Promise<void> {
  await moveRows(m, payoutAttemptTransitions, {
    sqlTable: 'payout_attempts',
    where: 'id = $1',
    params: [attemptId],
    to,
    set: 'updated_at = now()',
  });
}

/** Attempt `attemptId` follows its cancelled payout (SQL, from the statuses allowed). */
export async function cancelPayoutAttempt(manager: EntityManager, attemptId: string): Promise<void> {
  await moveAttempt(manager, attemptId, 'cancelled');
}

/** Attempt `attemptId` follows its expired payout (SQL, from the statuses allowed). */
export async function expirePayoutAttempt(manager: EntityManager, attemptId: string): Promise<void> {
  await moveAttempt(manager, attemptId, 'expired');
}

/** Attempt `attemptId` follows its failed payout (SQL, from the statuses allowed). */
export async function failPayoutAttempt(manager: EntityManager, attemptId: string): Promise<void> {
  await moveAttempt(manager, attemptId, 'failed');
}

/** Attempt `attemptId` follows its returned payout (SQL, from the statuses allowed). */
export async function returnPayoutAttempt(manager: EntityManager, attemptId: string): Promise<void> {
  await moveAttempt(manager, attemptId, 'returned');
}

/** Attempt `attemptId` follows its paid payout (SQL, from the statuses allowed). */
export async function markPayoutAttemptPaid(manager: EntityManager, attemptId: string): Promise<void> {
  await moveAttempt(manager, attemptId, 'paid');
}

/** Attempt `attemptId` follows its settled payout (SQL, from the statuses allowed). */
export async function settlePayoutAttempt(manager: EntityManager, attemptId: string): Promise<void> {
  await moveAttempt(manager, attemptId, 'settled');
}

/** Attempt `attemptId` follows its payout paid with a shortfall (SQL, from the statuses allowed). */
export async function markPayoutAttemptPaidWithShortfall(manager: EntityManager, attemptId: string): Promise<void> {
  await moveAttempt(manager, attemptId, 'paid_with_shortfall');
}
