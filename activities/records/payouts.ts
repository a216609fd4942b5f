/**
 * The payout's record module (spec 2.6, 3 "Payout", part 6): its outbox events (`data.object` is
 * the payout's wire form, views/payout.ts) and one named function per transition. Each moves
 * `status` through domain/payouts/statuses.ts `payoutTransitions`, sets the fields that move with
 * it (`funded_at`, `paid_at`, `settled_at`, `failure_reason`, `held_minor`, ...), moves the current
 * attempt with it (activities/records/payout-attempts.ts), saves the payout in the caller's manager
 * `m` and writes the transition's `payout.*` event there. Amounts are minor-unit strings: fiat in
 * the corridor currency, USDC (`held_minor`) in 6-decimal units.
 */
import type { EntityManager } from 'typeorm';
import { payoutTransitions } from '../../domain/payouts/statuses';
import type { Payout } from '../../entities';
import { emitEvent, type RequestRef } from '../../lib/outbox';
import { payoutEventView } from '../../views/payout';
import {
  cancelPayoutAttempt,
  expirePayoutAttempt,
  failPayoutAttempt,
  markPayoutAttemptPaid,
  markPayoutAttemptPaidWithShortfall,
  returnPayoutAttempt,
  settlePayoutAttempt,
} from './payout-attempts';

/** Writes one outbox event per type in `types` carrying the payout's wire form (same transaction as `m`). */
export async function emitPayoutEvents(
  manager: EntityManager,
  payout: Payout,
  types: string[],
  request: RequestRef | null,
  related: string[] = [],
): Promise<void> {
  for (const type of types) {
    await emitEvent(manager, {
      accountId: payout.account_id,
      livemode: payout.livemode,
      type,
      objectType: 'payout',
      objectId: payout.id,
      object: payoutEventView(payout),
      relatedIds: related,
      request,
    });
  }
}

/** The funding address exists: `draft` -> `awaiting_funds`, `funded_at` now; `payout.funded`, `payout.awaiting_funds`. */
export async function fundPayout(manager: EntityManager, payout: Payout): Promise<void> {
  payoutTransitions.move(payout, 'awaiting_funds');
  payout.funded_at = new Date();
  await manager.save(payout);
  await emitPayoutEvents(manager, payout, ['payout.funded', 'payout.awaiting_funds'], null);
}

/** The funding arrived: `awaiting_funds` -> `funds_received`; `payout.funds_received`. */
export async function receivePayoutFunds(manager: EntityManager, payout: Payout): Promise<void> {
  payoutTransitions.move(payout, 'funds_received');
  await manager.save(payout);
  await emitPayoutEvents(manager, payout, ['payout.funds_received'], null);
}

/** The fiat payment was submitted: `funds_received` -> `processing`; `payout.processing`. */
export async function processPayout(manager: EntityManager, payout: Payout): Promise<void> {
  payoutTransitions.move(payout, 'processing');
  await manager.save(payout);
  await emitPayoutEvents(manager, payout, ['payout.processing'], null);
}

/** The funding window closed with nothing received: `awaiting_funds` -> `expired` (`funding_window_expired`), the current attempt with it. No event. */
export async function expirePayout(manager: EntityManager, payout: Payout): Promise<void> {
  payoutTransitions.move(payout, 'expired');
  payout.failure_reason = 'funding_window_expired';
  await manager.save(payout);
  if (payout.current_attempt_id) await expirePayoutAttempt(manager, payout.current_attempt_id);
}

/** `POST /payouts/{id}/cancel` (spec 3, 4.3): -> `cancelled`, the current attempt with it; `payout.cancelled`. */
export async function cancelPayout(manager: EntityManager, payout: Payout, request: RequestRef | null): Promise<void> {
  payoutTransitions.move(payout, 'cancelled');
  await manager.save(payout);
  if (payout.current_attempt_id) await cancelPayoutAttempt(manager, payout.current_attempt_id);
  await emitPayoutEvents(manager, payout, ['payout.cancelled'], request);
}

/**
 * The payout failed (`failure_reason`), its USDC held for return (`held_minor`, null: nothing
 * held); attempt `attemptId` with it; `payout.failed`.
 */
export async function failPayout(
  manager: EntityManager,
  payout: Payout,
  change: { attemptId: string; reason: string; heldMinor: string | null },
): Promise<void> {
  payoutTransitions.move(payout, 'failed');
  payout.failure_reason = change.reason;
  payout.held_minor = change.heldMinor;
  await failPayoutAttempt(manager, change.attemptId);
  await manager.save(payout);
  await emitPayoutEvents(manager, payout, ['payout.failed'], null);
}

/** The fiat payment came back (`return_reason`), its USDC held for return; attempt `attemptId` with it; `payout.returned`. */
export async function returnPayout(
  manager: EntityManager,
  payout: Payout,
  change: { attemptId: string; reason: string; heldMinor: string | null },
): Promise<void> {
  payoutTransitions.move(payout, 'returned');
  payout.return_reason = change.reason;
  payout.held_minor = change.heldMinor;
  await returnPayoutAttempt(manager, change.attemptId);
  await manager.save(payout);
  await emitPayoutEvents(manager, payout, ['payout.returned'], null);
}

/** The rail paid: `processing` -> `paid`, `provider_paid_amount` (minor units), `paid_at` now; attempt with it; `payout.paid`. */
export async function markPayoutPaid(
  manager: EntityManager,
  payout: Payout,
  change: { attemptId: string; paidMinor: string },
): Promise<void> {
  payoutTransitions.move(payout, 'paid');
  payout.provider_paid_minor = change.paidMinor;
  payout.paid_at = new Date();
  await markPayoutAttemptPaid(manager, change.attemptId);
  await manager.save(payout);
  await emitPayoutEvents(manager, payout, ['payout.paid'], null);
}

/** The recipient confirmed the full amount: `paid` -> `settled`, `settled_at` now; attempt with it; `payout.settled`. */
export async function settlePayout(manager: EntityManager, payout: Payout, change: { attemptId: string }): Promise<void> {
  payoutTransitions.move(payout, 'settled');
  payout.settled_at = new Date();
  await settlePayoutAttempt(manager, change.attemptId);
  await manager.save(payout);
  await emitPayoutEvents(manager, payout, ['payout.settled'], null);
}

/** The recipient confirmed less: `paid` -> `paid_with_shortfall` with `shortfall_minor`; attempt with it; `payout.paid_with_shortfall`. */
export async function markPayoutPaidWithShortfall(
  manager: EntityManager,
  payout: Payout,
  change: { attemptId: string; shortfallMinor: string },
): Promise<void> {
  payoutTransitions.move(payout, 'paid_with_shortfall');
  payout.shortfall_minor = change.shortfallMinor;
  await markPayoutAttemptPaidWithShortfall(manager, change.attemptId);
  await manager.save(payout);
  await emitPayoutEvents(manager, payout, ['payout.paid_with_shortfall'], null);
}
