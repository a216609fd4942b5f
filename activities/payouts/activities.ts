/**
 * Payout workflow activities (workflows/payout.ts; spec 2.6, 3, 6): `loadPayoutState`,
 * `ensureProviderTransfer`, `applyPayoutDeposit`, `expirePayout`, `submitFiatPayment`,
 * `syncRailPayment`, `refundHeldFunds`, `setPayoutNeedsAttention`, `notifyPayoutRecipient`. Each is
 * one provider call (idempotent by a key derived from the attempt id, so a retried activity never
 * duplicates a provider transfer) and/or one transaction. Status changes are written by the record
 * modules of the payout, its attempt and its wallet sends (activities/records/). The worker
 * registers `payoutWorkflowActivities`.
 * Amounts: fiat in minor units of the corridor currency; USDC in 6-decimal minor units.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { EntityManager } from 'typeorm';
import type { PayoutActivities, PayoutState } from '../../contracts/payout';
import { maskedAccountEnding, type StoredBankDetails } from '../../domain/bank-details';
import { isPayoutTerminal } from '../../domain/payouts/statuses';
import { PAYOUT_SOURCE_ASSET } from '../../domain/payouts/corridors';
import { fiatPayable, walletSendEstimate } from '../../domain/payouts/pricing';
import { fundingSurplus, heldForReturn, settlementVerdict } from '../../domain/payouts/verdicts';
import { FUNDING_WINDOW_SECONDS, WALLET_SEND_SIGNABLE_SECONDS } from '../../domain/payouts/deadlines';
import { Payout, PayoutAttempt, PayoutDeposit, WalletSend, Wallet } from '../../entities';
import { db, transaction } from '../../lib/db';
import { accountWide } from '../../lib/scoped';
import { newId } from '../../lib/ids';
import { logger } from '../../lib/logger';
import { decrypt } from '../../lib/secrets';
import { bridgeAdapter, BridgeMoneyMovingError } from '../../providers/bridge';
import { chainAdapter } from '../../providers/chain';
import { emailProvider } from '../../providers/email';
import { fiatRails } from '../../providers/fiat-rails';
import { lockPayout } from './records';
import { findActiveWallet } from '../records/wallets';
import { alignPayoutAttempt, openPayoutAttempt, receivePayoutAttemptFunds, submitPayoutAttempt } from '../records/payout-attempts';
import {
  expirePayout as expirePayoutRecord,
  failPayout,
  fundPayout,
  markPayoutPaid,
  markPayoutPaidWithShortfall,
  processPayout,
  receivePayoutFunds,
  returnPayout,
  settlePayout,
} from '../records/payouts';
import { expireWalletSends } from '../records/wallet-sends';

async function stateOf(p: Payout): Promise<PayoutState> {
  const at = p.current_attempt_id ? await db().getRepository(PayoutAttempt).findOneBy({ id: p.current_attempt_id }) : null;
  const pending: Array<{ id: string }> = await db().query(
    `SELECT id FROM payout_deposits WHERE payout_id = $1 AND effect = 'pending' ORDER BY observed_at, id`,
    [p.id],
  );
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
    idempotencyKey: at0.id,
    clientReference: p0.id,
    accountId: p0.account_id,
    sourceChain: at0.source_chain,
    sourceAsset: at0.source_currency,
    destinationRail: p0.fiat_rail,
    destinationCurrency: p0.currency,
  });
  const p = await transaction(async (m) => {
    const pay = await lockPayout(m, payoutId);
    const at = await m.findOneOrFail(PayoutAttempt, { where: { id: at0.id }, lock: { mode: 'pessimistic_write' } });
    if (at.provider_transfer_id) return pay;
    at.provider_transfer_id = transfer.id;
    at.deposit_address = transfer.deposit_address;
    at.deposit_message = transfer.deposit_message;
    if (pay.status !== 'draft') {
      // The payout left draft (cancelled) while the transfer was being created: the attempt follows it.
      await alignPayoutAttempt(m, at, { status: pay.status });
      return pay;
    }
    await openPayoutAttempt(m, at, { expiresAt: new Date(nowMs + FUNDING_WINDOW_SECONDS * 1000) });
    await fundPayout(m, pay);
    if (at.funding_source === 'service_wallet') {
      const w = await findActiveWallet({ accountId: pay.account_id }, m);
      if (!w) throw ApplicationFailure.nonRetryable(`payout ${pay.id}: service wallet disappeared`, 'WalletMissing');
      const estimate = walletSendEstimate(BigInt(at.gross_minor), w.chain === at.source_chain);
      await m.save(
        m.create(WalletSend, {
          id: newId('wsd_'),
          account_id: pay.account_id,
          payout_id: pay.id,
          attempt_id: at.id,
          wallet_address: w.address,
          wallet_chain: w.chain,
          to_address: transfer.deposit_address,
          to_chain: at.source_chain,
          asset: PAYOUT_SOURCE_ASSET,
          amount_minor: estimate.toString(),
          delivery_minor: at.gross_minor,
          status: 'signable',
          signable_until: new Date(nowMs + WALLET_SEND_SIGNABLE_SECONDS * 1000),
          tx_hash: null,
          signed_at: null,
          closed_at: null,
        }),
      );
    }
    return pay;
  });
  if (p.status === 'cancelled') {
    try {
      await bridgeAdapter().cancelTransfer(transfer.id);
    } catch (e) {
      logger.warn({ err: e, payout_id: p.id }, 'transfer of a cancelled payout could not be cancelled');
    }
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
    const pay = await lockPayout(m, payoutId);
    const dep = await m.findOne(PayoutDeposit, { where: { id: depositId, payout_id: payoutId }, lock: { mode: 'pessimistic_write' } });
    if (!dep || dep.effect !== 'pending') return pay;
    const at = await m.findOneOrFail(PayoutAttempt, { where: { id: dep.attempt_id }, lock: { mode: 'pessimistic_write' } });
    const usable =
      dep.asset === PAYOUT_SOURCE_ASSET &&
      at.id === pay.current_attempt_id &&
      (pay.status === 'awaiting_funds' || (pay.status === 'funds_received' && at.rail_payment_id === null));
    if (usable) {
      dep.effect = 'applied';
      at.received_minor = (BigInt(at.received_minor) + BigInt(dep.amount_minor)).toString();
      at.source_tx_hash = at.source_tx_hash ?? dep.tx_hash;
      if (pay.status === 'awaiting_funds') {
        receivePayoutAttemptFunds(at);
        await receivePayoutFunds(m, pay);
      }
      await m.save(at);
    } else {
      dep.effect = 'held';
      pay.held_minor = (BigInt(pay.held_minor ?? '0') + BigInt(dep.amount_minor)).toString();
      await m.save(pay);
      logger.info(
        { payout_id: pay.id, deposit_id: dep.id, status: pay.status },
        'deposit to a payout that cannot use it is held for return',
      );
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
  await expireWalletSends(db().manager, payoutId);
  const p = await transaction(async (m) => {
    const pay = await lockPayout(m, payoutId);
    if (pay.status !== 'awaiting_funds') return pay;
    await expirePayoutRecord(m, pay);
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
    `SELECT COALESCE(SUM(amount_minor), 0)::text AS s FROM payout_deposits WHERE payout_id = $1 AND effect IN ('applied','held','refunded')`,
    [payoutId],
  );
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
      const x = await lockPayout(m, payoutId);
      if (x.status !== 'funds_received') return x;
      await m.query(`UPDATE payout_deposits SET effect = 'held' WHERE attempt_id = $1 AND effect = 'applied'`, [at0.id]);
      await failPayout(m, x, { attemptId: at0.id, reason: 'amount_below_minimum', heldMinor: await heldAfter(m, payoutId, at0, 0n) });
      return x;
    });
    return stateOf(p);
  }
  const beneficiary = p0.beneficiary_ciphertext ? (JSON.parse(decrypt(p0.beneficiary_ciphertext)) as StoredBankDetails) : null;
  if (!beneficiary || beneficiary.rail !== p0.fiat_rail)
    throw ApplicationFailure.nonRetryable(`payout ${payoutId} has no beneficiary for ${p0.fiat_rail}`, 'BeneficiaryMissing');
  const rp = await fiatRails().submit({
    idempotencyKey: `${at0.id}:rail`,
    clientReference: p0.id,
    rail: p0.fiat_rail,
    currency: p0.currency,
    amount: pay.fiat,
  });
  const p = await transaction(async (m) => {
    const x = await lockPayout(m, payoutId);
    const at = await m.findOneOrFail(PayoutAttempt, { where: { id: at0.id }, lock: { mode: 'pessimistic_write' } });
    if (at.rail_payment_id) return x;
    await submitPayoutAttempt(m, at, { railPaymentId: rp.id, surplusMinor: surplus.toString() });
    if (surplus > 0n) {
      x.held_minor = await heldAfter(m, payoutId, at, consumed);
      await m.save(x);
      logger.info({ payout_id: x.id, surplus: surplus.toString() }, 'USDC above the quoted gross amount is held for return to the payer');
    }
    if (x.status === 'funds_received') await processPayout(m, x);
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
  if (
    !at0?.rail_payment_id ||
    p0.status === 'settled' ||
    p0.status === 'paid_with_shortfall' ||
    p0.status === 'failed' ||
    p0.status === 'returned'
  ) {
    return { ...(await stateOf(p0)), notify: false };
  }
  const rp = await fiatRails().get(at0.rail_payment_id);
  let notify = false;
  const p = await transaction(async (m) => {
    const x = await lockPayout(m, payoutId);
    // The fiat payment failed or came back: nothing was consumed; every USDC not yet returned goes back.
    const hold = async (): Promise<string | null> => {
      await m.query(`UPDATE payout_deposits SET effect = 'held' WHERE attempt_id = $1 AND effect = 'applied'`, [at0.id]);
      const at = await m.findOneOrFail(PayoutAttempt, { where: { id: at0.id }, lock: { mode: 'pessimistic_write' } });
      return heldAfter(m, payoutId, at, 0n);
    };
    if (rp.state === 'failed' && x.status === 'processing') {
      await failPayout(m, x, { attemptId: at0.id, reason: rp.reason ?? 'rail_failed', heldMinor: await hold() });
      return x;
    }
    if (rp.state === 'returned' && (x.status === 'processing' || x.status === 'paid')) {
      await returnPayout(m, x, { attemptId: at0.id, reason: rp.reason ?? 'returned_by_beneficiary_bank', heldMinor: await hold() });
      return x;
    }
    if (rp.state === 'paid' && x.status === 'processing') {
      await markPayoutPaid(m, x, { attemptId: at0.id, paidMinor: (rp.paid ?? rp.amount).toString() });
    }
    if (rp.state === 'paid' && x.status === 'paid' && rp.recipient_received !== null && x.settled_minor === null) {
      const v = settlementVerdict(BigInt(x.invoice_minor), rp.recipient_received, x.currency);
      x.settled_minor = rp.recipient_received.toString();
      if (v.status === 'settled') {
        await settlePayout(m, x, { attemptId: at0.id });
        notify = x.notify_recipient && x.recipient_email !== null;
      } else if (v.status === 'paid_with_shortfall') {
        await markPayoutPaidWithShortfall(m, x, { attemptId: at0.id, shortfallMinor: (v.shortfall ?? 0n).toString() });
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
    const w = await accountWide(p0.account_id).findOne(Wallet, { status: 'active', network: chainAdapter().network });
    if (w) target = { chain: w.chain, address: w.address };
  } else if (p0.refund_address) target = { chain: at.source_chain, address: p0.refund_address };
  if (!target || !at.provider_transfer_id) return stateOf(p0);
  const amount = BigInt(p0.held_minor);
  const key = `${at.id}:return:${at.returned_minor}`;
  await bridgeAdapter().refund(at.provider_transfer_id, target, amount, key);
  const p = await transaction(async (m) => {
    const x = await lockPayout(m, payoutId);
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
  await db().query('UPDATE payouts SET needs_attention = $2, updated_at = now() WHERE id = $1 AND needs_attention <> $2', [
    payoutId,
    needsAttention,
  ]);
}

/** Emails the recipient that the invoice was paid (only on `settled`; never on a shortfall). Idempotent by payout. */
export async function notifyPayoutRecipient(payoutId: string): Promise<void> {
  const p = await loadOrFail(payoutId);
  if (p.status !== 'settled' || !p.notify_recipient || !p.recipient_email) return;
  const amount = `${p.settled_minor ?? p.invoice_minor} ${p.currency} minor units`;
  await emailProvider().send({
    to: p.recipient_email,
    template: 'payout_settled',
    subject: `Your invoice was paid by ${p.sender_display ?? 'a customer'}`,
    body: `A payment of ${amount} was sent to your account ending ${(p.beneficiary_masked && maskedAccountEnding(p.beneficiary_masked)) ?? ''}.${p.note ? ` Note: ${p.note}` : ''}`,
    accountId: p.account_id,
    relatedObjectId: p.id,
    idempotencyKey: `payout_settled:${p.id}`,
  });
}

/** The activities of contracts/payout.ts (`payoutWorkflow` calls them through its `db` and `provider` proxies). */
export const payoutWorkflowActivities = {
  loadPayoutState,
  ensureProviderTransfer,
  applyPayoutDeposit,
  expirePayout,
  submitFiatPayment,
  syncRailPayment,
  refundHeldFunds,
  setPayoutNeedsAttention,
  notifyPayoutRecipient,
} satisfies PayoutActivities;
