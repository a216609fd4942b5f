/**
 * The off-ramp intent's steps (spec 2.5, 3, part 6 `offramp_intent.*`; issue 14): the activities
 * its workflow runs. `advanceOfframp` reads the intent with what the chain and the fiat rail say
 * now, applies the status changes its transition table allows (each with its outbox event, in one
 * transaction), and names the next step; `submitOfframpPayment` pays the bank once (provider
 * idempotency key `offramp:<id>`: a retry, a crashed worker or a reset re-submits under the same
 * key and gets the same payment); `refundOfframp` sends the USDC held at the transit address back to
 * the wallet (idempotency key `offramp-refund:<id>`). USDC minor units; fiat minor units.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { offrampTransitions, type OfframpFailureReason, type OfframpStatus } from '../../domain/offramp';
import { objectClock } from '../../domain/object-clock';
import { WalletOfframpIntent } from '../../entities';
import { db, transaction } from '../../lib/db';
import { emitEvent } from '../../lib/outbox';
import { chainAdapter } from '../../providers/chain';
import { beneficiaryAccountOf, fiatRails } from '../../providers/fiat-rails';
import { faultValue } from '../../providers/sandbox-faults';
import { offrampIntentView } from '../../views/wallet-offramp';
import { externalAccountDetails } from './external-accounts';

/** How often an intent re-reads the chain (awaiting funds) or the rail (payment submitted) when nothing wakes it (ms). */
export const OFFRAMP_POLL_MS = 15_000;

/** What the workflow does next. */
export interface OfframpProgress { status: OfframpStatus; next: 'submit' | 'refund' | 'wait' | 'done'; wakeAtMs: number | null; waitingFor: string }

type Change = { to: OfframpStatus; set?: Partial<WalletOfframpIntent> };

async function load(id: string): Promise<WalletOfframpIntent> {
  const r = await db().getRepository(WalletOfframpIntent).findOneBy({ id });
  if (!r) throw ApplicationFailure.nonRetryable(`off-ramp intent ${id} not found`, 'NotFound');
  return r;
}

/** Applies `changes` under a row lock, each through the table with its `offramp_intent.<status>` event; returns the intent. */
async function apply(id: string, changes: Change[]): Promise<WalletOfframpIntent> {
  return transaction(async (m) => {
    const r = await m.findOne(WalletOfframpIntent, { where: { id }, lock: { mode: 'pessimistic_write' } });
    if (!r) throw ApplicationFailure.nonRetryable(`off-ramp intent ${id} not found`, 'NotFound');
    for (const c of changes) {
      if (!offrampTransitions.can(r.status, c.to)) continue; // a concurrent run (or a cancel) already moved it
      r.status = c.to;
      Object.assign(r, c.set ?? {});
      await m.save(r);
      // `failed` is a terminal state without a catalogued event of its own (spec 6 lists none).
      if (c.to !== 'failed') await emitEvent(m, { accountId: r.account_id, livemode: r.livemode, type: `offramp_intent.${c.to}`, objectType: 'offramp_intent', objectId: r.id, object: offrampIntentView(r) });
    }
    return r;
  });
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
  let r = await load(id);
  const clock = objectClock({ workflowNowMs, originMs, createdAtMs: r.created_at.getTime(), wallNowMs: Date.now() });
  const nowMs = clock.now;
  const chain = chainAdapter();
  const poll = workflowNowMs + OFFRAMP_POLL_MS;
  if (r.status === 'awaiting_funds') {
    const received = await chain.balanceOf(r.transit_address, r.asset);
    if (received >= BigInt(r.amount_minor)) {
      const first = (await chain.transfersTo(r.chain, r.transit_address, r.asset))[0];
      r = await apply(id, [{ to: 'funds_received', set: { received_minor: received.toString(), source_tx_hash: first?.tx_hash ?? null, funds_received_at: new Date() } }]);
    } else if (nowMs >= r.funding_deadline.getTime()) {
      if (received === 0n) r = await apply(id, [{ to: 'failed', set: { failure_reason: 'funding_expired', completed_at: new Date() } }]);
      else {
        await db().query(`UPDATE wallet_offramp_intents SET received_minor = $2, failure_reason = 'funding_expired', updated_at = now() WHERE id = $1 AND status = 'awaiting_funds'`, [id, received.toString()]);
        return { status: r.status, next: 'refund', wakeAtMs: null, waitingFor: 'returning the short transit deposit' };
      }
    } else {
      return { status: r.status, next: 'wait', wakeAtMs: Math.min(poll, clock.toWorkflowMs(r.funding_deadline.getTime())), waitingFor: `the transit deposit of ${r.amount_minor} to ${r.transit_address} (until ${r.funding_deadline.toISOString()})` };
    }
  }
  if (r.status === 'funds_received') return { status: r.status, next: 'submit', wakeAtMs: null, waitingFor: 'paying the bank (idempotent by the intent)' };
  if (r.status === 'payment_submitted') {
    const p = await fiatRails().get(r.rail_payment_id!);
    if (p.state === 'paid') {
      const excess = BigInt(r.received_minor) - BigInt(r.amount_minor);
      if (excess > 0n) await chain.send(r.transit_address, r.wallet_address, r.asset, excess, `offramp-excess:${r.id}`);
      r = await apply(id, [{ to: 'payment_processed', set: { settled_amount_minor: (p.recipient_received ?? p.paid ?? p.amount).toString(), completed_at: new Date() } }]);
    } else if (p.state === 'failed' || p.state === 'returned') {
      const reason: OfframpFailureReason = p.state === 'failed' ? 'payment_failed' : 'payment_returned';
      await db().query('UPDATE wallet_offramp_intents SET failure_reason = $2, return_reason = $3, updated_at = now() WHERE id = $1', [id, reason, p.reason]);
      return { status: r.status, next: 'refund', wakeAtMs: null, waitingFor: `returning the USDC (${reason})` };
    } else {
      return { status: r.status, next: 'wait', wakeAtMs: workflowNowMs + 60 * 60 * 1000, waitingFor: `the ${r.destination_payment_rail} rail to pay ${r.rail_payment_id}` };
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
  const r = await load(id);
  if (r.status !== 'funds_received') return;
  const bank = await externalAccountDetails(r.external_account_id);
  const p = await fiatRails().submit({
    idempotencyKey: `offramp:${r.id}`, clientReference: r.id, rail: r.destination_payment_rail, currency: r.destination_currency,
    amount: BigInt(r.destination_amount_minor), beneficiaryAccount: beneficiaryAccountOf(bank), accountId: r.account_id,
  });
  await apply(id, [{ to: 'payment_submitted', set: { rail_payment_id: p.id, payment_submitted_at: new Date() } }]);
}

/**
 * Sends what the transit address received back to the wallet (key `offramp-refund:<id>`): `refunded`
 * with the refund hash, or `refund_failed` when it cannot be sent (sandbox fault
 * `offramp.refund_fails`; the funds stay at the transit address for support).
 */
export async function refundOfframp(id: string): Promise<void> {
  const r = await load(id);
  if (!offrampTransitions.can(r.status, 'refunded')) return;
  // What the transit address received (recorded when the refund was decided): the same amount on every retry.
  const held = BigInt(r.received_minor);
  if ((await faultValue(r.account_id, 'offramp.refund_fails')) === 'true') {
    await apply(id, [{ to: 'refund_failed', set: { completed_at: new Date() } }]);
    return;
  }
  const tx = held > 0n ? await chainAdapter().send(r.transit_address, r.wallet_address, r.asset, held, `offramp-refund:${r.id}`) : null;
  await apply(id, [{ to: 'refunded', set: { refund_tx_hash: tx, completed_at: new Date() } }]);
}

/** The activities the off-ramp workflow calls. */
export const offrampWorkflowActivities = { advanceOfframp, submitOfframpPayment, refundOfframp };
export type OfframpWorkflowActivities = typeof offrampWorkflowActivities;
