/**
 * Payer session routes (spec 4.1 "Payer session routes"): public capability token `plk_...`, no key,
 * dispatched before authentication, no Idempotency-Key (idempotent by the handlers themselves).
 * A test-mode link token is 404 here. `pay_with_wallet` builds the native-rail transfer a payer's
 * wallet signs (activities/payments/pay-with-wallet.ts).
 */
import Router from '@koa/router';
import Joi from '../schemas/joi';
import type Koa from 'koa';
import type { PaymentLink } from '../../entities';
import { recordView, sendPayerReceipt } from '../../activities/payment-links/commands';
import { linkByPayerToken, linkByShortCode, payerSessionInputs } from '../../activities/payment-links/queries';
import { markSent, startPayerPayment } from '../../activities/payments/commands';
import { systemScope, type Scope } from '../../activities/scope';
import { payWithWallet } from '../../activities/payments/pay-with-wallet';
import { getPayerPayment, paymentChain } from '../../activities/payments/queries';
import type { AppState } from '../context';
import { mountPublic } from '../operation';
import { createPaymentBody, receiptEmailBody } from '../schemas/payment-sessions';
import { payerPaymentResponse, payerPaymentView } from '../../views/payment';
import { unsignedTransactionResponse, unsignedTransactionView } from '../../views/wallet-sends';
import { documentedAs, evmAddressDocument } from '../schemas/common';
import { payerSessionResponse, payerSessionView, receiptEmailResponse } from '../../views/payer-session';

/** The payer session projection of `link` (views/payer-session.ts). */
async function session(link: PaymentLink): Promise<Record<string, unknown>> {
  return payerSessionView(await payerSessionInputs(link));
}

function requestRef(ctx: Koa.ParameterizedContext<AppState>) {
  return { id: ctx.state.requestId, idempotency_key: null };
}

/** The scope of a payer's request on `link` (the token is the capability: no caller; no Idempotency-Key). */
function payerScope(link: PaymentLink, ctx: Koa.ParameterizedContext<AppState>): Scope {
  return systemScope(link.account_id, link.livemode, requestRef(ctx));
}

/** Router for `/v1/payment_sessions/...` (mounted before authentication; operations declared with `mountPublic`). */
export function payerRouter(): Router<AppState> {
  const r = new Router<AppState>({ prefix: '/v1' });

  mountPublic(r, {
    id: 'payment_sessions.get_by_code',
    method: 'get',
    path: '/payment_sessions/by_code/:code',
    summary: 'Resolve a short code to the payer session (adds its `token`).',
    response: payerSessionResponse.keys({ token: Joi.string().required() }),
    handler: async ({ params }) => {
      const link = await linkByShortCode(params.code);
      return { ...(await session(link)), token: link.payer_token };
    },
  });

  mountPublic(r, {
    id: 'payment_sessions.get',
    method: 'get',
    path: '/payment_sessions/:token',
    summary: 'The payer projection of a payment link.',
    response: payerSessionResponse,
    handler: async ({ params }) => session(await linkByPayerToken(params.token)),
  });

  mountPublic(r, {
    id: 'payment_sessions.view',
    method: 'post',
    path: '/payment_sessions/:token/view',
    summary: 'Record that the payer opened the link (first view moves it to `viewed`).',
    response: payerSessionResponse,
    handler: async ({ params, ctx }) => {
      const link = await linkByPayerToken(params.token);
      return session(await recordView(payerScope(link, ctx), { id: link.id }));
    },
  });

  mountPublic(r, {
    id: 'payment_sessions.payments.create',
    method: 'post',
    path: '/payment_sessions/:token/payments',
    summary: 'Start (or return the live) payment attempt on a rail, with deposit instructions.',
    body: createPaymentBody,
    successStatus: 201,
    otherSuccessStatuses: [200],
    errors: [409],
    response: payerPaymentResponse,
    handler: async ({ params, body, ctx }) => {
      const link = await linkByPayerToken(params.token);
      const { payment, created } = await startPayerPayment(payerScope(link, ctx), { ...body, link });
      ctx.status = created ? 201 : 200;
      return payerPaymentView(payment, paymentChain());
    },
  });

  mountPublic(r, {
    id: 'payment_sessions.payments.get',
    method: 'get',
    path: '/payment_sessions/:token/payments/:payment_id',
    summary: 'One payment attempt of this payer session.',
    response: payerPaymentResponse,
    handler: async ({ params, ctx }) => {
      const link = await linkByPayerToken(params.token);
      return payerPaymentView(await getPayerPayment(payerScope(link, ctx), { linkId: link.id, id: params.payment_id }), paymentChain());
    },
  });

  mountPublic(r, {
    id: 'payment_sessions.mark_sent',
    method: 'post',
    path: '/payment_sessions/:token/mark_sent',
    summary: "The payer's non-authoritative claim that the funds were sent.",
    body: Joi.object({ payment_id: Joi.string().pattern(/^pay_[A-Za-z0-9]+$/) }),
    errors: [409],
    response: payerPaymentResponse.keys({ authoritative: Joi.boolean().valid(false).required() }),
    handler: async ({ params, body, ctx }) => {
      const link = await linkByPayerToken(params.token);
      const p = await markSent(payerScope(link, ctx), { linkId: link.id, paymentId: body.payment_id ?? null });
      return { ...payerPaymentView(p, paymentChain()), authoritative: false };
    },
  });

  mountPublic(r, {
    id: 'payment_sessions.pay_with_wallet',
    method: 'post',
    path: '/payment_sessions/:token/pay_with_wallet',
    summary:
      "Pay from a holder wallet on the native rail: starts (or returns the live) native payment and the unsigned transfer of exactly what is due to its deposit address, for the payer's passkey to sign.",
    body: Joi.object({
      // The zero address is refused (`400 parameter_invalid`): stated as `not`.
      from_address: documentedAs(Joi.string().max(100), { ...evmAddressDocument, not: { pattern: '^0x0{40}$' } }).required(),
      payer_type: Joi.string().valid('individual', 'business'),
      payer_email: Joi.string().email({ tlds: { allow: false } }),
    }),
    successStatus: 201,
    otherSuccessStatuses: [200],
    errors: [409],
    response: Joi.object({
      object: Joi.string().valid('wallet_payment').required(),
      payment: payerPaymentResponse.required(),
      unsigned_transaction: unsignedTransactionResponse.required(),
    }),
    handler: async ({ params, body, ctx }) => {
      const link = await linkByPayerToken(params.token);
      const out = await payWithWallet(payerScope(link, ctx), {
        link,
        from_address: body.from_address,
        payer_email: body.payer_email,
        payer_type: body.payer_type,
      });
      ctx.status = out.created ? 201 : 200;
      return {
        object: 'wallet_payment',
        payment: payerPaymentView(out.payment, paymentChain()),
        unsigned_transaction: unsignedTransactionView(out.transaction),
      };
    },
  });

  mountPublic(r, {
    id: 'payment_sessions.receipt_email',
    method: 'post',
    path: '/payment_sessions/:token/receipt_email',
    summary: 'Email the receipt of a paid link to the payer.',
    body: receiptEmailBody,
    successStatus: 202,
    errors: [409],
    response: receiptEmailResponse,
    handler: async ({ params, body, ctx }) => {
      const link = await linkByPayerToken(params.token);
      const { emailId } = await sendPayerReceipt(payerScope(link, ctx), { link, email: body.email });
      return { object: 'receipt_email', status: 'sent', email_id: emailId, to: body.email };
    },
  });

  return r;
}
