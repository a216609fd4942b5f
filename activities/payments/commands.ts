/**
 * Payment commands the payer-session routes call (spec 4.1 payer routes, 2.4): start (or reuse) a
 * payment attempt and the payer's `mark_sent` claim. Each is one transaction with its outbox rows;
 * the payment workflow starts after commit.
 */
import { DomainError } from '../../domain/errors';
import { totalDue } from '../../domain/fees';
import { LIVE_PAYMENT_STATUSES, sqlStatusList } from '../../domain/payments';
import { computePayableRails, isBankRail } from '../../domain/rails';
import { isLinkOpenForPayment } from '../../domain/verdicts';
import { Payment, PaymentLink } from '../../entities';
import { loadConfig } from '../../lib/config';
import { transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { executableRails } from '../../lib/rails-availability';
import { scoped } from '../../lib/scoped';
import { findActiveWallet } from '../records/wallets';
import { createOrReuseBankPayment } from './bank-commands';
import { saveNewPayment } from './ledger';
import { emitPaymentEvents } from '../records/payments';
import { newPaymentRow } from './new-payment';
import { createOrReuseTransferPayment, createOrReuseXchainPayment, type RailPaymentInput } from './rails';
import type { Scope } from '../scope';

/** Link statuses that take no new payment attempt (`409 payment_link_not_payable` on the payer route). */
const NOT_PAYABLE = ['paid', 'settled', 'cancelled', 'expired', 'refunded', 'draft'];

/** A payer's `POST /payment_sessions/{token}/payments` after joi (the fields this build reads). */
export interface PayerPaymentInput extends RailPaymentInput {
  rail: string;
  payer_state?: string;
}

/** 404 of a payer route whose link is gone (spec 4.1 payer routes). */
const sessionNotFound = () => new DomainError('not_found', 'not_found', 'No such payment session.');

/**
 * The payer of `input.link` (the session's link; `scope`: its account and mode, the payer's
 * request) starts (or resumes) a payment on `input.rail` (spec 4.1): 409 conflict
 * `payment_link_not_payable` when the link takes no payment; 400 `rail_not_allowed` param `rail`
 * (details `rails`: the payable ones) when the rail is not payable now (`crypto_transfer` is
 * payable exactly when `crypto_native` is: the same chain, the payer naming its source); else the
 * rail's create-or-reuse: a bank rail `createOrReuseBankPayment` (bank-commands.ts), the
 * cross-network and transfer rails `createOrReuseXchainPayment` / `createOrReuseTransferPayment`
 * (rails.ts), the native rail `createOrReuseNativePayment`.
 */
export async function startPayerPayment(
  scope: Scope,
  input: PayerPaymentInput & { link: PaymentLink },
): Promise<{ payment: Payment; created: boolean }> {
  const { link } = input;
  const payable = computePayableRails({
    status: link.status,
    currency: link.currency,
    allowedRails: link.allowed_rails,
    cryptoOnly: link.crypto_only,
    settlementKind: link.settlement_kind,
    expectedPayerType: link.expected_payer_type_input,
    executableRails: await executableRails(link.account_id),
    destinationKind: link.settlement_destination_kind,
  });
  if (NOT_PAYABLE.includes(link.status)) {
    throw new DomainError('conflict', 'payment_link_not_payable', `This payment link is ${link.status} and takes no payment.`);
  }
  const railPayable = input.rail === 'crypto_transfer' ? payable.includes('crypto_native') : payable.includes(input.rail);
  if (!railPayable) {
    throw new DomainError('invalid_request', 'rail_not_allowed', `The rail \`${input.rail}\` is not available for this payment.`, {
      param: 'rail',
      details: { rails: payable },
    });
  }
  if (input.rail === 'crypto_xchain') return createOrReuseXchainPayment(scope, { ...input, linkId: link.id });
  if (input.rail === 'crypto_transfer') return createOrReuseTransferPayment(scope, { ...input, linkId: link.id });
  if (isBankRail(input.rail)) {
    return createOrReuseBankPayment(scope, {
      linkId: link.id,
      rail: input.rail,
      payer_email: input.payer_email ?? null,
      payer_type: input.payer_type ?? null,
      payer_state: input.payer_state ?? null,
    });
  }
  return createOrReuseNativePayment(scope, {
    linkId: link.id,
    payer_email: input.payer_email ?? null,
    payer_type: input.payer_type ?? null,
  });
}

/**
 * Creates the native-rail pay-in of link `input.linkId` of the scope (404 `No such payment session.`
 * otherwise), or returns the live one (spec 4.1 payer routes: "a live
 * attempt on the same rail returns existing instructions"). Total due = invoice + 1% payer fee
 * floored at 6 decimals (domain totalDue). Emits `payment.created` and `payment.awaiting`; the
 * payment workflow is started after commit. Throws 409 conflict `payment_link_not_payable` when
 * the link takes no payment now.
 */
export async function createOrReuseNativePayment(
  scope: Scope,
  input: { linkId: string; payer_email: string | null; payer_type: string | null },
): Promise<{ payment: Payment; created: boolean }> {
  const cfg = loadConfig();
  const result = await transaction(async (m) => {
    const link = await scoped(scope, m).lock(PaymentLink, { id: input.linkId }, sessionNotFound);
    const existing = await m
      .createQueryBuilder(Payment, 'p')
      .where('p.payment_link_id = :id', { id: link.id })
      .andWhere(`p.payment_rail = 'crypto_native'`)
      .andWhere(`p.status IN (${sqlStatusList(LIVE_PAYMENT_STATUSES)})`)
      .getOne();
    if (existing) return { payment: existing, created: false };
    if (!isLinkOpenForPayment(link.status)) {
      throw new DomainError('conflict', 'payment_link_not_payable', `This payment link is ${link.status} and takes no payment.`);
    }
    const due = totalDue({ amount: link.amount_minor, currency: link.currency, decimals: link.decimals });
    const ttl = cfg.paymentTtlSeconds * 1000;
    const expiresAt = new Date(Math.min(Date.now() + ttl, link.expires_at ? link.expires_at.getTime() : Number.MAX_SAFE_INTEGER));
    const settlementAddress =
      link.settlement_kind === 'crypto_only' ? ((await findActiveWallet({ accountId: link.account_id }, m))?.address ?? null) : null;
    const pay = newPaymentRow(m, {
      id: newId('pay_'),
      of: { link },
      rail: { kind: 'crypto_native' },
      due: { invoice: due.invoice.amount, fee: due.fee.amount, total: due.total.amount },
      settlement: settlementAddress ? 'wallet' : null,
      settlementAddress,
      payerEmail: input.payer_email,
      payerType: input.payer_type,
      expiresAt,
    });
    return saveNewPayment(m, link, pay, scope.request);
  });
  return result;
}

/**
 * The payer's non-authoritative claim that they sent funds to link `input.linkId` of the scope
 * (spec part 3): `payment.marked_sent` once, status unchanged. With `paymentId`: that payment of
 * the link (404 param `payment_id`); without: the newest live one (409 conflict
 * `no_payment_in_progress` when none).
 */
export async function markSent(scope: Scope, input: { linkId: string; paymentId: string | null }): Promise<Payment> {
  const { paymentId } = input;
  return transaction(async (m) => {
    const qb = scoped(scope, m).query(Payment, 'p').setLock('pessimistic_write').andWhere('p.payment_link_id = :id', { id: input.linkId });
    if (paymentId) qb.andWhere('p.id = :pid', { pid: paymentId });
    else qb.andWhere(`p.status IN (${sqlStatusList(LIVE_PAYMENT_STATUSES)})`).orderBy('p.created_at', 'DESC');
    const pay = await qb.getOne();
    if (!pay)
      throw paymentId
        ? new DomainError('not_found', 'not_found', `No such payment: ${paymentId}.`, { param: 'payment_id' })
        : new DomainError('conflict', 'no_payment_in_progress', 'There is no payment in progress to mark as sent.');
    if (!pay.marked_sent_at) {
      pay.marked_sent_at = new Date();
      await m.save(pay);
      await emitPaymentEvents(m, pay, ['payment.marked_sent'], scope.request);
    }
    return pay;
  });
}
