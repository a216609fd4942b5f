/**
 * Payout commands (spec 2.6, 3, 4.3): what the payout routes call. Each is one DB transaction with
 * its outbox events, plus the live provider re-reads the spec asks for at the money boundary and at
 * cancel; `fundPayout` and `cancelPayoutAndSignal` tell the payout workflow after the commit
 * (signals.ts). Every command takes `(scope, input)` (activities/scope.ts): the caller's account,
 * mode and request, and the object id inside `input`; payouts are found through the scoped finder.
 * Status changes are written by the record modules of the payout, its attempt and its wallet
 * sends (activities/records/).
 * Amounts: fiat in minor units of the corridor currency; USDC in 6-decimal minor units.
 */
import type { EntityManager } from 'typeorm';
import { normalizePayoutBeneficiary, type PayoutBeneficiaryInput } from '../../domain/bank-details';
import { capabilityUnavailable, conflict, DomainError, invalidRequest } from '../../domain/errors';
import { toMinorPositive, type Money } from '../../domain/money';
import { PAYOUT_PRE_FUNDS } from '../../domain/payouts/statuses';
import {
  CAPABILITY_VERSION,
  checkInvoiceAmount,
  corridorById,
  corridorVerdict,
  DEFAULT_SOURCE_CHAIN,
  PAYOUT_SOURCE_ASSET,
  type Corridor,
  type CorridorGate,
} from '../../domain/payouts/corridors';
import { fundingQuote, PAYOUT_FEE_BPS, walletSendEstimate } from '../../domain/payouts/pricing';
import { FUNDING_WINDOW_SECONDS, walletSendCancelBlock } from '../../domain/payouts/deadlines';
import { derivePayerType } from '../../domain/payouts/payer-type';
import { normalizeRefundAddress } from '../../domain/payouts/refund-address';
import { Payout, PayoutAttempt, WalletSend } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { encrypt } from '../../lib/secrets';
import { bridgeAdapter, BridgeMoneyMovingError } from '../../providers/bridge';
import { chainAdapter } from '../../providers/chain';
import { WalletSendCloseError } from '../../providers/wallet-sends';
import type { Scope } from '../scope';
import { currentAttempt, findPayout, loadFundingInstructions, payoutGate, type FundingInstructions } from './queries';
import { lockPayout } from './records';
import { findActiveWallet } from '../records/wallets';
import { cancelPayout as cancelPayoutRecord, emitPayoutEvents } from '../records/payouts';
import { signalPayoutCancelled, signalPayoutFund } from './signals';
import { closePayoutWalletSends } from './wallet-sends';

/** Identity frozen into `capability_snapshot` at creation or replacement (spec 2.6). */
async function senderIdentity(
  m: EntityManager,
  accountId: string,
): Promise<{ customerType: string; display: string; legal: string | null }> {
  const rows: Array<{ customer_type: string; display_name: string; verified_legal_name: string | null }> = await m.query(
    `SELECT a.customer_type, a.display_name, c.legal_name AS verified_legal_name FROM accounts a
       LEFT JOIN customers c ON c.account_id = a.id AND c.customer_type = 'business' AND c.verification_state = 'approved'
      WHERE a.id = $1`,
    [accountId],
  );
  const a = rows[0];
  const name = (a?.display_name ?? '').trim();
  return {
    customerType: a?.customer_type ?? 'business',
    display: name || 'unknown',
    // The verified legal name of the owner's business customer (spec 4.7); else the business's display name.
    legal: a?.verified_legal_name ?? (a && a.customer_type === 'business' && name ? name : null),
  };
}

function requireExecutable(c: Corridor, gate: CorridorGate): void {
  const v = corridorVerdict(c, gate);
  if (!v.executable) {
    throw capabilityUnavailable(
      'capability_unavailable',
      `Corridor ${c.id} is not executable for this account (${v.blocked_reason}). Do not retry.`,
      { corridor_id: c.id, blocked_reason: v.blocked_reason },
    );
  }
}

function requireSourceChain(c: Corridor, chain: string): void {
  if (!c.source_chains.includes(chain)) {
    throw new DomainError(
      'capability_unavailable',
      'capability_unavailable',
      `Corridor ${c.id} cannot be funded from ${chain}; source chains: ${c.source_chains.join(', ') || 'none'}.`,
      { param: 'source_chain', details: { corridor_id: c.id, source_chains: [...c.source_chains] } },
    );
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
 * Freezes `sender_display` / `legal_entity_name`; emits `payout.created`. `input`: the route's
 * validated body. The corridor gate is the account's now (queries.ts `payoutGate`).
 */
export async function createPayout(scope: Scope, input: CreatePayoutInput): Promise<Payout> {
  return newDraft(scope, input, await payoutGate(scope), null);
}

/** The draft of `createPayout`, replacing `replaces` when given (`replacePayout`). */
async function newDraft(scope: Scope, b: CreatePayoutInput, gate: CorridorGate, replaces: Payout | null): Promise<Payout> {
  const c = corridorById(b.corridor_id);
  if (!c) throw invalidRequest('parameter_invalid', `Unknown corridor_id ${b.corridor_id}.`, 'corridor_id');
  requireExecutable(c, gate);
  const minor = toMinorPositive(b.invoice_amount, 'invoice_amount');
  checkInvoiceAmount(c, b.invoice_amount, minor);
  if (b.source_chain !== undefined) requireSourceChain(c, b.source_chain);
  if (b.notify_recipient && !b.recipient_email)
    throw invalidRequest('parameter_missing', 'recipient_email is required when notify_recipient is true.', 'recipient_email');
  return transaction(async (m) => {
    const who = await senderIdentity(m, scope.accountId);
    const payerType = derivePayerType(who.customerType, b.payer_type);
    const p = m.create(Payout, {
      id: newId('po_'),
      account_id: scope.accountId,
      livemode: scope.livemode,
      status: 'draft',
      invoice_minor: minor.toString(),
      currency: c.currency,
      decimals: c.decimals,
      corridor_id: c.id,
      fiat_rail: c.fiat_rail,
      source_chain: b.source_chain ?? null,
      source_asset: PAYOUT_SOURCE_ASSET,
      payer_type: payerType,
      fee_bps: PAYOUT_FEE_BPS,
      notify_recipient: b.notify_recipient ?? false,
      recipient_email: b.recipient_email ?? null,
      note: b.note ?? null,
      capability_version: CAPABILITY_VERSION,
      snapshot_frozen_at: new Date(),
      sender_display: who.display,
      legal_entity_name: who.legal,
      needs_attention: false,
      settled_minor: null,
      provider_paid_minor: null,
      shortfall_minor: null,
      failure_reason: null,
      return_reason: null,
      held_minor: null,
      beneficiary_ciphertext: replaces?.beneficiary_ciphertext ?? null,
      beneficiary_masked: replaces?.beneficiary_masked ?? null,
      funding_source: null,
      refund_address: null,
      current_attempt_id: null,
      replaces_id: replaces?.id ?? null,
      replaced_by_id: null,
      marked_sent_at: null,
      funded_at: null,
      paid_at: null,
      settled_at: null,
    });
    await m.save(p);
    if (replaces) {
      const old = await lockPayout(m, replaces.id, scope);
      if (old.replaced_by_id)
        throw conflict('payout_already_replaced', `Payout ${old.id} was already replaced by ${old.replaced_by_id}.`, {
          replaced_by: old.replaced_by_id,
        });
      old.replaced_by_id = p.id;
      await m.save(old);
      await emitPayoutEvents(m, p, ['payout.created_as_replacement'], scope.request, [old.id]);
      await emitPayoutEvents(m, old, ['payout.replaced'], scope.request, [p.id]);
    } else {
      await emitPayoutEvents(m, p, ['payout.created'], scope.request);
    }
    return p;
  });
}

/**
 * `POST /payouts/{id}/replace` (spec 4.3): a new draft replacing a payout that ended without paying
 * (failed, returned, expired, cancelled), with the same beneficiary and a fresh snapshot. Body
 * fields (`input`, the validated body with the path's `id`) override the old payout's; the corridor
 * gate is the account's now. 409 `payout_not_replaceable`, `payout_already_replaced`.
 */
export async function replacePayout(scope: Scope, input: Partial<CreatePayoutInput> & { id: string }): Promise<Payout> {
  const gate = await payoutGate(scope);
  const old = await findPayout(scope, { id: input.id });
  if (old.replaced_by_id)
    throw conflict('payout_already_replaced', `Payout ${old.id} was already replaced by ${old.replaced_by_id}.`, {
      replaced_by: old.replaced_by_id,
    });
  if (!['failed', 'returned', 'expired', 'cancelled'].includes(old.status)) {
    throw conflict(
      'payout_not_replaceable',
      `A ${old.status} payout cannot be replaced; only failed, returned, expired or cancelled ones.`,
      { status: old.status },
    );
  }
  const body: CreatePayoutInput = {
    invoice_amount: input.invoice_amount ?? { amount: old.invoice_minor, currency: old.currency, decimals: old.decimals },
    corridor_id: old.corridor_id,
    source_chain: input.source_chain ?? old.source_chain ?? undefined,
    note: input.note !== undefined ? input.note : old.note,
    recipient_email: input.recipient_email !== undefined ? input.recipient_email : old.recipient_email,
    notify_recipient: input.notify_recipient ?? old.notify_recipient,
  };
  return newDraft(scope, body, gate, old);
}

/**
 * `POST /payouts/{id}/beneficiary` (spec 2.6): raw bank details for the payout's rail (`rail`
 * optional, the payout's), accepted once while the payout is a draft, checked by
 * domain/bank-details.ts (the address book's rules), stored encrypted (AES-GCM) with the masked
 * projection. 409 `beneficiary_already_set`, 409 `payout_not_editable`; 400 `parameter_missing` /
 * `parameter_invalid` naming the field. `input`: the validated body with the path's `id`. Emits
 * `payout.beneficiary_added`.
 */
export async function setBeneficiary(scope: Scope, input: PayoutBeneficiaryInput & { id: string }): Promise<Payout> {
  return transaction(async (m) => {
    const p = await lockPayout(m, input.id, scope);
    if (p.beneficiary_ciphertext)
      throw conflict(
        'beneficiary_already_set',
        'Bank details cross once; this payout already has a beneficiary. Replace the payout to change them.',
      );
    if (p.status !== 'draft') throw conflict('payout_not_editable', `A ${p.status} payout takes no beneficiary.`, { status: p.status });
    const { id: _id, ...body } = input;
    const { details, masked } = normalizePayoutBeneficiary(p.fiat_rail, body);
    p.beneficiary_ciphertext = encrypt(JSON.stringify(details));
    p.beneficiary_masked = masked;
    await m.save(p);
    await emitPayoutEvents(m, p, ['payout.beneficiary_added'], scope.request);
    return p;
  });
}

export interface FundRequest {
  funding_source?: 'external_wallet' | 'service_wallet';
  source_chain?: string;
  refund_address?: string;
}

/**
 * `POST /payouts/{id}/funding_instructions` (spec 2.6 fund request, 3, 4.3): the money boundary.
 * On a draft: re-checks eligibility (409 `capability_unavailable`), needs a beneficiary (409
 * `beneficiary_required`), a source chain for an external wallet (400 `payout_source_chain_missing`),
 * validates `refund_address` (never with `service_wallet`), checks a service wallet covers the
 * send (409 `wallet_not_found`, `wallet_balance_insufficient`), and records the funding attempt
 * (`creating`) with `payout.configuration_committed` (its source chain and funding source are fixed
 * from then on); the payout workflow then creates the provider transfer. After a transfer exists:
 * `source_chain` is refused (409 `payout_source_chain_locked`), `refund_address` may change only
 * while awaiting funds (409 `refund_address_locked`), and may be set for the first time while
 * funds are held for return. `input`: the validated body with the path's `id`; the corridor gate
 * is the account's now (queries.ts `payoutGate`). Returns whether the workflow must be signalled.
 */
export async function requestFunding(
  scope: Scope,
  input: FundRequest & { id: string },
): Promise<{ payout: Payout; attemptId: string; signal: boolean }> {
  const gate = await payoutGate(scope);
  const b = input;
  const refund = b.refund_address !== undefined ? normalizeRefundAddress(b.refund_address) : undefined;
  return transaction(async (m) => {
    const p = await lockPayout(m, input.id, scope);
    const c = corridorById(p.corridor_id);
    if (!c) throw conflict('payout_not_fundable', `Payout ${p.id} has an unknown corridor.`);
    const attempt = p.current_attempt_id
      ? await m.findOne(PayoutAttempt, { where: { id: p.current_attempt_id }, lock: { mode: 'pessimistic_write' } })
      : null;
    // Once funding is confirmed the provider transfer exists or is being created on the attempt's
    // chain (the workflow may be calling the bridge right now): either way the chain is locked.
    if (b.source_chain !== undefined && attempt !== null && b.source_chain !== attempt.source_chain) {
      const what = attempt.provider_transfer_id !== null ? 'already exists' : 'is being created';
      throw new DomainError(
        'conflict',
        'payout_source_chain_locked',
        `The provider transfer ${what} on ${attempt.source_chain}; the source chain can no longer change.`,
        { param: 'source_chain', details: { source_chain: attempt.source_chain } },
      );
    }
    if (attempt && b.funding_source !== undefined && b.funding_source !== attempt.funding_source) {
      throw new DomainError('conflict', 'funding_source_locked', `This payout is already funded from ${attempt.funding_source}.`, {
        param: 'funding_source',
        details: { funding_source: attempt.funding_source },
      });
    }
    const fundingSource = attempt?.funding_source ?? b.funding_source ?? 'external_wallet';
    if (fundingSource === 'service_wallet' && refund !== undefined) {
      throw invalidRequest(
        'parameter_invalid',
        'refund_address is not accepted with funding_source service_wallet; funds return to the wallet.',
        'refund_address',
      );
    }
    if (attempt) {
      // A funding attempt exists: refund address rules only (spec 2.6).
      if (refund !== undefined && refund !== p.refund_address) {
        const firstForHeld = p.refund_address === null && p.held_minor !== null;
        if (p.status !== 'awaiting_funds' && p.status !== 'draft' && !firstForHeld) {
          throw new DomainError('conflict', 'refund_address_locked', 'refund_address can change only while the payout is awaiting funds.', {
            param: 'refund_address',
            details: { status: p.status },
          });
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
    requireExecutable(c, gate);
    if (!p.beneficiary_ciphertext)
      throw conflict('beneficiary_required', 'Add the beneficiary (POST /payouts/{id}/beneficiary) before funding.');
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
      const w = await findActiveWallet({ accountId: p.account_id }, m);
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
      id: newId('poa_'),
      payout_id: p.id,
      account_id: p.account_id,
      livemode: p.livemode,
      status: 'creating',
      funding_source: fundingSource,
      source_chain: chain,
      source_currency: PAYOUT_SOURCE_ASSET,
      source_tx_hash: null,
      refund_address: refund ?? null,
      provider_transfer_id: null,
      deposit_address: null,
      deposit_message: null,
      transfer_reference: `PO-${p.id.slice(3, 15).toUpperCase()}`,
      rail_payment_id: null,
      amount_minor: q.amount.toString(),
      buffer_minor: q.buffer.toString(),
      fee_minor: q.fee.toString(),
      gross_minor: q.gross.toString(),
      received_minor: '0',
      surplus_minor: null,
      returned_minor: '0',
      expires_at: new Date(Date.now() + FUNDING_WINDOW_SECONDS * 1000),
    });
    await m.save(at);
    p.source_chain = chain;
    p.funding_source = fundingSource;
    if (refund !== undefined) p.refund_address = refund;
    p.current_attempt_id = at.id;
    await m.save(p);
    // The source chain and funding source are now fixed for this payout (catalogued, spec 6).
    await emitPayoutEvents(m, p, ['payout.configuration_committed'], scope.request);
    return { payout: p, attemptId: at.id, signal: true };
  });
}

/**
 * `POST /payouts/{id}/cancel` (spec 3, 4.3): idempotent (a cancelled payout is returned as is).
 * Only pre-funds states (409 `cancel_unavailable`). A prepared wallet send blocks while signable
 * and for 30 minutes after it expires (409 `wallet_funding_pending`, `details.retry_after` seconds);
 * the live provider transfer is re-read and nothing may be moving (409 `cancel_unavailable`);
 * unsigned sends are closed (503 `wallet_funding_cancel_failed` when they cannot be). Emits
 * `payout.cancelled`. Returns the payout and whether its workflow must be told.
 */
export async function cancelPayout(scope: Scope, input: { id: string; nowMs?: number }): Promise<{ payout: Payout; changed: boolean }> {
  const nowMs = input.nowMs ?? Date.now();
  const p0 = await findPayout(scope, { id: input.id });
  if (p0.status === 'cancelled') return { payout: p0, changed: false };
  const notCancellable = (why: string) => conflict('cancel_unavailable', why, { status: p0.status });
  if (!(PAYOUT_PRE_FUNDS as readonly string[]).includes(p0.status))
    throw notCancellable(`A ${p0.status} payout cannot be cancelled: money is moving or the payout ended.`);
  const sends = await db().getRepository(WalletSend).findBy({ payout_id: p0.id });
  if (sends.some((s) => s.status === 'signed')) throw notCancellable('The wallet send was signed; money is moving.');
  let blockUntil = 0;
  for (const s of sends) {
    const until = walletSendCancelBlock({ status: s.status, signableUntilMs: s.signable_until.getTime() }, nowMs);
    if (until !== null && until > blockUntil) blockUntil = until;
  }
  if (blockUntil > 0) {
    throw conflict(
      'wallet_funding_pending',
      'A prepared wallet send can still be signed or land; cancel is possible 30 minutes after it expires.',
      {
        retry_after: Math.ceil((blockUntil - nowMs) / 1000),
        retry_at: new Date(blockUntil).toISOString(),
      },
    );
  }
  const { attempt } = await currentAttempt(p0);
  if (attempt?.provider_transfer_id) {
    const live = await bridgeAdapter().getTransfer(attempt.provider_transfer_id);
    if (live.received > 0n || live.state === 'funds_received')
      throw notCancellable('Funds reached the provider transfer; money is moving.');
  }
  if (sends.some((s) => s.status !== 'closed')) {
    try {
      await closePayoutWalletSends(p0.account_id, p0.id);
    } catch (e) {
      if (e instanceof WalletSendCloseError) {
        throw new DomainError(
          'temporarily_unavailable',
          'wallet_funding_cancel_failed',
          'Unsigned wallet sends could not be closed; the payout was not cancelled. Retry later.',
          { details: { retry_after_seconds: 30 }, status: 503 },
        );
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
    const p = await lockPayout(m, input.id, scope);
    if (p.status === 'cancelled') return { payout: p, changed: false };
    if (!(PAYOUT_PRE_FUNDS as readonly string[]).includes(p.status))
      throw conflict('cancel_unavailable', `A ${p.status} payout cannot be cancelled.`, { status: p.status });
    await cancelPayoutRecord(m, p, scope.request);
    return { payout: p, changed: true };
  });
}

/** `POST /payouts/{id}/mark_sent` (spec 3, 4.3): the merchant's non-authoritative claim; status unchanged; `payout.marked_sent` once. */
export async function markPayoutSent(scope: Scope, input: { id: string }): Promise<Payout> {
  return transaction(async (m) => {
    const p = await lockPayout(m, input.id, scope);
    if (!p.marked_sent_at) {
      p.marked_sent_at = new Date();
      await m.save(p);
      await emitPayoutEvents(m, p, ['payout.marked_sent'], scope.request);
    }
    return p;
  });
}

/** How long the funding POST waits for the workflow to create the provider transfer before answering 503. */
const TRANSFER_WAIT_MS = 10_000;

/** Polls until the attempt has its provider transfer; 503 `funding_instructions_pending` (retry with the same key) when the workflow is slow. */
async function waitForTransfer(attemptId: string): Promise<PayoutAttempt> {
  const end = Date.now() + TRANSFER_WAIT_MS;
  for (;;) {
    const a = await db().getRepository(PayoutAttempt).findOneByOrFail({ id: attemptId });
    if (a.provider_transfer_id) return a;
    if (Date.now() > end) {
      throw new DomainError(
        'temporarily_unavailable',
        'funding_instructions_pending',
        'The provider transfer is still being created. Retry with the same Idempotency-Key.',
        { details: { retry_after_seconds: 5 } },
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * `POST /payouts/{id}/funding_instructions` (spec 2.6, 3, 4.3): `requestFunding` (its errors), then
 * signals the payout workflow after the commit (starting it if needed) and waits up to 10 s for the
 * provider transfer (503 `funding_instructions_pending` past that). Returns the funding instructions.
 */
export async function fundPayout(scope: Scope, input: FundRequest & { id: string }): Promise<FundingInstructions> {
  const r = await requestFunding(scope, input);
  if (r.signal) await signalPayoutFund(r.payout.id, r.payout.account_id);
  await waitForTransfer(r.attemptId);
  return loadFundingInstructions(scope, { id: input.id });
}

/** `POST /payouts/{id}/cancel` (spec 3, 4.3): `cancelPayout`, then tells the payout workflow after the commit when the payout changed. */
export async function cancelPayoutAndSignal(scope: Scope, input: { id: string }): Promise<Payout> {
  const out = await cancelPayout(scope, { id: input.id });
  if (out.changed) await signalPayoutCancelled(out.payout.id);
  return out.payout;
}
