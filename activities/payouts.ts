/**
 * Payouts (spec 2.6, 3 "Payout", 4.3, 6): pay an external invoice in fiat, funded with USDC.
 *
 * - API operations (`createPayout`, `setBeneficiary`, `requestFunding`, `cancelPayout`,
 *   `markPayoutSent`, `replacePayout`): each one DB transaction with its outbox events, plus the
 *   live provider re-reads the spec asks for at the money boundary and at cancel.
 * - The chain watcher hook (`recordPayoutTransfer`) records USDC arriving at a funding address
 *   and signals the payout's workflow.
 * - Payout workflow activities (`loadPayoutState`, `ensureProviderTransfer`, `applyPayoutDeposit`,
 *   `expirePayout`, `submitFiatPayment`, `syncRailPayment`, `refundHeldFunds`,
 *   `setPayoutNeedsAttention`, `notifyPayoutRecipient`): each one provider call (idempotent by a
 *   key derived from the attempt id, so a retried activity never duplicates a provider transfer)
 *   and/or one transaction.
 * Amounts: fiat in minor units of the corridor currency; USDC in 6-decimal minor units.
 */
import { ApplicationFailure, type SignalDefinition } from '@temporalio/common';
import type { EntityManager } from 'typeorm';
import { maskedAccountEnding, normalizePayoutBeneficiary, type PayoutBeneficiaryInput, type StoredBankDetails } from '../domain/bank-details';
import { capabilityUnavailable, conflict, DomainError, invalidRequest, notFound } from '../domain/errors';
import { toMinorPositive, type Money } from '../domain/money';
import {
  CAPABILITY_VERSION, checkInvoiceAmount, FUNDING_WINDOW_SECONDS, WALLET_SEND_SIGNABLE_SECONDS, corridorById, corridorVerdict, DEFAULT_SOURCE_CHAIN, derivePayerType, fiatPayable, fundingSurplus, heldForReturn,
  fundingQuote, isPayoutTerminal, normalizeRefundAddress, PAYOUT_FEE_BPS, PAYOUT_PRE_FUNDS, PAYOUT_SOURCE_ASSET, settlementVerdict,
  walletSendCancelBlock, walletSendEstimate, type Corridor, type CorridorGate,
} from '../domain/payouts';
import { Payout, PayoutAttempt, PayoutDeposit, WalletSend, Wallet } from '../entities';
import { db, transaction } from '../lib/db';
import { newId } from '../lib/ids';
import { logger } from '../lib/logger';
import { decrypt, encrypt } from '../lib/secrets';
import { bridgeAdapter, BridgeMoneyMovingError } from '../providers/bridge';
import { chainAdapter, type ObservedTransfer } from '../providers/chain';
import { emailProvider } from '../providers/email';
import { fiatRails } from '../providers/fiat-rails';
import { closeUnsignedSends, WalletSendCloseError } from '../providers/wallet-sends';
import { signalWithStart, startIfAbsent, temporalClient } from '../temporal/client';
import { payoutCancelledSignal, payoutDepositSignal, payoutProviderUpdateSignal, payoutWorkflow } from '../workflows/payout';
import { payoutEventView } from '../views/payout';
import { emitEvent, type RequestRef } from '../lib/outbox';

async function emitPayoutEvents(m: EntityManager, p: Payout, types: string[], request: RequestRef | null, related: string[] = []): Promise<void> {
  for (const type of types) {
    await emitEvent(m, {
      accountId: p.account_id, livemode: p.livemode, type, objectType: 'payout', objectId: p.id,
      object: payoutEventView(p), relatedIds: related, request,
    });
  }
}

async function lockPayout(m: EntityManager, accountId: string | null, livemode: boolean | null, id: string): Promise<Payout> {
  const where: Record<string, unknown> = { id };
  if (accountId !== null) where.account_id = accountId;
  if (livemode !== null) where.livemode = livemode;
  const p = await m.findOne(Payout, { where, lock: { mode: 'pessimistic_write' } });
  if (!p) throw notFound(`No such payout: ${id}.`, 'id');
  return p;
}

/** Identity frozen into `capability_snapshot` at creation or replacement (spec 2.6). */
async function senderIdentity(m: EntityManager, accountId: string): Promise<{ customerType: string; display: string; legal: string | null }> {
  const rows: Array<{ customer_type: string; display_name: string }> = await m.query('SELECT customer_type, display_name FROM accounts WHERE id = $1', [accountId]);
  const a = rows[0];
  const name = (a?.display_name ?? '').trim();
  return {
    customerType: a?.customer_type ?? 'business',
    display: name || 'unknown',
    legal: a && a.customer_type === 'business' && name ? name : null,
  };
}

function requireExecutable(c: Corridor, gate: CorridorGate): void {
  const v = corridorVerdict(c, gate);
  if (!v.executable) {
    throw capabilityUnavailable('capability_unavailable', `Corridor ${c.id} is not executable for this account (${v.blocked_reason}). Do not retry.`,
      { corridor_id: c.id, blocked_reason: v.blocked_reason });
  }
}

function requireSourceChain(c: Corridor, chain: string): void {
  if (!c.source_chains.includes(chain)) {
    throw new DomainError('capability_unavailable', 'capability_unavailable', `Corridor ${c.id} cannot be funded from ${chain}; source chains: ${c.source_chains.join(', ') || 'none'}.`,
      { param: 'source_chain', details: { corridor_id: c.id, source_chains: [...c.source_chains] } });
  }
}

// ---------------------------------------------------------------------------------------
// API operations

export interface CreatePayoutInput {
  invoice_amount: Money;
  corridor_id: string;
  source_chain?: string;
  payer_type?: string;
  note?: string | null;
  recipient_email?: string | null;
  notify_recipient?: boolean;
}

/**
 * `POST /payouts` (spec 4.3, 3): a `draft` payout. Re-checks the corridor is executable (409
 * `capability_unavailable`), the source chain is one of the corridor's (409), the amount is in the
 * corridor currency and limits (400), `recipient_email` when `notify_recipient` (400
 * `parameter_missing`), and `payer_type` against the derived one (422 `payer_type_mismatch`).
 * Freezes `sender_display` / `legal_entity_name`; emits `payout.created`.
 */
export async function createPayout(a: { accountId: string; livemode: boolean; body: CreatePayoutInput; gate: CorridorGate; request: RequestRef; replaces?: Payout }): Promise<Payout> {
  const b = a.body;
  const c = corridorById(b.corridor_id);
  if (!c) throw invalidRequest('parameter_invalid', `Unknown corridor_id ${b.corridor_id}.`, 'corridor_id');
  requireExecutable(c, a.gate);
  const minor = toMinorPositive(b.invoice_amount, 'invoice_amount');
  checkInvoiceAmount(c, b.invoice_amount, minor);
  if (b.source_chain !== undefined) requireSourceChain(c, b.source_chain);
  if (b.notify_recipient && !b.recipient_email) throw invalidRequest('parameter_missing', 'recipient_email is required when notify_recipient is true.', 'recipient_email');
  return transaction(async (m) => {
    const who = await senderIdentity(m, a.accountId);
    const payerType = derivePayerType(who.customerType, b.payer_type);
    const p = m.create(Payout, {
      id: newId('po_'), account_id: a.accountId, livemode: a.livemode, status: 'draft', invoice_minor: minor.toString(),
      currency: c.currency, decimals: c.decimals, corridor_id: c.id, fiat_rail: c.fiat_rail, source_chain: b.source_chain ?? null,
      source_asset: PAYOUT_SOURCE_ASSET, payer_type: payerType, fee_bps: PAYOUT_FEE_BPS, notify_recipient: b.notify_recipient ?? false,
      recipient_email: b.recipient_email ?? null, note: b.note ?? null, capability_version: CAPABILITY_VERSION,
      snapshot_frozen_at: new Date(), sender_display: who.display, legal_entity_name: who.legal, needs_attention: false,
      settled_minor: null, provider_paid_minor: null, shortfall_minor: null, failure_reason: null, return_reason: null, held_minor: null,
      beneficiary_ciphertext: a.replaces?.beneficiary_ciphertext ?? null, beneficiary_masked: a.replaces?.beneficiary_masked ?? null,
      funding_source: null, refund_address: null, current_attempt_id: null, replaces_id: a.replaces?.id ?? null, replaced_by_id: null,
      marked_sent_at: null, funded_at: null, paid_at: null, settled_at: null,
    });
    await m.save(p);
    if (a.replaces) {
      const old = await lockPayout(m, a.accountId, a.livemode, a.replaces.id);
      if (old.replaced_by_id) throw conflict('payout_already_replaced', `Payout ${old.id} was already replaced by ${old.replaced_by_id}.`, { replaced_by: old.replaced_by_id });
      old.replaced_by_id = p.id;
      await m.save(old);
      await emitPayoutEvents(m, p, ['payout.created_as_replacement'], a.request, [old.id]);
      await emitPayoutEvents(m, old, ['payout.replaced'], a.request, [p.id]);
    } else {
      await emitPayoutEvents(m, p, ['payout.created'], a.request);
    }
    return p;
  });
}

/**
 * `POST /payouts/{id}/replace` (spec 4.3): a new draft replacing a payout that ended without paying
 * (failed, returned, expired, cancelled), with the same beneficiary and a fresh snapshot. Body
 * fields override the old payout's. 409 `payout_not_replaceable`, `payout_already_replaced`.
 */
export async function replacePayout(a: { accountId: string; livemode: boolean; id: string; body: Partial<CreatePayoutInput>; gate: CorridorGate; request: RequestRef }): Promise<Payout> {
  const old = await db().getRepository(Payout).findOneBy({ id: a.id, account_id: a.accountId, livemode: a.livemode });
  if (!old) throw notFound(`No such payout: ${a.id}.`, 'id');
  if (old.replaced_by_id) throw conflict('payout_already_replaced', `Payout ${old.id} was already replaced by ${old.replaced_by_id}.`, { replaced_by: old.replaced_by_id });
  if (!['failed', 'returned', 'expired', 'cancelled'].includes(old.status)) {
    throw conflict('payout_not_replaceable', `A ${old.status} payout cannot be replaced; only failed, returned, expired or cancelled ones.`, { status: old.status });
  }
  const body: CreatePayoutInput = {
    invoice_amount: a.body.invoice_amount ?? { amount: old.invoice_minor, currency: old.currency, decimals: old.decimals },
    corridor_id: old.corridor_id,
    source_chain: a.body.source_chain ?? old.source_chain ?? undefined,
    note: a.body.note !== undefined ? a.body.note : old.note,
    recipient_email: a.body.recipient_email !== undefined ? a.body.recipient_email : old.recipient_email,
    notify_recipient: a.body.notify_recipient ?? old.notify_recipient,
  };
  return createPayout({ accountId: a.accountId, livemode: a.livemode, body, gate: a.gate, request: a.request, replaces: old });
}

/**
 * `POST /payouts/{id}/beneficiary` (spec 2.6): raw bank details for the payout's rail (`rail`
 * optional, the payout's), accepted once while the payout is a draft, checked by
 * domain/bank-details.ts (the address book's rules), stored encrypted (AES-GCM) with the masked
 * projection. 409 `beneficiary_already_set`, 409 `payout_not_editable`; 400 `parameter_missing` /
 * `parameter_invalid` naming the field. Emits `payout.beneficiary_added`.
 */
export async function setBeneficiary(a: { accountId: string; livemode: boolean; id: string; body: PayoutBeneficiaryInput; request: RequestRef }): Promise<Payout> {
  return transaction(async (m) => {
    const p = await lockPayout(m, a.accountId, a.livemode, a.id);
    if (p.beneficiary_ciphertext) throw conflict('beneficiary_already_set', 'Bank details cross once; this payout already has a beneficiary. Replace the payout to change them.');
    if (p.status !== 'draft') throw conflict('payout_not_editable', `A ${p.status} payout takes no beneficiary.`, { status: p.status });
    const { details, masked } = normalizePayoutBeneficiary(p.fiat_rail, a.body);
    p.beneficiary_ciphertext = encrypt(JSON.stringify(details));
    p.beneficiary_masked = masked;
    await m.save(p);
    await emitPayoutEvents(m, p, ['payout.beneficiary_added'], a.request);
    return p;
  });
}

export interface FundRequest { funding_source?: 'external_wallet' | 'service_wallet'; source_chain?: string; refund_address?: string }

async function activeWallet(m: EntityManager, accountId: string): Promise<Wallet | null> {
  return m.findOne(Wallet, { where: { account_id: accountId, network: chainAdapter().network, status: 'active' } });
}

/**
 * `POST /payouts/{id}/funding_instructions` (spec 2.6 fund request, 3, 4.3): the money boundary.
 * On a draft: re-checks eligibility (409 `capability_unavailable`), needs a beneficiary (409
 * `beneficiary_required`), a source chain for an external wallet (400 `payout_source_chain_missing`),
 * validates `refund_address` (never with `service_wallet`), checks a service wallet covers the
 * send (409 `wallet_not_found`, `wallet_balance_insufficient`), and records the funding attempt
 * (`creating`); the payout workflow then creates the provider transfer. After a transfer exists:
 * `source_chain` is refused (409 `payout_source_chain_locked`), `refund_address` may change only
 * while awaiting funds (409 `refund_address_locked`), and may be set for the first time while
 * funds are held for return. Returns whether the workflow must be signalled.
 */
export async function requestFunding(a: { accountId: string; livemode: boolean; id: string; body: FundRequest; gate: CorridorGate; request: RequestRef }): Promise<{ payout: Payout; attemptId: string; signal: boolean }> {
  const b = a.body;
  const refund = b.refund_address !== undefined ? normalizeRefundAddress(b.refund_address) : undefined;
  return transaction(async (m) => {
    const p = await lockPayout(m, a.accountId, a.livemode, a.id);
    const c = corridorById(p.corridor_id);
    if (!c) throw conflict('payout_not_fundable', `Payout ${p.id} has an unknown corridor.`);
    const attempt = p.current_attempt_id ? await m.findOne(PayoutAttempt, { where: { id: p.current_attempt_id }, lock: { mode: 'pessimistic_write' } }) : null;
    // Once funding is confirmed the provider transfer exists or is being created on the attempt's
    // chain (the workflow may be calling the bridge right now): either way the chain is locked.
    if (b.source_chain !== undefined && attempt !== null && b.source_chain !== attempt.source_chain) {
      const what = attempt.provider_transfer_id !== null ? 'already exists' : 'is being created';
      throw new DomainError('conflict', 'payout_source_chain_locked', `The provider transfer ${what} on ${attempt.source_chain}; the source chain can no longer change.`,
        { param: 'source_chain', details: { source_chain: attempt.source_chain } });
    }
    if (attempt && b.funding_source !== undefined && b.funding_source !== attempt.funding_source) {
      throw new DomainError('conflict', 'funding_source_locked', `This payout is already funded from ${attempt.funding_source}.`,
        { param: 'funding_source', details: { funding_source: attempt.funding_source } });
    }
    const fundingSource = attempt?.funding_source ?? b.funding_source ?? 'external_wallet';
    if (fundingSource === 'service_wallet' && refund !== undefined) {
      throw invalidRequest('parameter_invalid', 'refund_address is not accepted with funding_source service_wallet; funds return to the wallet.', 'refund_address');
    }
    if (attempt) {
      // A funding attempt exists: refund address rules only (spec 2.6).
      if (refund !== undefined && refund !== p.refund_address) {
        const firstForHeld = p.refund_address === null && p.held_minor !== null;
        if (p.status !== 'awaiting_funds' && p.status !== 'draft' && !firstForHeld) {
          throw new DomainError('conflict', 'refund_address_locked', 'refund_address can change only while the payout is awaiting funds.',
            { param: 'refund_address', details: { status: p.status } });
        }
        p.refund_address = refund;
        attempt.refund_address = refund;
        await m.save(attempt);
        await m.save(p);
        return { payout: p, attemptId: attempt.id, signal: firstForHeld };
      }
      return { payout: p, attemptId: attempt.id, signal: attempt.provider_transfer_id === null };
    }
    if (p.status !== 'draft') throw conflict('payout_not_fundable', `A ${p.status} payout cannot be funded.`, { status: p.status });
    requireExecutable(c, a.gate);
    if (!p.beneficiary_ciphertext) throw conflict('beneficiary_required', 'Add the beneficiary (POST /payouts/{id}/beneficiary) before funding.');
    if (b.source_chain !== undefined) requireSourceChain(c, b.source_chain);
    let chain = b.source_chain ?? p.source_chain;
    if (!chain) {
      if (fundingSource === 'external_wallet') {
        throw invalidRequest('payout_source_chain_missing', 'Choose the chain you will send USDC from (source_chain).', 'source_chain');
      }
      chain = DEFAULT_SOURCE_CHAIN;
    }
    requireSourceChain(c, chain);
    const q = fundingQuote(BigInt(p.invoice_minor), p.currency, p.decimals, p.fee_bps);
    if (fundingSource === 'service_wallet') {
      const w = await activeWallet(m, p.account_id);
      if (!w) throw conflict('wallet_not_found', 'This account has no service wallet on this network.');
      const estimate = walletSendEstimate(q.gross, w.chain === chain);
      const balance = await chainAdapter().balanceOf(w.address, PAYOUT_SOURCE_ASSET);
      if (balance < estimate) {
        throw conflict('wallet_balance_insufficient', 'The service wallet does not cover this payout.', {
          shortfall: { amount: (estimate - balance).toString(), currency: PAYOUT_SOURCE_ASSET, decimals: 6 },
        });
      }
    }
    const at = m.create(PayoutAttempt, {
      id: newId('poa_'), payout_id: p.id, account_id: p.account_id, livemode: p.livemode, status: 'creating', funding_source: fundingSource,
      source_chain: chain, source_currency: PAYOUT_SOURCE_ASSET, source_tx_hash: null, refund_address: refund ?? null,
      provider_transfer_id: null, deposit_address: null, deposit_message: null, transfer_reference: `PO-${p.id.slice(3, 15).toUpperCase()}`,
      rail_payment_id: null, amount_minor: q.amount.toString(), buffer_minor: q.buffer.toString(), fee_minor: q.fee.toString(),
      gross_minor: q.gross.toString(), received_minor: '0', surplus_minor: null, returned_minor: '0', expires_at: new Date(Date.now() + FUNDING_WINDOW_SECONDS * 1000),
    });
    await m.save(at);
    p.source_chain = chain;
    p.funding_source = fundingSource;
    if (refund !== undefined) p.refund_address = refund;
    p.current_attempt_id = at.id;
    await m.save(p);
    return { payout: p, attemptId: at.id, signal: true };
  });
}

/** Signals the payout workflow (starting it if needed) with `signal`, a definition from workflows/payout.ts. */
export async function signalPayout<A extends unknown[]>(payoutId: string, accountId: string, signal: SignalDefinition<A>, ...args: A): Promise<void> {
  await signalWithStart(payoutWorkflow, { workflowId: payoutId, args: [{ payoutId }], accountId, signal, signalArgs: args });
}

/** Loads the current attempt of a payout with its prepared wallet send (if any). */
export async function currentAttempt(p: Payout): Promise<{ attempt: PayoutAttempt | null; send: WalletSend | null }> {
  if (!p.current_attempt_id) return { attempt: null, send: null };
  const attempt = await db().getRepository(PayoutAttempt).findOneBy({ id: p.current_attempt_id });
  const send = attempt ? await db().getRepository(WalletSend).findOne({ where: { attempt_id: attempt.id }, order: { created_at: 'DESC' } }) : null;
  return { attempt, send };
}

/**
 * `POST /payouts/{id}/cancel` (spec 3, 4.3): idempotent (a cancelled payout is returned as is).
 * Only pre-funds states (409 `cancel_unavailable`). A prepared wallet send blocks while signable
 * and for 30 minutes after it expires (409 `wallet_funding_pending`, `details.retry_after` seconds);
 * the live provider transfer is re-read and nothing may be moving (409 `cancel_unavailable`);
 * unsigned sends are closed (503 `wallet_funding_cancel_failed` when they cannot be). Emits
 * `payout.cancelled`. Returns the payout and whether its workflow must be told.
 */
export async function cancelPayout(a: { accountId: string; livemode: boolean; id: string; request: RequestRef; nowMs?: number }): Promise<{ payout: Payout; changed: boolean }> {
  const nowMs = a.nowMs ?? Date.now();
  const p0 = await db().getRepository(Payout).findOneBy({ id: a.id, account_id: a.accountId, livemode: a.livemode });
  if (!p0) throw notFound(`No such payout: ${a.id}.`, 'id');
  if (p0.status === 'cancelled') return { payout: p0, changed: false };
  const notCancellable = (why: string) => conflict('cancel_unavailable', why, { status: p0.status });
  if (!(PAYOUT_PRE_FUNDS as readonly string[]).includes(p0.status)) throw notCancellable(`A ${p0.status} payout cannot be cancelled: money is moving or the payout ended.`);
  const sends = await db().getRepository(WalletSend).findBy({ payout_id: p0.id });
  if (sends.some((s) => s.status === 'signed')) throw notCancellable('The wallet send was signed; money is moving.');
  let blockUntil = 0;
  for (const s of sends) {
    const until = walletSendCancelBlock({ status: s.status, signableUntilMs: s.signable_until.getTime() }, nowMs);
    if (until !== null && until > blockUntil) blockUntil = until;
  }
  if (blockUntil > 0) {
    throw conflict('wallet_funding_pending', 'A prepared wallet send can still be signed or land; cancel is possible 30 minutes after it expires.', {
      retry_after: Math.ceil((blockUntil - nowMs) / 1000), retry_at: new Date(blockUntil).toISOString(),
    });
  }
  const { attempt } = await currentAttempt(p0);
  if (attempt?.provider_transfer_id) {
    const live = await bridgeAdapter().getTransfer(attempt.provider_transfer_id);
    if (live.received > 0n || live.state === 'funds_received') throw notCancellable('Funds reached the provider transfer; money is moving.');
  }
  if (sends.some((s) => s.status !== 'closed')) {
    try {
      await closeUnsignedSends(p0.account_id, p0.id);
    } catch (e) {
      if (e instanceof WalletSendCloseError) {
        throw new DomainError('temporarily_unavailable', 'wallet_funding_cancel_failed', 'Unsigned wallet sends could not be closed; the payout was not cancelled. Retry later.',
          { details: { retry_after_seconds: 30 }, status: 503 });
      }
      throw e;
    }
  }
  if (attempt?.provider_transfer_id) {
    try {
      await bridgeAdapter().cancelTransfer(attempt.provider_transfer_id);
    } catch (e) {
      if (e instanceof BridgeMoneyMovingError) throw notCancellable('Funds reached the provider transfer; money is moving.');
      throw e;
    }
  }
  return transaction(async (m) => {
    const p = await lockPayout(m, a.accountId, a.livemode, a.id);
    if (p.status === 'cancelled') return { payout: p, changed: false };
    if (!(PAYOUT_PRE_FUNDS as readonly string[]).includes(p.status)) throw conflict('cancel_unavailable', `A ${p.status} payout cannot be cancelled.`, { status: p.status });
    p.status = 'cancelled';
    await m.save(p);
    if (p.current_attempt_id) await m.query(`UPDATE payout_attempts SET status = 'cancelled', updated_at = now() WHERE id = $1`, [p.current_attempt_id]);
    await emitPayoutEvents(m, p, ['payout.cancelled'], a.request);
    return { payout: p, changed: true };
  });
}

/** `POST /payouts/{id}/mark_sent` (spec 3, 4.3): the merchant's non-authoritative claim; status unchanged; `payout.marked_sent` once. */
export async function markPayoutSent(a: { accountId: string; livemode: boolean; id: string; request: RequestRef }): Promise<Payout> {
  return transaction(async (m) => {
    const p = await lockPayout(m, a.accountId, a.livemode, a.id);
    if (!p.marked_sent_at) {
      p.marked_sent_at = new Date();
      await m.save(p);
      await emitPayoutEvents(m, p, ['payout.marked_sent'], a.request);
    }
    return p;
  });
}

// ---------------------------------------------------------------------------------------
// Chain watcher hook

/**
 * Records a transfer to a payout funding address as a pending payout deposit (idempotent by chain +
 * tx hash) and signals the payout workflow. Returns the deposit id, or null when the address is
 * not a payout funding address.
 */
export async function recordPayoutTransfer(t: ObservedTransfer): Promise<string | null> {
  const rows: Array<{ id: string; payout_id: string; account_id: string }> = await db().query(
    'SELECT id, payout_id, account_id FROM payout_attempts WHERE source_chain = $1 AND lower(deposit_address) = lower($2) LIMIT 1', [t.chain, t.to_address]);
  const at = rows[0];
  if (!at) return null;
  const inserted: Array<{ id: string }> = await db().query(
    `INSERT INTO payout_deposits(id, payout_id, attempt_id, chain, asset, to_address, from_address, tx_hash, amount_minor)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) ON CONFLICT (chain, tx_hash) DO NOTHING RETURNING id`,
    [newId('pod_'), at.payout_id, at.id, t.chain, t.asset, t.to_address, t.from_address, t.tx_hash, t.amount.toString()]);
  const id = inserted[0]?.id ?? (await db().query('SELECT id FROM payout_deposits WHERE chain = $1 AND tx_hash = $2', [t.chain, t.tx_hash]))[0].id;
  await signalPayout(at.payout_id, at.account_id, payoutDepositSignal, { depositId: id });
  return id;
}

/** Simulator / provider callback: the provider changed a transfer or payment of `payoutId`; the workflow re-reads it. */
export async function notifyPayoutProviderUpdate(payoutId: string): Promise<boolean> {
  const rows: Array<{ account_id: string }> = await db().query('SELECT account_id FROM payouts WHERE id = $1', [payoutId]);
  if (!rows[0]) return false;
  await signalPayout(payoutId, rows[0].account_id, payoutProviderUpdateSignal);
  return true;
}

// ---------------------------------------------------------------------------------------
// Payout workflow activities

/** What the payout workflow needs to decide its next step. */
export interface PayoutState {
  status: string;
  attemptId: string | null;
  /** Attempt still needs its provider transfer. */
  needsTransfer: boolean;
  /** Funding window end (ms since epoch) while awaiting funds. */
  expiresAtMs: number | null;
  pendingDepositIds: string[];
  /** USDC held for return, and whether it has somewhere to go. */
  held: boolean;
  canRefund: boolean;
  railPaymentId: string | null;
  terminal: boolean;
  /** Human-readable funding target for the `waiting_for` query. */
  fundingTarget: string | null;
}

async function stateOf(p: Payout): Promise<PayoutState> {
  const at = p.current_attempt_id ? await db().getRepository(PayoutAttempt).findOneBy({ id: p.current_attempt_id }) : null;
  const pending: Array<{ id: string }> = await db().query(`SELECT id FROM payout_deposits WHERE payout_id = $1 AND effect = 'pending' ORDER BY observed_at, id`, [p.id]);
  return {
    status: p.status,
    attemptId: at?.id ?? null,
    needsTransfer: at !== null && at.provider_transfer_id === null && at.status === 'creating',
    expiresAtMs: at ? at.expires_at.getTime() : null,
    pendingDepositIds: pending.map((r) => r.id),
    held: p.held_minor !== null,
    canRefund: p.held_minor !== null && (p.funding_source === 'service_wallet' || p.refund_address !== null),
    railPaymentId: at?.rail_payment_id ?? null,
    terminal: isPayoutTerminal(p.status),
    fundingTarget: at?.deposit_address ? `${at.gross_minor} USDC minor units on ${at.source_chain} to ${at.deposit_address}` : null,
  };
}

async function loadOrFail(payoutId: string): Promise<Payout> {
  const p = await db().getRepository(Payout).findOneBy({ id: payoutId });
  if (!p) throw ApplicationFailure.nonRetryable(`payout ${payoutId} not found`, 'NotFound');
  return p;
}

/** Reads the payout's workflow state. Non-retryable when the payout does not exist. */
export async function loadPayoutState(payoutId: string): Promise<PayoutState> {
  return stateOf(await loadOrFail(payoutId));
}

/**
 * Provider call + transaction: creates the bridge transfer of the current attempt (idempotency key =
 * attempt id, so a retry after a crash returns the same transfer), then records it: attempt
 * `awaiting_funds`, payout `awaiting_funds` (`payout.funded`, `payout.awaiting_funds`), and for
 * service-wallet funding the prepared wallet send. If the payout was cancelled meanwhile the
 * transfer is cancelled at the provider. `nowMs` is the workflow clock: the funding window
 * (`expires_at`) and the wallet send's `signable_until` start when the funding address exists.
 */
export async function ensureProviderTransfer(payoutId: string, nowMs: number = Date.now()): Promise<PayoutState> {
  const p0 = await loadOrFail(payoutId);
  const at0 = p0.current_attempt_id ? await db().getRepository(PayoutAttempt).findOneBy({ id: p0.current_attempt_id }) : null;
  if (!at0 || at0.provider_transfer_id) return stateOf(p0);
  const transfer = await bridgeAdapter().createTransfer({
    idempotencyKey: at0.id, clientReference: p0.id, accountId: p0.account_id, sourceChain: at0.source_chain, sourceAsset: at0.source_currency,
    destinationRail: p0.fiat_rail, destinationCurrency: p0.currency,
  });
  const p = await transaction(async (m) => {
    const pay = await lockPayout(m, null, null, payoutId);
    const at = await m.findOneOrFail(PayoutAttempt, { where: { id: at0.id }, lock: { mode: 'pessimistic_write' } });
    if (at.provider_transfer_id) return pay;
    at.provider_transfer_id = transfer.id;
    at.deposit_address = transfer.deposit_address;
    at.deposit_message = transfer.deposit_message;
    if (pay.status !== 'draft') {
      at.status = pay.status;
      await m.save(at);
      return pay;
    }
    at.status = 'awaiting_funds';
    at.expires_at = new Date(nowMs + FUNDING_WINDOW_SECONDS * 1000);
    await m.save(at);
    pay.status = 'awaiting_funds';
    pay.funded_at = new Date();
    await m.save(pay);
    if (at.funding_source === 'service_wallet') {
      const w = await activeWallet(m, pay.account_id);
      if (!w) throw ApplicationFailure.nonRetryable(`payout ${pay.id}: service wallet disappeared`, 'WalletMissing');
      const estimate = walletSendEstimate(BigInt(at.gross_minor), w.chain === at.source_chain);
      await m.save(m.create(WalletSend, {
        id: newId('wsd_'), account_id: pay.account_id, payout_id: pay.id, attempt_id: at.id, wallet_address: w.address, wallet_chain: w.chain,
        to_address: transfer.deposit_address, to_chain: at.source_chain, asset: PAYOUT_SOURCE_ASSET, amount_minor: estimate.toString(),
        delivery_minor: at.gross_minor, status: 'signable', signable_until: new Date(nowMs + WALLET_SEND_SIGNABLE_SECONDS * 1000),
        tx_hash: null, signed_at: null, closed_at: null,
      }));
    }
    await emitPayoutEvents(m, pay, ['payout.funded', 'payout.awaiting_funds'], null);
    return pay;
  });
  if (p.status === 'cancelled') {
    try { await bridgeAdapter().cancelTransfer(transfer.id); } catch (e) { logger.warn({ err: e, payout_id: p.id }, 'transfer of a cancelled payout could not be cancelled'); }
  }
  return stateOf(p);
}

/**
 * Applies one recorded deposit (one transaction): while awaiting funds (or funds received and not
 * yet submitted to the rail) it funds the current attempt (`funds_received`,
 * `payout.funds_received`); otherwise the USDC is held for return (`held_minor`).
 */
export async function applyPayoutDeposit(payoutId: string, depositId: string): Promise<PayoutState> {
  const p = await transaction(async (m) => {
    const pay = await lockPayout(m, null, null, payoutId);
    const dep = await m.findOne(PayoutDeposit, { where: { id: depositId, payout_id: payoutId }, lock: { mode: 'pessimistic_write' } });
    if (!dep || dep.effect !== 'pending') return pay;
    const at = await m.findOneOrFail(PayoutAttempt, { where: { id: dep.attempt_id }, lock: { mode: 'pessimistic_write' } });
    const usable = dep.asset === PAYOUT_SOURCE_ASSET && at.id === pay.current_attempt_id
      && (pay.status === 'awaiting_funds' || (pay.status === 'funds_received' && at.rail_payment_id === null));
    if (usable) {
      dep.effect = 'applied';
      at.received_minor = (BigInt(at.received_minor) + BigInt(dep.amount_minor)).toString();
      at.source_tx_hash = at.source_tx_hash ?? dep.tx_hash;
      if (pay.status === 'awaiting_funds') {
        at.status = 'funds_received';
        pay.status = 'funds_received';
        await m.save(pay);
        await emitPayoutEvents(m, pay, ['payout.funds_received'], null);
      }
      await m.save(at);
    } else {
      dep.effect = 'held';
      pay.held_minor = (BigInt(pay.held_minor ?? '0') + BigInt(dep.amount_minor)).toString();
      await m.save(pay);
      logger.info({ payout_id: pay.id, deposit_id: dep.id, status: pay.status }, 'deposit to a payout that cannot use it is held for return');
    }
    await m.save(dep);
    return pay;
  });
  return stateOf(p);
}

/**
 * The funding window closed: re-reads the live provider transfer; if nothing arrived, cancels it
 * and moves the payout `awaiting_funds` -> `expired` (attempt expired, unsigned wallet sends closed).
 * If funds arrived, nothing changes (the deposit is on its way to the workflow).
 */
export async function expirePayout(payoutId: string): Promise<PayoutState> {
  const p0 = await loadOrFail(payoutId);
  if (p0.status !== 'awaiting_funds') return stateOf(p0);
  const at = p0.current_attempt_id ? await db().getRepository(PayoutAttempt).findOneBy({ id: p0.current_attempt_id }) : null;
  if (at?.provider_transfer_id) {
    const live = await bridgeAdapter().getTransfer(at.provider_transfer_id);
    if (live.received > 0n) return stateOf(p0);
    try {
      await bridgeAdapter().cancelTransfer(at.provider_transfer_id);
    } catch (e) {
      if (e instanceof BridgeMoneyMovingError) return stateOf(p0);
      throw e;
    }
  }
  await db().query(`UPDATE wallet_sends SET status = 'expired' WHERE payout_id = $1 AND status = 'signable' AND signable_until <= now()`, [payoutId]);
  const p = await transaction(async (m) => {
    const pay = await lockPayout(m, null, null, payoutId);
    if (pay.status !== 'awaiting_funds') return pay;
    pay.status = 'expired';
    pay.failure_reason = 'funding_window_expired';
    await m.save(pay);
    if (pay.current_attempt_id) await m.query(`UPDATE payout_attempts SET status = 'expired', updated_at = now() WHERE id = $1`, [pay.current_attempt_id]);
    return pay;
  });
  return stateOf(p);
}

/**
 * USDC of `payoutId` held for return after the fiat payment consumed `consumedUsdc` (domain
 * heldForReturn): every deposit observed at the funding address (applied or held), less the
 * consumed part and what was already returned (`returned_minor`). Runs inside the caller's transaction.
 */
async function heldAfter(m: EntityManager, payoutId: string, at: PayoutAttempt, consumedUsdc: bigint): Promise<string | null> {
  const rows: Array<{ s: string }> = await m.query(
    `SELECT COALESCE(SUM(amount_minor), 0)::text AS s FROM payout_deposits WHERE payout_id = $1 AND effect IN ('applied','held','refunded')`, [payoutId]);
  const held = heldForReturn(BigInt(rows[0].s), consumedUsdc, BigInt(at.returned_minor));
  return held === null ? null : held.toString();
}

/**
 * Provider call + transaction: submits the fiat payment for what arrived up to the quoted gross
 * amount (domain fiatPayable: fee on the gross, converted, capped at the invoice) with idempotency
 * key `<attempt>:rail`, then records it (`processing`, `payout.processing`). USDC above the gross
 * (domain fundingSurplus) is recorded as the attempt's surplus and held for return to the payer
 * (returned by the workflow's next step; `missing_return_policy` while there is no return
 * address). Nothing payable: the payout fails (`amount_below_minimum`) and the USDC is held.
 */
export async function submitFiatPayment(payoutId: string): Promise<PayoutState> {
  const p0 = await loadOrFail(payoutId);
  if (p0.status !== 'funds_received' || !p0.current_attempt_id) return stateOf(p0);
  const at0 = await db().getRepository(PayoutAttempt).findOneByOrFail({ id: p0.current_attempt_id });
  const received = BigInt(at0.received_minor);
  const surplus = fundingSurplus(received, BigInt(at0.gross_minor));
  const consumed = received - surplus;
  const pay = fiatPayable(consumed, BigInt(p0.invoice_minor), p0.currency, p0.decimals, p0.fee_bps);
  if (pay.fiat <= 0n) {
    const p = await transaction(async (m) => {
      const x = await lockPayout(m, null, null, payoutId);
      if (x.status !== 'funds_received') return x;
      x.status = 'failed';
      x.failure_reason = 'amount_below_minimum';
      await m.query(`UPDATE payout_deposits SET effect = 'held' WHERE attempt_id = $1 AND effect = 'applied'`, [at0.id]);
      x.held_minor = await heldAfter(m, payoutId, at0, 0n);
      await m.query(`UPDATE payout_attempts SET status = 'failed', updated_at = now() WHERE id = $1`, [at0.id]);
      await m.save(x);
      await emitPayoutEvents(m, x, ['payout.failed'], null);
      return x;
    });
    return stateOf(p);
  }
  const beneficiary = p0.beneficiary_ciphertext ? JSON.parse(decrypt(p0.beneficiary_ciphertext)) as StoredBankDetails : null;
  if (!beneficiary || beneficiary.rail !== p0.fiat_rail) throw ApplicationFailure.nonRetryable(`payout ${payoutId} has no beneficiary for ${p0.fiat_rail}`, 'BeneficiaryMissing');
  const rp = await fiatRails().submit({ idempotencyKey: `${at0.id}:rail`, clientReference: p0.id, rail: p0.fiat_rail, currency: p0.currency, amount: pay.fiat });
  const p = await transaction(async (m) => {
    const x = await lockPayout(m, null, null, payoutId);
    const at = await m.findOneOrFail(PayoutAttempt, { where: { id: at0.id }, lock: { mode: 'pessimistic_write' } });
    if (at.rail_payment_id) return x;
    at.rail_payment_id = rp.id;
    at.status = 'processing';
    at.surplus_minor = surplus.toString();
    await m.save(at);
    if (surplus > 0n) {
      x.held_minor = await heldAfter(m, payoutId, at, consumed);
      await m.save(x);
      logger.info({ payout_id: x.id, surplus: surplus.toString() }, 'USDC above the quoted gross amount is held for return to the payer');
    }
    if (x.status === 'funds_received') {
      x.status = 'processing';
      await m.save(x);
      await emitPayoutEvents(m, x, ['payout.processing'], null);
    }
    return x;
  });
  return stateOf(p);
}

/**
 * Provider read + transaction: re-reads the rail payment and applies what it says: `paid`
 * (`provider_paid_amount`, `payout.paid`), the recipient's confirmation (domain settlementVerdict:
 * `settled` / `paid_with_shortfall` / stays `paid` with `needs_attention`), `failed` or `returned`
 * (USDC held for return). Idempotent. Returns the new state and whether to notify the recipient.
 */
export async function syncRailPayment(payoutId: string): Promise<PayoutState & { notify: boolean }> {
  const p0 = await loadOrFail(payoutId);
  const at0 = p0.current_attempt_id ? await db().getRepository(PayoutAttempt).findOneBy({ id: p0.current_attempt_id }) : null;
  if (!at0?.rail_payment_id || p0.status === 'settled' || p0.status === 'paid_with_shortfall' || p0.status === 'failed' || p0.status === 'returned') {
    return { ...(await stateOf(p0)), notify: false };
  }
  const rp = await fiatRails().get(at0.rail_payment_id);
  let notify = false;
  const p = await transaction(async (m) => {
    const x = await lockPayout(m, null, null, payoutId);
    const setAttempt = (s: string) => m.query('UPDATE payout_attempts SET status = $2, updated_at = now() WHERE id = $1', [at0.id, s]);
    // The fiat payment failed or came back: nothing was consumed; every USDC not yet returned goes back.
    const hold = async () => {
      await m.query(`UPDATE payout_deposits SET effect = 'held' WHERE attempt_id = $1 AND effect = 'applied'`, [at0.id]);
      const at = await m.findOneOrFail(PayoutAttempt, { where: { id: at0.id }, lock: { mode: 'pessimistic_write' } });
      x.held_minor = await heldAfter(m, payoutId, at, 0n);
    };
    if (rp.state === 'failed' && x.status === 'processing') {
      x.status = 'failed';
      x.failure_reason = rp.reason ?? 'rail_failed';
      await hold();
      await setAttempt('failed');
      await m.save(x);
      await emitPayoutEvents(m, x, ['payout.failed'], null);
      return x;
    }
    if (rp.state === 'returned' && (x.status === 'processing' || x.status === 'paid')) {
      x.status = 'returned';
      x.return_reason = rp.reason ?? 'returned_by_beneficiary_bank';
      await hold();
      await setAttempt('returned');
      await m.save(x);
      await emitPayoutEvents(m, x, ['payout.returned'], null);
      return x;
    }
    if (rp.state === 'paid' && x.status === 'processing') {
      x.status = 'paid';
      x.provider_paid_minor = (rp.paid ?? rp.amount).toString();
      x.paid_at = new Date();
      await setAttempt('paid');
      await m.save(x);
      await emitPayoutEvents(m, x, ['payout.paid'], null);
    }
    if (rp.state === 'paid' && x.status === 'paid' && rp.recipient_received !== null && x.settled_minor === null) {
      const v = settlementVerdict(BigInt(x.invoice_minor), rp.recipient_received, x.currency);
      x.settled_minor = rp.recipient_received.toString();
      if (v.status === 'settled') {
        x.status = 'settled';
        x.settled_at = new Date();
        await setAttempt('settled');
        await m.save(x);
        await emitPayoutEvents(m, x, ['payout.settled'], null);
        notify = x.notify_recipient && x.recipient_email !== null;
      } else if (v.status === 'paid_with_shortfall') {
        x.status = 'paid_with_shortfall';
        x.shortfall_minor = (v.shortfall ?? 0n).toString();
        await setAttempt('paid_with_shortfall');
        await m.save(x);
        await emitPayoutEvents(m, x, ['payout.paid_with_shortfall'], null);
      } else {
        x.needs_attention = true;
        await m.save(x);
      }
    }
    return x;
  });
  return { ...(await stateOf(p)), notify };
}

/**
 * Provider call + transaction: returns the USDC held for the payer (`held_minor`: a funding surplus,
 * a deposit the payout could not use, or everything after a failure or return) to the refund
 * address on the source chain, or to the service wallet. Idempotent: the provider key is
 * `<attempt>:return:<returned_minor before this return>`, so a retry after a crash between the
 * provider call and the commit repeats the same return, never a second one. Adds the amount to the
 * attempt's `returned_minor` and clears `held_minor`. Does nothing while there is nowhere to return
 * it (`missing_return_policy`).
 */
export async function refundHeldFunds(payoutId: string): Promise<PayoutState> {
  const p0 = await loadOrFail(payoutId);
  if (p0.held_minor === null || !p0.current_attempt_id) return stateOf(p0);
  const at = await db().getRepository(PayoutAttempt).findOneByOrFail({ id: p0.current_attempt_id });
  let target: { chain: string; address: string } | null = null;
  if (p0.funding_source === 'service_wallet') {
    const w = await db().getRepository(Wallet).findOneBy({ account_id: p0.account_id, status: 'active', network: chainAdapter().network });
    if (w) target = { chain: w.chain, address: w.address };
  } else if (p0.refund_address) target = { chain: at.source_chain, address: p0.refund_address };
  if (!target || !at.provider_transfer_id) return stateOf(p0);
  const amount = BigInt(p0.held_minor);
  const key = `${at.id}:return:${at.returned_minor}`;
  await bridgeAdapter().refund(at.provider_transfer_id, target, amount, key);
  const p = await transaction(async (m) => {
    const x = await lockPayout(m, null, null, payoutId);
    const a = await m.findOneOrFail(PayoutAttempt, { where: { id: at.id }, lock: { mode: 'pessimistic_write' } });
    if (a.returned_minor !== at.returned_minor || x.held_minor !== p0.held_minor) return x; // already recorded
    a.returned_minor = (BigInt(a.returned_minor) + amount).toString();
    await m.save(a);
    await m.query(`UPDATE payout_deposits SET effect = 'refunded' WHERE payout_id = $1 AND effect = 'held'`, [payoutId]);
    x.held_minor = null;
    await m.save(x);
    return x;
  });
  return stateOf(p);
}

/** The reconciliation signal (spec 2.6 `needs_attention`): sets or clears the flag. */
export async function setPayoutNeedsAttention(payoutId: string, needsAttention: boolean): Promise<void> {
  await db().query('UPDATE payouts SET needs_attention = $2, updated_at = now() WHERE id = $1 AND needs_attention <> $2', [payoutId, needsAttention]);
}

/** Emails the recipient that the invoice was paid (only on `settled`; never on a shortfall). Idempotent by payout. */
export async function notifyPayoutRecipient(payoutId: string): Promise<void> {
  const p = await loadOrFail(payoutId);
  if (p.status !== 'settled' || !p.notify_recipient || !p.recipient_email) return;
  const amount = `${p.settled_minor ?? p.invoice_minor} ${p.currency} minor units`;
  await emailProvider().send({
    to: p.recipient_email, template: 'payout_settled', subject: `Your invoice was paid by ${p.sender_display ?? 'a customer'}`,
    body: `A payment of ${amount} was sent to your account ending ${(p.beneficiary_masked && maskedAccountEnding(p.beneficiary_masked)) ?? ''}.${p.note ? ` Note: ${p.note}` : ''}`,
    accountId: p.account_id, relatedObjectId: p.id, idempotencyKey: `payout_settled:${p.id}`,
  });
}

/**
 * Recovery after a crash between a commit and its workflow signal: (re)starts the workflow of every
 * payout with something left to do (an attempt without a transfer, not terminal beyond draft, or
 * held funds with a return address). Idempotent by workflow id. Returns how many.
 */
export async function ensurePayoutWorkflows(batch = 500): Promise<number> {
  let after = '';
  let n = 0;
  for (;;) {
    const rows: Array<{ id: string; account_id: string }> = await db().query(
      `SELECT id, account_id FROM payouts
        WHERE id > $1 AND current_attempt_id IS NOT NULL
          AND (status IN ('draft','awaiting_funds','funds_received','processing','paid') OR held_minor IS NOT NULL)
        ORDER BY id LIMIT $2`, [after, batch]);
    for (const r of rows) await startIfAbsent(payoutWorkflow, { workflowId: r.id, args: [{ payoutId: r.id }], accountId: r.account_id });
    n += rows.length;
    if (rows.length < batch) return n;
    after = rows[rows.length - 1].id;
  }
}

/** Tells a running payout workflow that the payout was cancelled (no-op when none runs). */
export async function signalPayoutCancelled(payoutId: string): Promise<void> {
  try {
    await (await temporalClient()).workflow.getHandle(payoutId).signal(payoutCancelledSignal);
  } catch (e) {
    if ((e as { name?: string }).name !== 'WorkflowNotFoundError') throw e;
  }
}
