/**
 * The off-ramp intent's workflow activities (spec 2.5, 3, 6; contracts/offramp-intent.ts:
 * `advanceOfframp`, `submitOfframpPayment` pays the bank once under key `offramp:<id>`,
 * `refundOfframp` under `offramp-refund:<id>`), registered by activities/index.ts under these
 * names. Each step reads what the chain or the rail say now and applies the transitions the
 * intent's record allows (activities/records/offramp-intents.ts), each with its outbox event in one
 * transaction; the funding deadline is judged in workflow time (domain/object-clock.ts). A missing
 * row is ApplicationFailure `NotFound` (non-retryable). USDC in 6-decimal minor units; fiat in
 * minor units of its currency.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { EntityManager } from 'typeorm';
import type { OfframpActivities, OfframpProgress } from '../../contracts/offramp-intent';
import type { BankDetails } from '../../domain/bank-details';
import { objectClock } from '../../domain/object-clock';
import { offrampTransitions, type OfframpFailureReason, type OfframpStatus } from '../../domain/offramp';
import { WalletExternalAccount, WalletOfframpIntent } from '../../entities';
import { db, transaction } from '../../lib/db';
import { decrypt } from '../../lib/secrets';
import { chainAdapter } from '../../providers/chain';
import { beneficiaryAccountOf, fiatRails } from '../../providers/fiat-rails';
import { faultValue } from '../../providers/sandbox-faults';
import {
  failOfframpIntent,
  lockOfframpIntent,
  markOfframpPaymentProcessed,
  markOfframpPaymentSubmitted,
  markOfframpRefunded,
  markOfframpRefundFailed,
  noteOfframpPaymentFailure,
  noteOfframpShortFunding,
  receiveOfframpFunds,
} from '../records/offramp-intents';

/** How often an intent re-reads the chain (awaiting funds) or the rail (payment submitted) when nothing wakes it (ms). */
export const OFFRAMP_POLL_MS = 15_000;

async function loadOfframp(id: string): Promise<WalletOfframpIntent> {
  const r = await db().getRepository(WalletOfframpIntent).findOneBy({ id });
  if (!r) throw ApplicationFailure.nonRetryable(`off-ramp intent ${id} not found`, 'NotFound');
  return r;
}

/**
 * Moves intent `id` to `to` under a row lock through `apply`, a transition of its record
 * (activities/records/offramp-intents.ts, which writes the event); returns the intent. No change
 * when the table no longer allows it (a concurrent run or a cancel already moved it).
 */
async function applyOfframpChange(
  id: string,
  to: OfframpStatus,
  apply: (m: EntityManager, r: WalletOfframpIntent) => Promise<WalletOfframpIntent>,
): Promise<WalletOfframpIntent> {
  return transaction(async (m) => {
    const r = await lockOfframpIntent(m, id);
    if (!r) throw ApplicationFailure.nonRetryable(`off-ramp intent ${id} not found`, 'NotFound');
    if (!offrampTransitions.can(r.status, to)) return r;
    return apply(m, r);
  });
}

/** The raw details of external account `id` (for the fiat rail only; never on the wire). */
async function externalAccountDetails(id: string): Promise<BankDetails> {
  const r = await db().getRepository(WalletExternalAccount).findOneByOrFail({ id });
  return JSON.parse(decrypt(r.details_ciphertext)) as BankDetails;
}

/**
 * Advances intent `id` at workflow time `workflowNowMs` (the funding deadline judged by
 * domain/object-clock.ts from the workflow's `originMs`; wake-ups in workflow time):
 * - `awaiting_funds`: the transit address holds `amount` (confirmed) -> `funds_received`, next
 *   `submit`; past the funding deadline with nothing -> `failed` `funding_expired`; with less ->
 *   next `refund` (`funding_expired`); else wait (poll, or the deadline);
 * - `funds_received`: next `submit`;
 * - `payment_submitted`: the rail paid -> `payment_processed` with the settled amount (and any
 *   excess above `amount` sent back to the wallet); failed or returned -> next `refund`; else wait;
 * - terminal: `done`.
 */
export async function advanceOfframp(id: string, workflowNowMs: number, originMs?: number): Promise<OfframpProgress> {
  let r = await loadOfframp(id);
  const clock = objectClock({ workflowNowMs, originMs, createdAtMs: r.created_at.getTime(), wallNowMs: Date.now() });
  const nowMs = clock.now;
  const chain = chainAdapter();
  const poll = workflowNowMs + OFFRAMP_POLL_MS;
  if (r.status === 'awaiting_funds') {
    const received = await chain.balanceOf(r.transit_address, r.asset);
    if (received >= BigInt(r.amount_minor)) {
      const first = (await chain.transfersTo(r.chain, r.transit_address, r.asset))[0];
      r = await applyOfframpChange(id, 'funds_received', (m, row) =>
        receiveOfframpFunds(m, row, { receivedMinor: received.toString(), sourceTxHash: first?.tx_hash ?? null }),
      );
    } else if (nowMs >= r.funding_deadline.getTime()) {
      if (received === 0n) r = await applyOfframpChange(id, 'failed', (m, row) => failOfframpIntent(m, row, { reason: 'funding_expired' }));
      else {
        await noteOfframpShortFunding(db().manager, id, { receivedMinor: received.toString() });
        return { status: r.status, next: 'refund', wakeAtMs: null, waitingFor: 'returning the short transit deposit' };
      }
    } else {
      return {
        status: r.status,
        next: 'wait',
        wakeAtMs: Math.min(poll, clock.toWorkflowMs(r.funding_deadline.getTime())),
        waitingFor: `the transit deposit of ${r.amount_minor} to ${r.transit_address} (until ${r.funding_deadline.toISOString()})`,
      };
    }
  }
  if (r.status === 'funds_received')
    return { status: r.status, next: 'submit', wakeAtMs: null, waitingFor: 'paying the bank (idempotent by the intent)' };
  if (r.status === 'payment_submitted') {
    const p = await fiatRails().get(r.rail_payment_id!);
    if (p.state === 'paid') {
      const excess = BigInt(r.received_minor) - BigInt(r.amount_minor);
      if (excess > 0n) await chain.send(r.transit_address, r.wallet_address, r.asset, excess, `offramp-excess:${r.id}`);
      const settledAmountMinor = (p.recipient_received ?? p.paid ?? p.amount).toString();
      r = await applyOfframpChange(id, 'payment_processed', (m, row) => markOfframpPaymentProcessed(m, row, { settledAmountMinor }));
    } else if (p.state === 'failed' || p.state === 'returned') {
      const reason: OfframpFailureReason = p.state === 'failed' ? 'payment_failed' : 'payment_returned';
      await noteOfframpPaymentFailure(db().manager, id, { reason, returnReason: p.reason });
      return { status: r.status, next: 'refund', wakeAtMs: null, waitingFor: `returning the USDC (${reason})` };
    } else {
      return {
        status: r.status,
        next: 'wait',
        wakeAtMs: workflowNowMs + 60 * 60 * 1000,
        waitingFor: `the ${r.destination_payment_rail} rail to pay ${r.rail_payment_id}`,
      };
    }
  }
  return { status: r.status, next: 'done', wakeAtMs: null, waitingFor: `nothing (${r.status})` };
}

/**
 * Pays the bank for a `funds_received` intent: submits `destination_amount` on the rail to the
 * external account (key `offramp:<id>`), then `payment_submitted` with the rail payment id. A
 * no-op in any other status (already submitted).
 */
export async function submitOfframpPayment(id: string): Promise<void> {
  const r = await loadOfframp(id);
  if (r.status !== 'funds_received') return;
  const bank = await externalAccountDetails(r.external_account_id);
  const p = await fiatRails().submit({
    idempotencyKey: `offramp:${r.id}`,
    clientReference: r.id,
    rail: r.destination_payment_rail,
    currency: r.destination_currency,
    amount: BigInt(r.destination_amount_minor),
    beneficiaryAccount: beneficiaryAccountOf(bank),
    accountId: r.account_id,
  });
  await applyOfframpChange(id, 'payment_submitted', (m, row) => markOfframpPaymentSubmitted(m, row, { railPaymentId: p.id }));
}

/**
 * Sends what the transit address received back to the wallet (key `offramp-refund:<id>`): `refunded`
 * with the refund hash, or `refund_failed` when it cannot be sent (sandbox fault
 * `offramp.refund_fails`; the funds stay at the transit address for support).
 */
export async function refundOfframp(id: string): Promise<void> {
  const r = await loadOfframp(id);
  if (!offrampTransitions.can(r.status, 'refunded')) return;
  // What the transit address received (recorded when the refund was decided): the same amount on every retry.
  const held = BigInt(r.received_minor);
  if ((await faultValue(r.account_id, 'offramp.refund_fails')) === 'true') {
    await applyOfframpChange(id, 'refund_failed', (m, row) => markOfframpRefundFailed(m, row));
    return;
  }
  const tx = held > 0n ? await chainAdapter().send(r.transit_address, r.wallet_address, r.asset, held, `offramp-refund:${r.id}`) : null;
  await applyOfframpChange(id, 'refunded', (m, row) => markOfframpRefunded(m, row, { refundTxHash: tx }));
}

/** The activities of contracts/offramp-intent.ts. */
export const offrampWorkflowActivities = { advanceOfframp, submitOfframpPayment, refundOfframp } satisfies OfframpActivities;
