/**
 * Pay-ins on the native crypto rail (spec 2.4, part 3 "Payment", part 6 event rules).
 *
 * - The chain watcher (`recordObservedTransfer`) records every transfer to a deposit address as a
 *   `deposits` row (idempotent by chain + tx hash) and signals the payment's workflow.
 * - The payment workflow's activities (`loadPaymentState`, `applyDepositActivity`,
 *   `expirePaymentActivity`, `sendSettlement`, `recordSettlement`, `notifyLinkWorkflow`) each do one
 *   DB transaction with its outbox events, or one provider call.
 * - Payer-session operations (`createOrReuseNativePayment`, `markSent`) and the link-ending hook
 *   (`closeLivePaymentsForLink`) used by the link's cancel and expiry.
 * Amounts are bigint minor units of the settlement stablecoin (USDC, 6 decimals).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { EntityManager } from 'typeorm';
import { DomainError } from '../../domain/errors';
import { totalDue } from '../../domain/fees';
import { applyDeposit, closeOnLinkEnd, expire, linkStatusAfterPayment, isLinkOpenForPayment, type LinkStatus, type PaymentLedger, type PaymentStatus } from '../../domain/verdicts';
import { Deposit, Payment, PaymentLink } from '../../entities';
import { loadConfig } from '../../lib/config';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { logger } from '../../lib/logger';
import { chainAdapter, type ObservedTransfer } from '../../providers/chain';
import { signalWithStart, startIfAbsent } from '../../temporal/client';
import { depositSignal, linkEndedSignal, paymentWorkflow } from '../../workflows/payment';
import { linkChangedSignal, paymentLinkWorkflow } from '../../workflows/payment-link';
import { paymentView } from '../../views/payment';
import { linkViewContext, paymentLinkView } from '../../views/payment-link';
import { emitEvent, emitEventNonBlocking, type RequestRef } from '../../lib/outbox';
import { recordPayoutTransfer } from '../payouts';

/** Statuses in which the payment's watcher has nothing left to wait for. */
const WATCH_DONE: PaymentStatus[] = ['settled', 'unmatched', 'expired', 'abandoned'];

function ledgerOf(p: Payment): PaymentLedger {
  return {
    status: p.status as PaymentStatus,
    expected: BigInt(p.amount_expected_minor),
    received: BigInt(p.amount_received_minor),
    underpaidEmitted: p.underpaid_emitted,
    overpaidEmitted: p.overpaid_emitted,
  };
}

async function emitPaymentEvents(m: EntityManager, p: Payment, types: string[], request: RequestRef | null): Promise<void> {
  for (const type of types) {
    await emitEvent(m, {
      accountId: p.account_id, livemode: p.livemode, type, objectType: 'payment', objectId: p.id,
      object: paymentView(p), relatedIds: p.payment_link_id ? [p.payment_link_id] : [], request,
    });
  }
}

async function emitLinkEvents(m: EntityManager, link: PaymentLink, types: string[], request: RequestRef | null): Promise<void> {
  if (!types.length) return;
  const vctx = await linkViewContext(link.account_id);
  for (const type of types) {
    await emitEvent(m, {
      accountId: link.account_id, livemode: link.livemode, type, objectType: 'payment_link', objectId: link.id,
      object: paymentLinkView(link, vctx), request,
    });
  }
}

/**
 * Moves the link of `p` after the payment reached `p.status` (domain linkStatusAfterPayment),
 * inside `m`. `shortDeposit` is the most recent short deposit (spec 2.3 `partial_payment.received`).
 * Returns true when the link reached a status that ends its workflow's timers (paid/settled).
 */
async function moveLink(m: EntityManager, p: Payment, request: RequestRef | null): Promise<boolean> {
  if (!p.payment_link_id) return false;
  const link = await m.findOne(PaymentLink, { where: { id: p.payment_link_id }, lock: { mode: 'pessimistic_write' } });
  if (!link) return false;
  const t = linkStatusAfterPayment(link.status as LinkStatus, p.status as PaymentStatus, link.partial_payment !== null);
  link.latest_attempt_status = p.status;
  const changed = t.status !== link.status;
  link.status = t.status;
  if (t.partialPayment === 'set') {
    link.partial_payment = {
      payment_id: p.id,
      received: p.last_short_deposit_minor ? { amount: p.last_short_deposit_minor, currency: p.currency, decimals: p.decimals } : null,
    };
  } else if (t.partialPayment === 'clear') link.partial_payment = null;
  if (t.status === 'paid' && !link.paid_at) link.paid_at = p.paid_at ?? new Date();
  if (t.status === 'settled') {
    if (!link.paid_at) link.paid_at = p.paid_at ?? new Date();
    link.settled_at = p.settled_at ?? new Date();
  }
  await m.save(link);
  await emitLinkEvents(m, link, t.events, request);
  return changed && (t.status === 'paid' || t.status === 'settled');
}

// ---------------------------------------------------------------------------------------
// Chain watcher (runs where the chain adapter reports transfers)

/**
 * Records a transfer seen on chain. A transfer to a payout funding address is handed to the payout
 * (activities/payouts recordPayoutTransfer). A transfer to a payment's deposit address becomes a pending
 * deposit of that payment and signals its workflow (started if not running: a late deposit to a
 * closed payment still gets a verdict). Transfers to unknown addresses are recorded with no payment.
 * Idempotent by (chain, tx_hash). Returns the deposit id.
 */
export async function recordObservedTransfer(t: ObservedTransfer): Promise<string> {
  const payments: Array<{ id: string; account_id: string; stablecoin: string | null }> = await db().query(
    'SELECT id, account_id, stablecoin FROM payments WHERE deposit_chain = $1 AND lower(deposit_address) = lower($2)', [t.chain, t.to_address]);
  const p = payments[0] ?? null;
  if (!p) {
    // A payout funding address (bridge deposit address on a source chain) goes to the payout workflow.
    const payoutDepositId = await recordPayoutTransfer(t);
    if (payoutDepositId) return payoutDepositId;
  }
  const id = newId('dep_');
  const inserted: Array<{ id: string }> = await db().query(
    `INSERT INTO deposits(id, payment_id, chain, asset, to_address, from_address, tx_hash, amount_minor, decimals, effect)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10) ON CONFLICT (chain, tx_hash) DO NOTHING RETURNING id`,
    [id, p?.id ?? null, t.chain, t.asset, t.to_address, t.from_address, t.tx_hash, t.amount.toString(), t.decimals,
      p && p.stablecoin === t.asset ? 'pending' : 'recorded_only']);
  const depositId = inserted[0]?.id ?? (await db().query('SELECT id FROM deposits WHERE chain = $1 AND tx_hash = $2', [t.chain, t.tx_hash]))[0].id;
  if (p) await signalPaymentDeposit(p.id, p.account_id, depositId);
  return depositId;
}

/** Signals (starting if needed) the payment workflow with a recorded deposit. */
export async function signalPaymentDeposit(paymentId: string, accountId: string, depositId: string): Promise<void> {
  await signalWithStart(paymentWorkflow, { workflowId: paymentId, args: [{ paymentId }], accountId, signal: depositSignal, signalArgs: [{ depositId }] });
}

/** Tells the payment workflows that their link ended (after the link's transaction committed). */
export async function signalLinkEndedToPayments(paymentIds: string[], accountId: string, reason: 'cancelled' | 'expired'): Promise<void> {
  for (const paymentId of paymentIds) {
    await signalWithStart(paymentWorkflow, { workflowId: paymentId, args: [{ paymentId }], accountId, signal: linkEndedSignal, signalArgs: [{ reason }] });
  }
}

let watcherWired = false;
/** Connects the chain adapter's transfer reports to `recordObservedTransfer` (once per process). */
export function wireChainWatcher(): void {
  if (watcherWired) return;
  watcherWired = true;
  chainAdapter().onTransfer(async (t) => { await recordObservedTransfer(t); });
}

// ---------------------------------------------------------------------------------------
// Payment workflow activities

export interface PaymentState {
  status: PaymentStatus;
  /** ISO time the deposit window closes. */
  expiresAt: string;
  /** Deposits recorded but not yet applied (oldest first): the workflow applies them. */
  pendingDepositIds: string[];
  /** True when the payment needs settling (paid/overpaid and not yet settled). */
  needsSettlement: boolean;
  /** True when nothing remains to watch (settled, unmatched, expired, abandoned). */
  done: boolean;
}

async function stateOf(p: Payment): Promise<PaymentState> {
  const pending: Array<{ id: string }> = await db().query(
    `SELECT id FROM deposits WHERE payment_id = $1 AND effect = 'pending' ORDER BY observed_at, id`, [p.id]);
  const status = p.status as PaymentStatus;
  const needsSettlement = (status === 'paid' || status === 'overpaid') && p.settlement === 'wallet';
  return {
    status, expiresAt: p.expires_at.toISOString(), pendingDepositIds: pending.map((r) => r.id), needsSettlement,
    done: WATCH_DONE.includes(status) || ((status === 'paid' || status === 'overpaid') && !needsSettlement),
  };
}

/** Reads the payment's watch state. Non-retryable failure when the payment does not exist. */
export async function loadPaymentState(paymentId: string): Promise<PaymentState> {
  const p = await db().getRepository(Payment).findOneBy({ id: paymentId });
  if (!p) throw ApplicationFailure.nonRetryable(`payment ${paymentId} not found`, 'NotFound');
  return stateOf(p);
}

/**
 * Applies one recorded deposit to its payment (domain applyDeposit) in one transaction: payment
 * row, deposit effect, link move, outbox events. Idempotent: an already applied deposit changes nothing.
 * Returns the new watch state and whether the link reached paid/settled.
 */
export async function applyDepositActivity(paymentId: string, depositId: string): Promise<PaymentState & { linkEnded: boolean; linkId: string | null }> {
  let linkEnded = false;
  const p = await transaction(async (m) => {
    const pay = await m.findOne(Payment, { where: { id: paymentId }, lock: { mode: 'pessimistic_write' } });
    if (!pay) throw ApplicationFailure.nonRetryable(`payment ${paymentId} not found`, 'NotFound');
    const dep = await m.findOne(Deposit, { where: { id: depositId, payment_id: paymentId }, lock: { mode: 'pessimistic_write' } });
    if (!dep || dep.effect !== 'pending') return pay;
    const out = applyDeposit(ledgerOf(pay), BigInt(dep.amount_minor));
    dep.effect = out.effect;
    dep.applied_at = new Date();
    await m.save(dep);
    if (out.effect === 'recorded_only') {
      logger.info({ payment_id: pay.id, deposit_id: dep.id, status: pay.status }, 'deposit after close recorded for support');
      return pay;
    }
    pay.status = out.next.status;
    pay.amount_received_minor = out.next.received.toString();
    pay.underpaid_emitted = out.next.underpaidEmitted;
    pay.overpaid_emitted = out.next.overpaidEmitted;
    pay.surplus_minor = out.surplus > 0n ? out.surplus.toString() : null;
    if (out.unmatchedReason) pay.unmatched_reason = out.unmatchedReason;
    if (out.next.status === 'underpaid') pay.last_short_deposit_minor = dep.amount_minor;
    if ((out.next.status === 'paid' || out.next.status === 'overpaid') && !pay.paid_at) pay.paid_at = new Date();
    pay.onchain_tx_hash = dep.tx_hash;
    await m.save(pay);
    await emitPaymentEvents(m, pay, out.events, null);
    linkEnded = await moveLink(m, pay, null);
    return pay;
  });
  return { ...(await stateOf(p)), linkEnded, linkId: p.payment_link_id };
}

/** Closes the deposit window (domain expire): awaiting -> expired with `payment.expired`; else unchanged. */
export async function expirePaymentActivity(paymentId: string): Promise<PaymentState> {
  const p = await transaction(async (m) => {
    const pay = await m.findOne(Payment, { where: { id: paymentId }, lock: { mode: 'pessimistic_write' } });
    if (!pay) throw ApplicationFailure.nonRetryable(`payment ${paymentId} not found`, 'NotFound');
    const out = expire(ledgerOf(pay));
    if (!out.changed) return pay;
    pay.status = out.next.status;
    await m.save(pay);
    await emitPaymentEvents(m, pay, out.events, null);
    await moveLink(m, pay, null);
    return pay;
  });
  return stateOf(p);
}

/**
 * Provider call: sends the merchant's net amount (the exact invoice; the fee and any surplus stay
 * with the service) from the deposit address to the settlement address. Idempotent by payment id,
 * so a retried activity never pays twice. Returns the settlement tx hash.
 */
export async function sendSettlement(paymentId: string): Promise<string> {
  const p = await db().getRepository(Payment).findOneBy({ id: paymentId });
  if (!p) throw ApplicationFailure.nonRetryable(`payment ${paymentId} not found`, 'NotFound');
  if (!p.settlement_address || !p.deposit_address || !p.stablecoin) throw ApplicationFailure.nonRetryable(`payment ${paymentId} has no settlement route`, 'NoSettlementRoute');
  return chainAdapter().send(p.deposit_address, p.settlement_address, p.stablecoin, BigInt(p.invoice_minor), `settle:${p.id}`);
}

/** Records a completed settlement: payment settled, link settled, events. Idempotent. */
export async function recordSettlement(paymentId: string, txHash: string): Promise<PaymentState & { linkEnded: boolean; linkId: string | null }> {
  let linkEnded = false;
  const p = await transaction(async (m) => {
    const pay = await m.findOne(Payment, { where: { id: paymentId }, lock: { mode: 'pessimistic_write' } });
    if (!pay) throw ApplicationFailure.nonRetryable(`payment ${paymentId} not found`, 'NotFound');
    if (pay.status !== 'paid' && pay.status !== 'overpaid') return pay;
    pay.status = 'settled';
    pay.settled_at = new Date();
    pay.settlement_tx_hash = txHash;
    await m.save(pay);
    await emitPaymentEvents(m, pay, ['payment.settled'], null);
    linkEnded = await moveLink(m, pay, null);
    return pay;
  });
  return { ...(await stateOf(p)), linkEnded, linkId: p.payment_link_id };
}

/** Signals the link's workflow to re-read its state (it ends once the link is paid or settled). */
export async function notifyLinkWorkflow(linkId: string): Promise<void> {
  const rows: Array<{ account_id: string }> = await db().query('SELECT account_id FROM payment_links WHERE id = $1', [linkId]);
  if (!rows[0]) return;
  await signalWithStart(paymentLinkWorkflow, { workflowId: linkId, args: [{ linkId }], accountId: rows[0].account_id, signal: linkChangedSignal, signalArgs: [] });
}

// ---------------------------------------------------------------------------------------
// Link-ending hook (called inside the link's cancel / expiry transaction)

/**
 * Closes the link's live payments (awaiting, underpaid) when the link is cancelled or expires
 * (domain closeOnLinkEnd): underpaid -> unmatched `partial_before_cancel` (money held,
 * `payment.unmatched`), awaiting -> abandoned (cancel) or expired (expiry). Runs inside `m`.
 * Returns the payment ids whose workflows the caller signals after commit (signalLinkEndedToPayments).
 */
export async function closeLivePaymentsForLink(m: EntityManager, link: PaymentLink, reason: 'cancelled' | 'expired', request: RequestRef | null): Promise<{ paymentIds: string[] }> {
  const live = await m.createQueryBuilder(Payment, 'p').setLock('pessimistic_write')
    .where('p.payment_link_id = :id', { id: link.id }).andWhere(`p.status IN ('awaiting','underpaid')`).getMany();
  const ids: string[] = [];
  for (const pay of live) {
    const out = closeOnLinkEnd(ledgerOf(pay), reason === 'cancelled' ? 'cancel' : 'expiry');
    if (!out.changed) continue;
    pay.status = out.next.status;
    if (out.unmatchedReason) pay.unmatched_reason = out.unmatchedReason;
    await m.save(pay);
    // Spec 6: cancelling a link is never blocked by a failed emit.
    for (const type of out.events) {
      await emitEventNonBlocking(m, {
        accountId: pay.account_id, livemode: pay.livemode, type, objectType: 'payment', objectId: pay.id,
        object: paymentView(pay), relatedIds: pay.payment_link_id ? [pay.payment_link_id] : [], request,
      });
    }
    ids.push(pay.id);
  }
  return { paymentIds: ids };
}

// ---------------------------------------------------------------------------------------
// Payer-session operations

/**
 * Creates the link's native-rail pay-in, or returns the live one (spec 4.1 payer routes: "a live
 * attempt on the same rail returns existing instructions"). Total due = invoice + 1% payer fee
 * floored at 6 decimals (domain totalDue). Emits `payment.created` and `payment.awaiting`; the
 * payment workflow is started after commit. Throws 409 conflict `payment_link_not_payable` when
 * the link takes no payment now.
 */
export async function createOrReuseNativePayment(linkId: string, input: { payerEmail: string | null; payerType: string | null }, request: RequestRef): Promise<{ payment: Payment; created: boolean }> {
  const cfg = loadConfig();
  const chain = chainAdapter();
  const result = await transaction(async (m) => {
    const link = await m.findOne(PaymentLink, { where: { id: linkId }, lock: { mode: 'pessimistic_write' } });
    if (!link) throw new DomainError('not_found', 'not_found', 'No such payment session.');
    const existing = await m.createQueryBuilder(Payment, 'p').where('p.payment_link_id = :id', { id: link.id })
      .andWhere(`p.payment_rail = 'crypto_native'`).andWhere(`p.status IN ('awaiting','underpaid')`).getOne();
    if (existing) return { payment: existing, created: false };
    if (!isLinkOpenForPayment(link.status)) {
      throw new DomainError('conflict', 'payment_link_not_payable', `This payment link is ${link.status} and takes no payment.`);
    }
    const due = totalDue({ amount: link.amount_minor, currency: link.currency, decimals: link.decimals });
    const ttl = cfg.paymentTtlSeconds * 1000;
    const expiresAt = new Date(Math.min(Date.now() + ttl, link.expires_at ? link.expires_at.getTime() : Number.MAX_SAFE_INTEGER));
    const settlementAddress = link.settlement_kind === 'crypto_only'
      ? ((await m.query(`SELECT address FROM wallets WHERE account_id = $1 AND network = $2 AND status = 'active'`, [link.account_id, chain.network])) as Array<{ address: string }>)[0]?.address ?? null
      : null;
    const id = newId('pay_');
    const pay = m.create(Payment, {
      id, account_id: link.account_id, livemode: link.livemode, payment_link_id: link.id, subscription_id: null,
      status: 'awaiting', payment_rail: 'crypto_native', source_chain: chain.chain, stablecoin: chain.stablecoin, source_asset: chain.stablecoin,
      deposit_address: chain.depositAddress(id), deposit_chain: chain.chain, currency: chain.stablecoin, decimals: 6,
      invoice_minor: due.invoice.amount, fee_minor: due.fee.amount, amount_expected_minor: due.total.amount, amount_received_minor: '0',
      surplus_minor: null, last_short_deposit_minor: null, unmatched_reason: null, underpaid_emitted: false, overpaid_emitted: false,
      settlement: settlementAddress ? 'wallet' : null, settlement_address: settlementAddress, settlement_tx_hash: null,
      payer_email: input.payerEmail, payer_type: input.payerType, marked_sent_at: null, onchain_tx_hash: null,
      expires_at: expiresAt, paid_at: null, settled_at: null,
    });
    await m.save(pay);
    link.latest_attempt_status = 'awaiting';
    await m.save(link);
    await emitPaymentEvents(m, pay, ['payment.created', 'payment.awaiting'], request);
    return { payment: pay, created: true };
  });
  if (result.created) {
    await startIfAbsent(paymentWorkflow, { workflowId: result.payment.id, args: [{ paymentId: result.payment.id }], accountId: result.payment.account_id });
  }
  return result;
}

/** The payer's non-authoritative claim that they sent funds: `payment.marked_sent`, status unchanged. 409 without a live attempt. */
export async function markSent(linkId: string, paymentId: string | null, request: RequestRef): Promise<Payment> {
  return transaction(async (m) => {
    const qb = m.createQueryBuilder(Payment, 'p').setLock('pessimistic_write').where('p.payment_link_id = :id', { id: linkId });
    if (paymentId) qb.andWhere('p.id = :pid', { pid: paymentId });
    else qb.andWhere(`p.status IN ('awaiting','underpaid')`).orderBy('p.created_at', 'DESC');
    const pay = await qb.getOne();
    if (!pay) throw paymentId ? new DomainError('not_found', 'not_found', `No such payment: ${paymentId}.`, { param: 'payment_id' })
      : new DomainError('conflict', 'no_payment_in_progress', 'There is no payment in progress to mark as sent.');
    if (!pay.marked_sent_at) {
      pay.marked_sent_at = new Date();
      await m.save(pay);
      await emitPaymentEvents(m, pay, ['payment.marked_sent'], request);
    }
    return pay;
  });
}

/** The payer opened the session: first view sets `viewed_at`, moves active -> viewed and emits `payment_link.viewed` once. */
export async function recordView(linkId: string, request: RequestRef): Promise<PaymentLink> {
  return transaction(async (m) => {
    const link = await m.findOne(PaymentLink, { where: { id: linkId }, lock: { mode: 'pessimistic_write' } });
    if (!link) throw new DomainError('not_found', 'not_found', 'No such payment session.');
    if (!link.viewed_at) {
      link.viewed_at = new Date();
      if (link.status === 'active') link.status = 'viewed';
      await m.save(link);
      await emitLinkEvents(m, link, ['payment_link.viewed'], request);
    }
    return link;
  });
}

/**
 * Recovery after a crash between a commit and its workflow start: (re)starts the watcher of every
 * payment that still has something to watch (awaiting, underpaid, or paid/overpaid awaiting its
 * wallet settlement, or with unapplied deposits). Idempotent by workflow id. Returns how many.
 */
export async function ensurePaymentWorkflows(batch = 500): Promise<number> {
  let after = '';
  let n = 0;
  for (;;) {
    const rows: Array<{ id: string; account_id: string }> = await db().query(
      `SELECT p.id, p.account_id FROM payments p
        WHERE p.id > $1 AND (p.status IN ('awaiting','underpaid')
           OR (p.status IN ('paid','overpaid') AND p.settlement = 'wallet')
           OR EXISTS (SELECT 1 FROM deposits d WHERE d.payment_id = p.id AND d.effect = 'pending'))
        ORDER BY p.id LIMIT $2`, [after, batch]);
    for (const r of rows) await startIfAbsent(paymentWorkflow, { workflowId: r.id, args: [{ paymentId: r.id }], accountId: r.account_id });
    n += rows.length;
    if (rows.length < batch) return n;
    after = rows[rows.length - 1].id;
  }
}
