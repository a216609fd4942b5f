/**
 * Payment attempts on the cross-network and transfer rails (spec 4.1 payer payments, 2.1
 * DepositInstructions, 2.4). Each create is one transaction with its outbox rows; the
 * rail's workflow starts after commit. Amounts are bigint minor units of USDC (6 decimals).
 */
import type { EntityManager } from 'typeorm';
import { DomainError } from '../../domain/errors';
import { totalDue } from '../../domain/fees';
import { LIVE_PAYMENT_STATUSES, sqlStatusList } from '../../domain/payments';
import { isLinkOpenForPayment } from '../../domain/verdicts';
import { grossUp, validateTransferRequest, validateXchainRequest } from '../../domain/xchain';
import { Payment, PaymentLink } from '../../entities';
import { loadConfig } from '../../lib/config';
import { transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { accountWide, scoped } from '../../lib/scoped';
import { payInBridgeAdapter } from '../../providers/bridge';
import { chainAdapter } from '../../providers/chain';
import { findActiveWallet } from '../records/wallets';
import { saveNewPayment } from './ledger';
import { newPaymentRow } from './new-payment';
import type { Scope } from '../scope';

/** The payer's cross-network / transfer fields after joi (spec 4.1). */
export interface RailPaymentInput {
  payer_email?: string;
  payer_type?: string;
  network?: string;
  stablecoin?: string;
  refund_address?: string;
  source_chain?: string;
  source_asset?: string;
  source_address?: string;
}

/** Link `linkId` of the scope, locked (404 `No such payment session.`), still taking payments (409 `payment_link_not_payable`). */
async function lockLink(m: EntityManager, scope: Scope, linkId: string): Promise<PaymentLink> {
  const link = await scoped(scope, m).lock(
    PaymentLink,
    { id: linkId },
    () => new DomainError('not_found', 'not_found', 'No such payment session.'),
  );
  if (!isLinkOpenForPayment(link.status)) {
    throw new DomainError('conflict', 'payment_link_not_payable', `This payment link is ${link.status} and takes no payment.`);
  }
  return link;
}

async function settlementWallet(m: EntityManager, link: PaymentLink): Promise<string | null> {
  if (link.settlement_kind !== 'crypto_only') return null;
  return (await findActiveWallet({ accountId: link.account_id }, m))?.address ?? null;
}

/**
 * Addresses a refund address may not be (spec 4.1): the service's (bridge treasury, every
 * payment's deposit or delivery address, every service wallet) and the merchant's settlement
 * addresses (its wallets and address-book entries). Only those equal to `candidate` are read.
 */
async function forbiddenRefundAddresses(m: EntityManager, accountId: string, candidate: string | undefined): Promise<string[]> {
  if (!candidate) return [];
  const entries = accountWide(accountId, m).sql(null, 2);
  const hits: Array<{ a: string }> = await m.query(
    `SELECT deposit_address AS a FROM payments WHERE lower(deposit_address) = lower($1)
     UNION ALL SELECT delivery_address FROM payments WHERE lower(delivery_address) = lower($1)
     UNION ALL SELECT address FROM wallets WHERE lower(address) = lower($1)
     UNION ALL SELECT address FROM address_book_entries WHERE ${entries.where} AND lower(address) = lower($1) LIMIT 1`,
    [candidate, ...entries.params],
  );
  return [payInBridgeAdapter().treasury, ...hits.map((h) => h.a)];
}

/**
 * The payer starts (or resumes) a `crypto_xchain` payment of link `input.linkId` of the scope (404
 * `No such payment session.`; 409 `payment_link_not_payable`; spec 4.1, 2.1, 2.4): validates the body
 * (domain validateXchainRequest: `network`, `stablecoin`, `refund_address`), allows one open
 * payment per link: the open one with the same network and refund address is returned (`created:
 * false`), any other is `409 conflict` `payment_in_progress` (details `payment_id`). A new payment
 * freezes the total due (invoice + 1% fee) as the amount the bridge must deliver (`amount_out`),
 * grosses it up by the bridge's quoted fee (`amount` = `amount_out` + `bridge_fee`), creates the
 * bridge transfer (idempotent by payment id) whose source-chain address is the send target, and
 * emits `payment.created`, `payment.awaiting`. Watcher state `address_issued`.
 */
export async function createOrReuseXchainPayment(
  scope: Scope,
  input: RailPaymentInput & { linkId: string },
): Promise<{ payment: Payment; created: boolean }> {
  const { linkId } = input;
  const cfg = loadConfig();
  const chain = chainAdapter();
  const bridge = payInBridgeAdapter();
  const id = newId('pay_');
  /** Validates the body; returns it with the open payment to reuse (null: create one), or throws `payment_in_progress`. */
  const check = async (m: EntityManager, link: PaymentLink) => {
    const req = validateXchainRequest({
      network: input.network,
      stablecoin: input.stablecoin,
      refund_address: input.refund_address,
      nativeChain: chain.chain,
      forbiddenAddresses: await forbiddenRefundAddresses(m, link.account_id, input.refund_address),
    });
    const open = await m
      .createQueryBuilder(Payment, 'p')
      .where('p.payment_link_id = :id', { id: link.id })
      .andWhere(`p.payment_rail = 'crypto_xchain'`)
      .andWhere(`p.status IN (${sqlStatusList(LIVE_PAYMENT_STATUSES)})`)
      .getOne();
    if (open && !(open.source_chain === req.network && open.refund_address?.toLowerCase() === req.refundAddress.toLowerCase())) {
      throw new DomainError(
        'conflict',
        'payment_in_progress',
        'A cross-network payment with another network or refund address is in progress for this link.',
        { details: { payment_id: open.id } },
      );
    }
    return { req, open };
  };
  // The provider call happens outside the link's transaction (never a second pooled connection while
  // one is held): validate and look for the open payment first, then ask the bridge for its transfer
  // (idempotent by payment id; an unused one is harmless), then create under the link's lock,
  // checking again.
  const pre = await transaction(async (m) => check(m, await lockLink(m, scope, linkId)));
  if (pre.open) return { payment: pre.open, created: false };
  const now = new Date();
  const quote = bridge.quote(pre.req.network, now);
  const deliveryAddress = chain.depositAddress(id);
  const transfer = await bridge.createPayIn({
    idempotencyKey: id,
    clientReference: id,
    sourceChain: pre.req.network,
    sourceAsset: pre.req.stablecoin,
    destinationChain: chain.chain,
    destinationAddress: deliveryAddress,
    destinationAsset: chain.stablecoin,
    fee: quote.fee,
  });
  const result = await transaction(async (m) => {
    const link = await lockLink(m, scope, linkId);
    const { req, open } = await check(m, link);
    if (open) return { payment: open, created: false };
    const due = totalDue({ amount: link.amount_minor, currency: link.currency, decimals: link.decimals });
    const q = grossUp(BigInt(due.total.amount), quote.fee);
    const settlementAddress = await settlementWallet(m, link);
    const expiresAt = new Date(
      Math.min(now.getTime() + cfg.paymentTtlSeconds * 1000, link.expires_at ? link.expires_at.getTime() : Number.MAX_SAFE_INTEGER),
    );
    const pay = newPaymentRow(m, {
      id,
      of: { link },
      rail: {
        kind: 'crypto_xchain',
        network: req.network,
        stablecoin: req.stablecoin,
        depositAddress: transfer.deposit_address,
        deliveryAddress,
        refundAddress: req.refundAddress,
        bridgeTransferId: transfer.id,
        amountIn: q.amountIn.toString(),
        bridgeFee: q.fee.toString(),
        quoteExpiresAt: quote.expiresAt,
      },
      due: { invoice: due.invoice.amount, fee: due.fee.amount, total: due.total.amount },
      settlement: settlementAddress ? 'wallet' : null,
      settlementAddress,
      payerEmail: input.payer_email ?? null,
      payerType: input.payer_type ?? null,
      expiresAt,
    });
    return saveNewPayment(m, link, pay, scope.request);
  });
  return result;
}

/**
 * The payer starts (or resumes) a `crypto_transfer` payment of link `input.linkId` of the scope
 * (404 `No such payment session.`; 409 `payment_link_not_payable`; spec 4.1): a direct USDC transfer on
 * the service network, with `source_chain`, `source_asset` (USDC) and an optional
 * `source_address` (domain validateTransferRequest). The live transfer payment of the link is
 * returned (`created: false`). Same ledger, fee (1%), window and watcher as the native rail
 * (workflows/payment.ts); deposit instructions carry the token address.
 */
export async function createOrReuseTransferPayment(
  scope: Scope,
  input: RailPaymentInput & { linkId: string },
): Promise<{ payment: Payment; created: boolean }> {
  const { linkId } = input;
  const cfg = loadConfig();
  const chain = chainAdapter();
  const req = validateTransferRequest({
    source_chain: input.source_chain,
    source_asset: input.source_asset,
    source_address: input.source_address,
    nativeChain: chain.chain,
  });
  const result = await transaction(async (m) => {
    const link = await lockLink(m, scope, linkId);
    const existing = await m
      .createQueryBuilder(Payment, 'p')
      .where('p.payment_link_id = :id', { id: link.id })
      .andWhere(`p.payment_rail = 'crypto_transfer'`)
      .andWhere(`p.status IN (${sqlStatusList(LIVE_PAYMENT_STATUSES)})`)
      .getOne();
    if (existing) return { payment: existing, created: false };
    const due = totalDue({ amount: link.amount_minor, currency: link.currency, decimals: link.decimals });
    const expiresAt = new Date(
      Math.min(Date.now() + cfg.paymentTtlSeconds * 1000, link.expires_at ? link.expires_at.getTime() : Number.MAX_SAFE_INTEGER),
    );
    const settlementAddress = await settlementWallet(m, link);
    const pay = newPaymentRow(m, {
      id: newId('pay_'),
      of: { link },
      rail: { kind: 'crypto_transfer', sourceChain: req.sourceChain, sourceAddress: req.sourceAddress },
      due: { invoice: due.invoice.amount, fee: due.fee.amount, total: due.total.amount },
      settlement: settlementAddress ? 'wallet' : null,
      settlementAddress,
      payerEmail: input.payer_email ?? null,
      payerType: input.payer_type ?? null,
      expiresAt,
    });
    return saveNewPayment(m, link, pay, scope.request);
  });
  return result;
}
