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
import { createOrReuseNativePayment, markSent, recordView } from '../../activities/payments/activities';
import { db } from '../../lib/db';
import { emailProvider } from '../../providers/email';
import type { AppState } from '../context';
import { mountPublic } from '../operation';
import { executableRails } from '../../lib/rails-availability';
import { payerPaymentResponse, payerPaymentView } from '../../views/payment';
import { payerSessionResponse, payerSessionView, receiptEmailResponse } from '../../views/payer-session';

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

/** Router for `/v1/payment_sessions/...` (mounted before authentication; operations declared with `mountPublic`). */
export function payerRouter(): Router<AppState> {
  const r = new Router<AppState>({ prefix: '/v1' });

  mountPublic(r, {
    id: 'payment_sessions.get_by_code', method: 'get', path: '/payment_sessions/by_code/:code',
    summary: 'Resolve a short code to the payer session (adds its `token`).',
    response: payerSessionResponse.keys({ token: Joi.string().required() }),
    handler: async ({ params }) => {
      const code = normalizeShortCode(params.code);
      if (!code) throw notFound();
      const link = await db().getRepository(PaymentLink).findOneBy({ short_code: code });
      if (!link || !link.livemode || !link.payer_token) throw notFound();
      return { ...(await session(link)), token: link.payer_token };
    },
  });

  mountPublic(r, {
    id: 'payment_sessions.get', method: 'get', path: '/payment_sessions/:token',
    summary: 'The payer projection of a payment link.',
    response: payerSessionResponse,
    handler: async ({ params }) => session(await linkByToken(params.token)),
  });

  mountPublic(r, {
    id: 'payment_sessions.view', method: 'post', path: '/payment_sessions/:token/view',
    summary: 'Record that the payer opened the link (first view moves it to `viewed`).',
    response: payerSessionResponse,
    handler: async ({ params, ctx }) => {
      const link = await linkByToken(params.token);
      return session(await recordView(link.id, requestRef(ctx)));
    },
  });

  mountPublic(r, {
    id: 'payment_sessions.payments.create', method: 'post', path: '/payment_sessions/:token/payments',
    summary: 'Start (or return the live) payment attempt on a rail, with deposit instructions.',
    body: createPaymentBody, successStatus: 201, otherSuccessStatuses: [200], errors: [409],
    response: payerPaymentResponse,
    handler: async ({ params, body, ctx }) => {
      const link = await linkByToken(params.token);
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
      return payerPaymentView(payment);
    },
  });

  mountPublic(r, {
    id: 'payment_sessions.payments.get', method: 'get', path: '/payment_sessions/:token/payments/:payment_id',
    summary: 'One payment attempt of this payer session.',
    response: payerPaymentResponse,
    handler: async ({ params }) => {
      const link = await linkByToken(params.token);
      const p = await db().getRepository(Payment).findOneBy({ id: params.payment_id, payment_link_id: link.id });
      if (!p) throw new DomainError('not_found', 'not_found', `No such payment: ${params.payment_id}.`, { param: 'payment_id' });
      return payerPaymentView(p);
    },
  });

  mountPublic(r, {
    id: 'payment_sessions.mark_sent', method: 'post', path: '/payment_sessions/:token/mark_sent',
    summary: 'The payer\'s non-authoritative claim that the funds were sent.',
    body: Joi.object({ payment_id: Joi.string().pattern(/^pay_[A-Za-z0-9]+$/) }), errors: [409],
    response: payerPaymentResponse.keys({ authoritative: Joi.boolean().valid(false).required() }),
    handler: async ({ params, body, ctx }) => {
      const link = await linkByToken(params.token);
      const p = await markSent(link.id, body.payment_id ?? null, requestRef(ctx));
      return { ...payerPaymentView(p), authoritative: false };
    },
  });

  mountPublic(r, {
    id: 'payment_sessions.receipt_email', method: 'post', path: '/payment_sessions/:token/receipt_email',
    summary: 'Email the receipt of a paid link to the payer.',
    body: Joi.object({ email: Joi.string().email({ tlds: { allow: false } }).required() }), successStatus: 202, errors: [409],
    response: receiptEmailResponse,
    handler: async ({ params, body }) => {
      const link = await linkByToken(params.token);
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
      return { object: 'receipt_email', status: 'sent', email_id: sent.id, to: body.email };
    },
  });

  return r;
}
