/**
 * The payout's record module (spec 2.6, 3 "Payout", part 6): its outbox events (`data.object` is
 * the payout's wire form, views/payout.ts) and one named function per transition. Each moves
 * `status` through domain/payouts/statuses.ts `PAYOUT_TRANSITIONS`, sets the fields that move with
 * it (`funded_at`, `paid_at`, `settled_at`, `failure_reason`, `held_minor`, ...), moves the current
 * attempt with it (activities/records/payout-attempts.ts), saves the payout in the caller's manager
 * `m` and writes the transition's `payout.*` event there. Amounts are minor-unit strings: fiat in
 * the corridor currency, USDC (`held_minor`) in 6-decimal units.
 */
import type { EntityManager } from 'typeorm';
import { PAYOUT_TRANSITIONS } from '../../domain/payouts/statuses';
import type { Payout } from '../../entities';
import { emitEvent, type RequestRef } from '../../lib/outbox';
import { payoutEventView } from '../../views/payout';
import {
  cancelPayoutAttempt, expirePayoutAttempt, failPayoutAttempt, markPayoutAttemptPaid, markPayoutAttemptPaidWithShortfall, returnPayoutAttempt, settlePayoutAttempt,
} from './payout-attempts';

/** Writes one outbox event per type in `types` carrying the payout's wire form (same transaction as `m`). */
export async function emitPayoutEvents(m: EntityManager, payout: Payout, types: string[], request: RequestRef | null, related: string[] = []): Promise<void> {
  for (const type of types) {
    await emitEvent(m, {
      accountId: payout.account_id, livemode: payout.livemode, type, objectType: 'payout', objectId: payout.id,
      object: payoutEventView(payout), relatedIds: related, request,
    });
  }
}

/** The funding address exists: `draft` -> `awaiting_funds`, `funded_at` now; `payout.funded`, `payout.awaiting_funds`. */
export async function fundPayout(m: EntityManager, payout: Payout): Promise<void> {
  PAYOUT_TRANSITIONS.move(payout, 'awaiting_funds');
  payout.funded_at = new Date();
  await m.save(payout);
  await emitPayoutEvents(m, payout, ['payout.funded', 'payout.awaiting_funds'], null);
}

/** The funding arrived: `awaiting_funds` -> `funds_received`; `payout.funds_received`. */
export async function receivePayoutFunds(m: EntityManager, payout: Payout): Promise<void> {
  PAYOUT_TRANSITIONS.move(payout, 'funds_received');
  await m.save(payout);
  await emitPayoutEvents(m, payout, ['payout.funds_received'], null);
}

/** The fiat payment was submitted: `funds_received` -> `processing`; `payout.processing`. */
export async function processPayout(m: EntityManager, payout: Payout): Promise<void> {
  PAYOUT_TRANSITIONS.move(payout, 'processing');
  await m.save(payout);
  await emitPayoutEvents(m, payout, ['payout.processing'], null);
}

/** The funding window closed with nothing received: `awaiting_funds` -> `expired` (`funding_window_expired`), the current attempt with it. No event. */
export async function expirePayout(m: EntityManager, payout: Payout): Promise<void> {
  PAYOUT_TRANSITIONS.move(payout, 'expired');
  payout.failure_reason = 'funding_window_expired';
  await m.save(payout);
  if (payout.current_attempt_id) await expirePayoutAttempt(m, payout.current_attempt_id);
}

/** `POST /payouts/{id}/cancel` (spec 3, 4.3): -> `cancelled`, the current attempt with it; `payout.cancelled`. */
export async function cancelPayout(m: EntityManager, payout: Payout, request: RequestRef | null): Promise<void> {
  PAYOUT_TRANSITIONS.move(payout, 'cancelled');
  await m.save(payout);
  if (payout.current_attempt_id) await cancelPayoutAttempt(m, payout.current_attempt_id);
  await emitPayoutEvents(m, payout, ['payout.cancelled'], request);
}

/**
 * The payout failed (`failure_reason`), its USDC held for return (`held_minor`, null: nothing
 * held); attempt `attemptId` with it; `payout.failed`.
 */
export async function failPayout(m: EntityManager, payout: Payout, change: { attemptId: string; reason: string; heldMinor: string | null }): Promise<void> {
  PAYOUT_TRANSITIONS.move(payout, 'failed');
  payout.failure_reason = change.reason;
  payout.held_minor = change.heldMinor;
  await failPayoutAttempt(m, change.attemptId);
  await m.save(payout);
  await emitPayoutEvents(m, payout, ['payout.failed'], null);
}

/** The fiat payment came back (`return_reason`), its USDC held for return; attempt `attemptId` with it; `payout.returned`. */
export async function returnPayout(m: EntityManager, payout: Payout, change: { attemptId: string; reason: string; heldMinor: string | null }): Promise<void> {
  PAYOUT_TRANSITIONS.move(payout, 'returned');
  payout.return_reason = change.reason;
  payout.held_minor = change.heldMinor;
  await returnPayoutAttempt(m, change.attemptId);
  await m.save(payout);
  await emitPayoutEvents(m, payout, ['payout.returned'], null);
}

/** The rail paid: `processing` -> `paid`, `provider_paid_amount` (minor units), `paid_at` now; attempt with it; `payout.paid`. */
export async function markPayoutPaid(m: EntityManager, payout: Payout, change: { attemptId: string; paidMinor: string }): Promise<void> {
  PAYOUT_TRANSITIONS.move(payout, 'paid');
  payout.provider_paid_minor = change.paidMinor;
  payout.paid_at = new Date();
  await markPayoutAttemptPaid(m, change.attemptId);
  await m.save(payout);
  await emitPayoutEvents(m, payout, ['payout.paid'], null);
}

/** The recipient confirmed the full amount: `paid` -> `settled`, `settled_at` now; attempt with it; `payout.settled`. */
export async function settlePayout(m: EntityManager, payout: Payout, change: { attemptId: string }): Promise<void> {
  PAYOUT_TRANSITIONS.move(payout, 'settled');
  payout.settled_at = new Date();
  await settlePayoutAttempt(m, change.attemptId);
  await m.save(payout);
  await emitPayoutEvents(m, payout, ['payout.settled'], null);
}

/** The recipient confirmed less: `paid` -> `paid_with_shortfall` with `shortfall_minor`; attempt with it; `payout.paid_with_shortfall`. */
export async function markPayoutPaidWithShortfall(m: EntityManager, payout: Payout, change: { attemptId: string; shortfallMinor: string }): Promise<void> {
  PAYOUT_TRANSITIONS.move(payout, 'paid_with_shortfall');
  payout.shortfall_minor = change.shortfallMinor;
  await markPayoutAttemptPaidWithShortfall(m, change.attemptId);
  await m.save(payout);
  await emitPayoutEvents(m, payout, ['payout.paid_with_shortfall'], null);
}
