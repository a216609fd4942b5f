/**
 * Payer session routes (spec 4.1 "Payer session routes"): public capability token `plk_...`, no key,
 * dispatched before authentication, no Idempotency-Key (idempotent by the handlers themselves).
 * A test-mode link token is 404 here. `pay_with_wallet` belongs to the wallet issue.
 */
import Router from '@koa/router';
import Joi from 'joi';
import type Koa from 'koa';
import { DomainError } from '../../domain/errors';
import { normalizeShortCode } from '../../domain/ids';
import { RAILS_CLOSED, computePayableRails } from '../../domain/rails';
import { Account, Payment, PaymentLink } from '../../entities';
import { createOrReuseNativePayment, markSent, recordView } from '../../activities/payins';
import { db } from '../../lib/db';
import { emailProvider } from '../../providers/email';
import type { AppState } from '../context';
import { validate } from '../operation';
import { executableRails } from '../rails-availability';
import { payerPaymentView } from '../views/payment';
import { payerSessionView } from '../views/payer-session';

const PAYER_RAILS = [...RAILS_CLOSED, 'crypto_transfer'];

const createPaymentBody = Joi.object({
  rail: Joi.string().valid(...PAYER_RAILS).required(),
  payer_type: Joi.string().valid('individual', 'business'),
  payer_state: Joi.string().pattern(/^[A-Z]{2}$/),
  payer_email: Joi.string().email({ tlds: { allow: false } }),
  network: Joi.string(),
  stablecoin: Joi.string(),
  refund_address: Joi.string(),
  source_chain: Joi.string(),
  source_asset: Joi.string(),
  source_address: Joi.string(),
});

function notFound(): DomainError {
  return new DomainError('not_found', 'not_found', 'No such payment session.');
}

async function linkByToken(token: string): Promise<PaymentLink> {
  if (!/^plk_[A-Za-z0-9]+$/.test(token)) throw notFound();
  const link = await db().getRepository(PaymentLink).findOneBy({ payer_token: token });
  if (!link || !link.livemode) throw notFound();
  return link;
}

async function session(link: PaymentLink): Promise<Record<string, unknown>> {
  const [account, current, rails] = await Promise.all([
    db().getRepository(Account).findOneByOrFail({ id: link.account_id }),
    db().getRepository(Payment).createQueryBuilder('p').where('p.payment_link_id = :id', { id: link.id }).orderBy('p.created_at', 'DESC').getOne(),
    executableRails(link.account_id),
  ]);
  return payerSessionView({ link, account, current: current ?? null, executableRails: rails });
}

function requestRef(ctx: Koa.ParameterizedContext<AppState>) {
  return { id: ctx.state.requestId, idempotency_key: null };
}

/** Router for `/v1/payment_sessions/...` (mounted before authentication). */
export function payerRouter(): Router<AppState> {
  const r = new Router<AppState>({ prefix: '/v1/payment_sessions' });

  r.get('/by_code/:code', async (ctx) => {
    const code = normalizeShortCode(ctx.params.code);
    if (!code) throw notFound();
    const link = await db().getRepository(PaymentLink).findOneBy({ short_code: code });
    if (!link || !link.livemode || !link.payer_token) throw notFound();
    ctx.body = { ...(await session(link)), token: link.payer_token };
  });

  r.get('/:token', async (ctx) => {
    ctx.body = await session(await linkByToken(ctx.params.token));
  });

  r.post('/:token/view', async (ctx) => {
    validate(undefined, (ctx.request as { body?: unknown }).body ?? {}, 'body');
    const link = await linkByToken(ctx.params.token);
    ctx.body = await session(await recordView(link.id, requestRef(ctx)));
  });

  r.post('/:token/payments', async (ctx) => {
    const body = validate<{ rail: string; payer_email?: string; payer_type?: string }>(createPaymentBody, (ctx.request as { body?: unknown }).body ?? {}, 'body');
    const link = await linkByToken(ctx.params.token);
    const payable = computePayableRails({
      status: link.status, currency: link.currency, allowedRails: link.allowed_rails, cryptoOnly: link.crypto_only,
      settlementKind: link.settlement_kind, expectedPayerType: link.expected_payer_type_input, executableRails: await executableRails(link.account_id),
    });
    if (['paid', 'settled', 'cancelled', 'expired', 'refunded', 'draft'].includes(link.status)) {
      throw new DomainError('conflict', 'payment_link_not_payable', `This payment link is ${link.status} and takes no payment.`);
    }
    if (!payable.includes(body.rail)) {
      throw new DomainError('invalid_request', 'rail_not_allowed', `The rail \`${body.rail}\` is not available for this payment.`, { param: 'rail', details: { rails: payable } });
    }
    // Only the native rail is payable in this build (executableRails); other rails never reach here.
    const { payment, created } = await createOrReuseNativePayment(link.id, { payerEmail: body.payer_email ?? null, payerType: body.payer_type ?? null }, requestRef(ctx));
    ctx.status = created ? 201 : 200;
    ctx.body = payerPaymentView(payment);
  });

  r.get('/:token/payments/:paymentId', async (ctx) => {
    const link = await linkByToken(ctx.params.token);
    const p = await db().getRepository(Payment).findOneBy({ id: ctx.params.paymentId, payment_link_id: link.id });
    if (!p) throw new DomainError('not_found', 'not_found', `No such payment: ${ctx.params.paymentId}.`, { param: 'payment_id' });
    ctx.body = payerPaymentView(p);
  });

  r.post('/:token/mark_sent', async (ctx) => {
    const body = validate<{ payment_id?: string }>(Joi.object({ payment_id: Joi.string().pattern(/^pay_[A-Za-z0-9]+$/) }), (ctx.request as { body?: unknown }).body ?? {}, 'body');
    const link = await linkByToken(ctx.params.token);
    const p = await markSent(link.id, body.payment_id ?? null, requestRef(ctx));
    ctx.body = { ...payerPaymentView(p), authoritative: false };
  });

  r.post('/:token/receipt_email', async (ctx) => {
    const body = validate<{ email: string }>(Joi.object({ email: Joi.string().email({ tlds: { allow: false } }).required() }), (ctx.request as { body?: unknown }).body ?? {}, 'body');
    const link = await linkByToken(ctx.params.token);
    if (link.status !== 'paid' && link.status !== 'settled') {
      throw new DomainError('conflict', 'payment_link_not_paid', 'A receipt exists only once the payment link is paid.');
    }
    const account = await db().getRepository(Account).findOneByOrFail({ id: link.account_id });
    const paid = await db().getRepository(Payment).createQueryBuilder('p').where('p.payment_link_id = :id', { id: link.id })
      .andWhere(`p.status IN ('paid','overpaid','settled')`).orderBy('p.paid_at', 'DESC').getOne();
    const sent = await emailProvider().send({
      to: body.email, template: 'payment_receipt', accountId: link.account_id, relatedObjectId: link.id,
      subject: `Receipt from ${account.display_name}: ${link.title}`,
      body: `Paid ${link.reference_id} (${link.title}). Amount received: ${paid?.amount_received_minor ?? '0'} minor units of ${paid?.currency ?? 'USDC'}. Transaction: ${paid?.onchain_tx_hash ?? 'n/a'}.`,
      idempotencyKey: `receipt:${link.id}:${body.email.toLowerCase()}`,
    });
    ctx.status = 202;
    ctx.body = { object: 'receipt_email', status: 'sent', email_id: sent.id, to: body.email };
  });

  return r;
}
