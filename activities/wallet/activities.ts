/**
 * The wallet area's workflow activities, and nothing else (spec 2.5, 3, 6; issue 14): one object per
 * workflow, registered by activities/index.ts under these names, each satisfying its contract's
 * activity interface. Send intents (contracts/send-intent.ts: `advanceSendIntent`), off-ramp intents
 * (contracts/offramp-intent.ts: `advanceOfframp`, `submitOfframpPayment` pays the bank once under
 * key `offramp:<id>`, `refundOfframp` under `offramp-refund:<id>`), deposit intents
 * (contracts/deposit-intent.ts: `advanceDepositIntent`, `expireDepositIntent`), conversions
 * (contracts/conversion.ts: `checkConversion`, `expireConversion`) and virtual accounts
 * (contracts/virtual-account.ts: `settleVirtualAccountCredits`, idempotent by the credit id). Each step reads what the chain, the
 * bridge or the rail say now and applies the status changes the object's transition table allows,
 * each with its outbox event in one transaction; deadlines are judged in workflow time
 * (domain/object-clock.ts). A missing row is ApplicationFailure `NotFound` (non-retryable).
 * USDC and stablecoins in 6-decimal minor units; fiat in minor units of its currency.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { ConversionActivities, ConversionState } from '../../contracts/conversion';
import type { DepositIntentActivities, DepositIntentState } from '../../contracts/deposit-intent';
import type { OfframpActivities, OfframpProgress } from '../../contracts/offramp-intent';
import type { SendIntentActivities, SendProgress } from '../../contracts/send-intent';
import type { VirtualAccountActivities } from '../../contracts/virtual-account';
import type { BankDetails } from '../../domain/bank-details';
import { objectClock } from '../../domain/object-clock';
import { offrampTransitions, type OfframpFailureReason, type OfframpStatus } from '../../domain/offramp';
import { REFERENCE_RATES_USDC_PER_MAJOR } from '../../domain/payouts/pricing';
import {
  INACTIVE_RETURN_REASON, usdcForCredit, virtualAccountCreditTransitions, type VirtualAccountCreditStatus, type VirtualAccountStatus,
} from '../../domain/virtual-accounts';
import {
  CONVERSION_CONFIRM_MS, conversionTransitions, depositIntentTransitions, type ConversionFailureReason, type ConversionStatus,
  type DepositIntentStatus,
} from '../../domain/wallet-deposits';
import { sendIntentTransitions, sourceMismatch, SOURCE_TX_SEARCH_SECONDS, type SendFailureReason, type SendIntentStatus } from '../../domain/wallet-sends';
import {
  WalletConversion, WalletDepositIntent, WalletExternalAccount, WalletOfframpIntent, WalletSendIntent, WalletVirtualAccount,
  WalletVirtualAccountCredit,
} from '../../entities';
import { db, transaction } from '../../lib/db';
import { emitEvent } from '../../lib/outbox';
import { decrypt } from '../../lib/secrets';
import { bankCollection } from '../../providers/bank-collection';
import { payInBridgeAdapter } from '../../providers/bridge';
import { chainAdapter, deriveAddress } from '../../providers/chain';
import { beneficiaryAccountOf, fiatRails } from '../../providers/fiat-rails';
import { faultValue } from '../../providers/sandbox-faults';
import { offrampIntentView } from '../../views/wallet-offramp';
import { sendIntentView } from '../../views/wallet-sends';
import { virtualAccountCreditView, virtualAccountView } from '../../views/wallet-virtual-accounts';
import { CONVERSION_ROUTER, emitConversionEvent, emitDepositIntentEvent } from './records';

/** How often an open intent re-reads the chain or the bridge when nothing wakes it (ms). */
export const SEND_POLL_MS = 15_000;

type SendChange = { to: SendIntentStatus; set?: Partial<WalletSendIntent> };

/**
 * Advances intent `intentId` as far as the facts allow at workflow time `workflowNowMs` (deadlines
 * judged by domain/object-clock.ts from the workflow's `originMs`; wake-ups in workflow time):
 * - `created` with no hash: `expired` once `expires_at` passed, else wake at `expires_at`;
 * - `created` with a hash: not on chain -> `failed` `source_tx_not_found` after
 *   SOURCE_TX_SEARCH_SECONDS from the recording, else poll; on chain but not the built transfer
 *   -> `failed` with the mismatch; matching -> `source_submitted`, then `settled` (direct) or
 *   `bridging_started` (bridge);
 * - `bridging_started`: the bridge delivered -> `settled`; failed -> the undelivered funds return
 *   to the wallet (idempotent) and `failed` `bridge_failed`; else poll.
 * Throws ApplicationFailure `NotFound` (non-retryable) when the intent is gone.
 */
export async function advanceSendIntent(intentId: string, workflowNowMs: number, originMs?: number): Promise<SendProgress> {
  const r = await transaction((m) => m.findOneBy(WalletSendIntent, { id: intentId }));
  if (!r) throw ApplicationFailure.nonRetryable(`send intent ${intentId} not found`, 'NotFound');
  const clock = objectClock({ workflowNowMs, originMs, createdAtMs: r.created_at.getTime(), wallNowMs: Date.now() });
  const nowMs = clock.now;
  const poll = workflowNowMs + SEND_POLL_MS;
  const changes: SendChange[] = [];
  let waitingFor = '';
  let wakeAtMs: number | null = null;

  if (r.status === 'created' && !r.source_tx_hash) {
    if (nowMs >= r.expires_at.getTime()) changes.push({ to: 'expired' });
    else { wakeAtMs = clock.toWorkflowMs(r.expires_at.getTime()); waitingFor = `the holder to sign and record the transaction (until ${r.expires_at.toISOString()})`; }
  } else if (r.status === 'created' || r.status === 'source_submitted') {
    const tx = await chainAdapter().locate(r.source_tx_hash!);
    const deadline = r.source_tx_recorded_at!.getTime() + SOURCE_TX_SEARCH_SECONDS * 1000;
    if (!tx) {
      if (nowMs >= deadline) changes.push(fail('source_tx_not_found'));
      else { wakeAtMs = Math.min(poll, clock.toWorkflowMs(deadline)); waitingFor = `transaction ${r.source_tx_hash} on chain (until ${new Date(deadline).toISOString()})`; }
    } else {
      const mismatch = sourceMismatch(
        { chain: r.chain, asset: r.asset, from: r.from_address, to: r.transfer_to, amount: BigInt(r.amount_minor) },
        { chain: tx.chain, asset: tx.asset, from: tx.from_address, to: tx.to_address, amount: tx.amount });
      if (mismatch) changes.push(fail(mismatch));
      else {
        changes.push({ to: 'source_submitted', set: { submitted_at: new Date() } });
        if (r.route_kind === 'direct') changes.push({ to: 'settled', set: { settled_at: new Date(), delivery_tx_hash: tx.tx_hash } });
        else changes.push({ to: 'bridging_started' });
      }
    }
  }
  const bridging = r.status === 'bridging_started' || changes.some((c) => c.to === 'bridging_started');
  if (bridging && r.bridge_transfer_id) {
    const bridge = payInBridgeAdapter();
    const p = await bridge.advance(r.bridge_transfer_id);
    if (p.state === 'delivered') {
      changes.push({ to: 'settled', set: { settled_at: new Date(), ...(p.delivery ? { delivery_tx_hash: p.delivery.tx_hash, amount_out_minor: p.delivery.amount.toString() } : {}) } });
    } else if (p.state === 'failed') {
      await bridge.returnUndelivered(r.bridge_transfer_id, r.from_address);
      changes.push(fail('bridge_failed'));
    } else { wakeAtMs = poll; waitingFor = `the bridge to deliver on ${r.destination_chain} (transfer ${r.bridge_transfer_id})`; }
  }

  const status = changes.length ? await applySendChanges(intentId, changes) : r.status;
  if (sendIntentTransitions.terminal.includes(status)) return { status, wakeAtMs: null, waitingFor: `nothing (${status})` };
  return { status, wakeAtMs: wakeAtMs ?? poll, waitingFor: waitingFor || `the next look at the ${status} intent` };
}

function fail(reason: SendFailureReason): SendChange {
  return { to: 'failed', set: { failure_reason: reason, failed_at: new Date() } };
}

/** Applies `changes` in order under a row lock, each through the table with its `send_intent.<status>` event; returns the final status. */
async function applySendChanges(id: string, changes: SendChange[]): Promise<SendIntentStatus> {
  return transaction(async (m) => {
    const r = await m.findOne(WalletSendIntent, { where: { id }, lock: { mode: 'pessimistic_write' } });
    if (!r) throw ApplicationFailure.nonRetryable(`send intent ${id} not found`, 'NotFound');
    for (const c of changes) {
      if (!sendIntentTransitions.can(r.status, c.to)) continue; // a concurrent run already moved it
      sendIntentTransitions.move(r, c.to);
      Object.assign(r, c.set ?? {});
      await m.save(r);
      await emitEvent(m, { accountId: r.account_id, livemode: r.livemode, type: `send_intent.${c.to}`, objectType: 'send_intent', objectId: r.id, object: sendIntentView(r) });
    }
    return r.status;
  });
}

/** The activities of contracts/send-intent.ts. */
export const sendIntentWorkflowActivities = { advanceSendIntent } satisfies SendIntentActivities;

/** How often an intent re-reads the chain (awaiting funds) or the rail (payment submitted) when nothing wakes it (ms). */
export const OFFRAMP_POLL_MS = 15_000;

type OfframpChange = { to: OfframpStatus; set?: Partial<WalletOfframpIntent> };

async function loadOfframp(id: string): Promise<WalletOfframpIntent> {
  const r = await db().getRepository(WalletOfframpIntent).findOneBy({ id });
  if (!r) throw ApplicationFailure.nonRetryable(`off-ramp intent ${id} not found`, 'NotFound');
  return r;
}

/** Applies `changes` under a row lock, each through the table with its `offramp_intent.<status>` event; returns the intent. */
async function applyOfframpChanges(id: string, changes: OfframpChange[]): Promise<WalletOfframpIntent> {
  return transaction(async (m) => {
    const r = await m.findOne(WalletOfframpIntent, { where: { id }, lock: { mode: 'pessimistic_write' } });
    if (!r) throw ApplicationFailure.nonRetryable(`off-ramp intent ${id} not found`, 'NotFound');
    for (const c of changes) {
      if (!offrampTransitions.can(r.status, c.to)) continue; // a concurrent run (or a cancel) already moved it
      offrampTransitions.move(r, c.to);
      Object.assign(r, c.set ?? {});
      await m.save(r);
      // `failed` is a terminal state without a catalogued event of its own (spec 6 lists none).
      if (c.to !== 'failed') await emitEvent(m, { accountId: r.account_id, livemode: r.livemode, type: `offramp_intent.${c.to}`, objectType: 'offramp_intent', objectId: r.id, object: offrampIntentView(r) });
    }
    return r;
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
      r = await applyOfframpChanges(id, [{ to: 'funds_received', set: { received_minor: received.toString(), source_tx_hash: first?.tx_hash ?? null, funds_received_at: new Date() } }]);
    } else if (nowMs >= r.funding_deadline.getTime()) {
      if (received === 0n) r = await applyOfframpChanges(id, [{ to: 'failed', set: { failure_reason: 'funding_expired', completed_at: new Date() } }]);
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
      r = await applyOfframpChanges(id, [{ to: 'payment_processed', set: { settled_amount_minor: (p.recipient_received ?? p.paid ?? p.amount).toString(), completed_at: new Date() } }]);
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
  const r = await loadOfframp(id);
  if (r.status !== 'funds_received') return;
  const bank = await externalAccountDetails(r.external_account_id);
  const p = await fiatRails().submit({
    idempotencyKey: `offramp:${r.id}`, clientReference: r.id, rail: r.destination_payment_rail, currency: r.destination_currency,
    amount: BigInt(r.destination_amount_minor), beneficiaryAccount: beneficiaryAccountOf(bank), accountId: r.account_id,
  });
  await applyOfframpChanges(id, [{ to: 'payment_submitted', set: { rail_payment_id: p.id, payment_submitted_at: new Date() } }]);
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
    await applyOfframpChanges(id, [{ to: 'refund_failed', set: { completed_at: new Date() } }]);
    return;
  }
  const tx = held > 0n ? await chainAdapter().send(r.transit_address, r.wallet_address, r.asset, held, `offramp-refund:${r.id}`) : null;
  await applyOfframpChanges(id, [{ to: 'refunded', set: { refund_tx_hash: tx, completed_at: new Date() } }]);
}

/** The activities of contracts/offramp-intent.ts. */
export const offrampWorkflowActivities = { advanceOfframp, submitOfframpPayment, refundOfframp } satisfies OfframpActivities;

/**
 * Moves intent `id` to `to` with `patch` under a row lock, with its event, in one transaction.
 * Already in `to`: no change. Illegal: `IllegalTransition` (409; non-retryable in a workflow).
 */
async function moveDepositIntent(id: string, to: DepositIntentStatus, patch: Partial<WalletDepositIntent> = {}): Promise<WalletDepositIntent> {
  return transaction(async (m) => {
    const d = await m.findOne(WalletDepositIntent, { where: { id }, lock: { mode: 'pessimistic_write' } });
    if (!d) throw Object.assign(new Error(`deposit intent ${id} not found`), { name: 'NotFound' });
    if (d.status === to) return d;
    depositIntentTransitions.move(d, to);
    Object.assign(d, patch);
    const saved = await m.save(d);
    await emitDepositIntentEvent(m, saved);
    return saved;
  });
}

const depositIntentState = (d: WalletDepositIntent, before: string): DepositIntentState => ({
  status: d.status, sourceChain: d.source_chain, expiresAt: d.expires_at.toISOString(), createdAt: d.created_at.toISOString(),
  terminal: depositIntentTransitions.terminal.includes(d.status as DepositIntentStatus), changed: d.status !== before,
});

async function loadDepositIntent(id: string): Promise<WalletDepositIntent> {
  const d = await db().getRepository(WalletDepositIntent).findOneBy({ id });
  if (!d) throw Object.assign(new Error(`deposit intent ${id} not found`), { name: 'NotFound' });
  return d;
}

/**
 * Workflow step: `awaiting_funds` -> `source_detected` when USDC reached the deposit address on
 * the source chain; then advances the bridge: held (`bridging`), delivered to the wallet
 * (`bridging` then `settled`, amount delivered and delivery hash), or failed: the undelivered
 * funds go back to the refund address (`recovering` then `failed`, `bridge_failed`), or
 * `manual_recovery_required` when there is no address to return them to; a failure with nothing
 * held is `failed`. Idempotent: a repeated step changes nothing twice.
 */
export async function advanceDepositIntent(id: string): Promise<DepositIntentState> {
  let d = await loadDepositIntent(id);
  const before = d.status;
  if (depositIntentTransitions.terminal.includes(d.status as DepositIntentStatus)) return depositIntentState(d, before);
  if (d.status === 'awaiting_funds') {
    const seen = await chainAdapter().transfersTo(d.source_chain, d.deposit_address, d.source_asset);
    if (!seen.length) return depositIntentState(d, before);
    const received = seen.reduce((s, t) => s + t.amount, 0n);
    d = await moveDepositIntent(id, 'source_detected', { received_minor: received.toString(), source_tx_hash: seen[0].tx_hash, source_from_address: seen[0].from_address });
    return depositIntentState(d, before);
  }
  const bridge = payInBridgeAdapter();
  if (d.status === 'recovering') return depositIntentState(await recoverDepositIntent(d), before);
  const p = await bridge.advance(d.bridge_transfer_id);
  if (p.state === 'in_flight' || p.state === 'delivered') {
    if (d.status === 'source_detected') d = await moveDepositIntent(id, 'bridging', { received_minor: p.received.toString() });
    if (p.state === 'delivered') {
      d = await moveDepositIntent(id, 'settled', {
        received_minor: p.received.toString(), delivered_minor: p.delivered.toString(), delivery_tx_hash: p.delivery?.tx_hash ?? d.delivery_tx_hash,
      });
    }
  } else if (p.state === 'failed') {
    if (p.undelivered > 0n) {
      const to = d.refund_address ?? d.source_from_address;
      d = to
        ? await recoverDepositIntent(await moveDepositIntent(id, 'recovering', { received_minor: p.received.toString(), failure_reason: 'bridge_failed' }))
        : await moveDepositIntent(id, 'manual_recovery_required', { received_minor: p.received.toString(), failure_reason: 'no_refund_address' });
    } else {
      d = await moveDepositIntent(id, 'failed', { failure_reason: 'bridge_failed' });
    }
  }
  return depositIntentState(d, before);
}

/** Returns a failed bridge's undelivered funds to the refund address (idempotent by the received total), then `failed`. */
async function recoverDepositIntent(d: WalletDepositIntent): Promise<WalletDepositIntent> {
  const to = d.refund_address ?? d.source_from_address;
  if (!to) return moveDepositIntent(d.id, 'manual_recovery_required', { failure_reason: 'no_refund_address' });
  const r = await payInBridgeAdapter().returnUndelivered(d.bridge_transfer_id, to);
  return moveDepositIntent(d.id, 'failed', { recovery_tx_hash: r?.tx_hash ?? d.recovery_tx_hash, failure_reason: d.failure_reason ?? 'bridge_failed' });
}

/**
 * Workflow step at `expires_at` (workflow time): a last look at the source chain (funds seen:
 * the intent goes on as `source_detected`), else `awaiting_funds` -> `expired`.
 */
export async function expireDepositIntent(id: string): Promise<DepositIntentState> {
  const d = await loadDepositIntent(id);
  if (d.status !== 'awaiting_funds') return depositIntentState(d, d.status);
  const s = await advanceDepositIntent(id);
  if (s.changed) return s;
  return depositIntentState(await moveDepositIntent(id, 'expired', { failure_reason: null }), 'awaiting_funds');
}

/** The activities of contracts/deposit-intent.ts (registered by activities/index.ts). */
export const depositIntentWorkflowActivities = { advanceDepositIntent, expireDepositIntent } satisfies DepositIntentActivities;

async function moveConversion(id: string, from: ConversionStatus, to: ConversionStatus, patch: Partial<WalletConversion>): Promise<WalletConversion> {
  return transaction(async (m) => {
    const c = await m.findOne(WalletConversion, { where: { id }, lock: { mode: 'pessimistic_write' } });
    if (!c) throw Object.assign(new Error(`conversion ${id} not found`), { name: 'NotFound' });
    if (c.status === to || c.status !== from) return c;
    conversionTransitions.move(c, to);
    Object.assign(c, patch);
    const saved = await m.save(c);
    await emitConversionEvent(m, saved);
    return saved;
  });
}

const conversionState = (c: WalletConversion): ConversionState => ({
  status: c.status, terminal: conversionTransitions.terminal.includes(c.status as ConversionStatus), signableUntil: c.signable_until.toISOString(),
  confirmBy: c.submitted_at ? new Date(c.submitted_at.getTime() + CONVERSION_CONFIRM_MS).toISOString() : null,
  createdAt: c.created_at.toISOString(),
});

async function loadConversion(id: string): Promise<WalletConversion> {
  const c = await db().getRepository(WalletConversion).findOneBy({ id });
  if (!c) throw Object.assign(new Error(`conversion ${id} not found`), { name: 'NotFound' });
  return c;
}

/**
 * Workflow step: a `submitted` conversion whose transaction is on the chain is checked against
 * what was built (chain, token, amount in, sender = the wallet, recipient = the router): a match
 * settles (the router sends `amount_out` of `to_asset` to the wallet, idempotent by the
 * conversion id), a mismatch fails (`source_tx_mismatch`). Not on chain yet: unchanged.
 */
export async function checkConversion(id: string): Promise<ConversionState> {
  const c = await loadConversion(id);
  if (c.status !== 'submitted' || !c.source_tx_hash) return conversionState(c);
  const chain = chainAdapter();
  const tx = await chain.transaction(c.source_tx_hash);
  if (!tx) return conversionState(c);
  const lower = (s: string | null) => (s ?? '').toLowerCase();
  const matches = tx.chain === c.chain && tx.asset === c.from_asset && tx.amount === BigInt(c.amount_in_minor)
    && lower(tx.from_address) === lower(c.wallet_address) && lower(tx.to_address) === lower(CONVERSION_ROUTER);
  if (!matches) return conversionState(await moveConversion(id, 'submitted', 'failed', { failure_reason: 'source_tx_mismatch' satisfies ConversionFailureReason }));
  const settlement = await chain.send(CONVERSION_ROUTER, c.wallet_address, c.to_asset, BigInt(c.amount_out_minor), `conversion:${id}`);
  return conversionState(await moveConversion(id, 'submitted', 'settled', { settlement_tx_hash: settlement }));
}

/**
 * Workflow step at a deadline (workflow time): a `built` conversion never submitted fails
 * `expired`; a `submitted` one gets a last look at the chain, then fails `source_tx_not_found`.
 */
export async function expireConversion(id: string): Promise<ConversionState> {
  const c = await loadConversion(id);
  if (c.status === 'built') return conversionState(await moveConversion(id, 'built', 'failed', { failure_reason: 'expired' satisfies ConversionFailureReason }));
  const s = await checkConversion(id);
  if (s.status !== 'submitted') return s;
  return conversionState(await moveConversion(id, 'submitted', 'failed', { failure_reason: 'source_tx_not_found' satisfies ConversionFailureReason }));
}

/** The activities of contracts/conversion.ts (registered by activities/index.ts). */
export const conversionWorkflowActivities = { checkConversion, expireConversion } satisfies ConversionActivities;

/** The service address virtual-account USDC is sent from (sandbox: the provider's settlement treasury). */
export const VIRTUAL_ACCOUNT_TREASURY = deriveAddress('virtual-accounts:treasury');

/**
 * The workflow's step: settles every `received` credit of virtual account `id`: returned to its
 * sender when the account is inactive (provider return `R16 Account frozen`) or already returned
 * by the sending bank; else converted at the reference rate (rounded down) and sent to the wallet
 * on chain (idempotency key `va-credit:<credit id>`), then `converted` with
 * `virtual_account.deposit_received`. Returns the account's status. Throws ApplicationFailure
 * `NotFound` when the account is gone.
 */
export async function settleVirtualAccountCredits(id: string): Promise<{ status: VirtualAccountStatus; settled: number }> {
  const va = await db().getRepository(WalletVirtualAccount).findOneBy({ id });
  if (!va) throw ApplicationFailure.nonRetryable(`virtual account ${id} not found`, 'NotFound');
  const pending = await db().getRepository(WalletVirtualAccountCredit).find({ where: { virtual_account_id: id, status: 'received' }, order: { created_at: 'ASC', id: 'ASC' } });
  const chain = chainAdapter();
  for (const c of pending) {
    const provider = await bankCollection().get(c.provider_credit_id);
    let to: VirtualAccountCreditStatus;
    let set: Partial<WalletVirtualAccountCredit>;
    if (provider?.state === 'returned') {
      to = 'returned';
      set = { return_reason: provider.return_reason };
    } else if (va.status !== 'active' || !va.wallet_address) {
      await bankCollection().returnCredit(c.provider_credit_id, INACTIVE_RETURN_REASON);
      to = 'returned';
      set = { return_reason: INACTIVE_RETURN_REASON };
    } else {
      const rate = REFERENCE_RATES_USDC_PER_MAJOR[c.currency];
      const usdc = usdcForCredit(BigInt(c.amount_minor), c.decimals, rate);
      const tx = await chain.send(VIRTUAL_ACCOUNT_TREASURY, va.wallet_address, chain.stablecoin, usdc, `va-credit:${c.id}`);
      to = 'converted';
      set = { usdc_minor: usdc.toString(), rate_usdc_per_major: rate.toString(), tx_hash: tx, settled_at: new Date() };
    }
    await transaction(async (m) => {
      const r = await m.findOne(WalletVirtualAccountCredit, { where: { id: c.id }, lock: { mode: 'pessimistic_write' } });
      if (!r || !virtualAccountCreditTransitions.can(r.status, to)) return; // already settled by a concurrent run
      virtualAccountCreditTransitions.move(r, to);
      Object.assign(r, set);
      const saved = await m.save(r);
      if (saved.status === 'converted') {
        await emitEvent(m, {
          accountId: va.account_id, livemode: va.livemode, type: 'virtual_account.deposit_received', objectType: 'virtual_account', objectId: va.id,
          object: { ...virtualAccountView(va), deposit: virtualAccountCreditView(saved) },
        });
      }
    });
  }
  return { status: va.status, settled: pending.length };
}

/** The activities of contracts/virtual-account.ts. */
export const virtualAccountWorkflowActivities = { settleVirtualAccountCredits } satisfies VirtualAccountActivities;
