/**
 * Routes of the payer's page, on the same commands as the payer session routes
 * of spec 4.1 (api/routes/payer-sessions.ts) and validated by the same joi schemas:
 * - `GET /pay/:token`: the page; the first open records the view (`POST .../view` semantics);
 * - `GET /p/:code`: resolves the short code and redirects (303) to the token page, the one URL of
 *   the session (docs/decisions/0056-the-pages-a-person-opens.md);
 * - `POST /pay/:token/payments` (`rail` and its inputs), `/mark_sent`, `/receipt_email`: a form,
 *   then 303 back to the page, or the page again with the spec's error next to its field;
 * - `POST /pay/:token/wallet`: the unsigned transfer for an injected EIP-1193 wallet (JSON, script only);
 * - `POST /pay/:token/sandbox_wallet` (simulator on): pay from a sandbox wallet (`from_address`: the
 *   sandbox payer wallet the page offers, or a registered wallet typed in), signed as
 *   `POST /sim/wallet/sign` signs;
 * - `GET /pay/:token/live`: `{ state, html }` of `<main>` for the live refresh.
 */
import type Router from '@koa/router';
import type Koa from 'koa';
import { DomainError, invalidRequest } from '../../../domain/errors';
import { recordView, sendPayerReceipt } from '../../../activities/payment-links/commands';
import { linkByPayerToken, linkByShortCode } from '../../../activities/payment-links/queries';
import { markSent, startPayerPayment, type PayerPaymentInput } from '../../../activities/payments/commands';
import { payWithWallet } from '../../../activities/payments/pay-with-wallet';
import { systemScope, type Scope } from '../../../activities/scope';
import type { PaymentLink } from '../../../entities';
import { loadConfig } from '../../../lib/config';
import { chainAdapter } from '../../../providers/chain';
import { SANDBOX_PAYER_WALLET, signTransaction, SignRefused } from '../../../providers/wallet-sends';
import { unsignedTransactionView } from '../../../views/wallet-sends';
import type { AppState } from '../../context';
import { validate } from '../../operation';
import { createPaymentBody, receiptEmailBody } from '../../schemas/payment-sessions';
import { emptyForm, formFields, refusal, type FormState } from '../forms';
import { pageContext, renderFragment, sendPage } from '../render';
import { loadPayerPage, loadPayerPageOf, stateKey, type PayerPageData } from './model';
import { PayerDocument, PayerMain, type PayerView } from './page';

type Ctx = Koa.ParameterizedContext<AppState>;

const requestRef = (ctx: Ctx) => ({ id: ctx.state.requestId, idempotency_key: null });
/** The scope of a payer's request on `link` (the token is the capability: no caller). */
const payerScope = (link: PaymentLink, ctx: Ctx): Scope => systemScope(link.account_id, link.livemode, requestRef(ctx));
const pageUrl = (token: string) => `/pay/${token}`;

function viewOf(ctx: Ctx, extra: Partial<PayerView> = {}): PayerView {
  const rail = typeof ctx.query.rail === 'string' ? ctx.query.rail : null;
  return {
    rail,
    choosing: ctx.query.choose === '1',
    form: emptyForm(),
    nativeChain: chainAdapter().chain,
    sandboxWallet: loadConfig().simulatorEnabled ? SANDBOX_PAYER_WALLET : null,
    notice: ctx.query.receipt === 'sent' ? pageContext(ctx).locale.copy.pay.receipt.sent : undefined,
    ...extra,
  };
}

function render(ctx: Ctx, d: PayerPageData, view: PayerView, status = 200): void {
  sendPage(ctx, <PayerDocument d={d} pc={pageContext(ctx)} view={view} />, status);
}

/** Runs `act` for a form of the page: 303 back on success; on a refusal the page with the error in place. */
async function formAction(
  ctx: Ctx,
  formName: string,
  act: (fields: Record<string, string>, token: string) => Promise<void>,
  paramToField: Record<string, string> = {},
  rail?: string,
): Promise<void> {
  const token = ctx.params.token;
  await linkByPayerToken(token); // unknown token: the 404 page before anything is read
  const fields = formFields((ctx.request as { body?: unknown }).body);
  try {
    await act(fields, token);
  } catch (e) {
    const f: FormState & { status: number } = refusal(e, fields, paramToField);
    const d = await loadPayerPage(token);
    render(ctx, d, viewOf(ctx, { form: f, formName, rail: rail ?? fields.rail ?? null, choosing: formName === 'payments' }), f.status);
    return;
  }
  ctx.status = 303;
  ctx.redirect(pageUrl(token));
}

/** Mounts the payer's page routes on the pages router. */
export function mountPayerPages(router: Router<AppState>): void {
  router.get('/pay/:token', async (ctx) => {
    let link = await linkByPayerToken(ctx.params.token);
    if (!link.viewed_at) link = await recordView(payerScope(link, ctx), { id: link.id });
    render(ctx, await loadPayerPageOf(link, ctx.params.token), viewOf(ctx));
  });

  router.get('/p/:code', async (ctx) => {
    const link = await linkByShortCode(ctx.params.code);
    ctx.status = 303;
    ctx.redirect(pageUrl(link.payer_token));
  });

  router.get('/pay/:token/live', async (ctx) => {
    const d = await loadPayerPage(ctx.params.token);
    ctx.type = 'application/json';
    ctx.body = { state: stateKey(d), html: renderFragment(<PayerMain d={d} pc={pageContext(ctx)} view={viewOf(ctx)} />) };
  });

  router.post('/pay/:token/payments', (ctx) =>
    formAction(ctx, 'payments', async (fields, token) => {
      const body = validate<PayerPaymentInput>(createPaymentBody, fields, 'body');
      const link = await linkByPayerToken(token);
      await startPayerPayment(payerScope(link, ctx), { ...body, link });
    }),
  );

  router.post('/pay/:token/mark_sent', (ctx) =>
    formAction(ctx, 'mark_sent', async (fields, token) => {
      const link = await linkByPayerToken(token);
      await markSent(payerScope(link, ctx), { linkId: link.id, paymentId: fields.payment_id ?? null });
    }),
  );

  router.post('/pay/:token/receipt_email', async (ctx) => {
    await formAction(ctx, 'receipt', async (fields, token) => {
      const body = validate<{ email: string }>(receiptEmailBody, fields, 'body');
      const link = await linkByPayerToken(token);
      await sendPayerReceipt(payerScope(link, ctx), { link, email: body.email });
    });
    if (ctx.status === 303) ctx.redirect(`${pageUrl(ctx.params.token)}?receipt=sent`);
  });

  router.post('/pay/:token/wallet', async (ctx) => {
    const link = await linkByPayerToken(ctx.params.token);
    const fields = formFields((ctx.request as { body?: unknown }).body);
    ctx.type = 'application/json';
    try {
      const out = await payWithWallet(payerScope(link, ctx), { link, from_address: fields.from_address ?? '' });
      ctx.body = { payment_id: out.payment.id, unsigned_transaction: unsignedTransactionView(out.transaction) };
    } catch (e) {
      const f = refusal(e, fields);
      ctx.status = f.status;
      ctx.body = { error: { message: f.formError ?? Object.values(f.errors)[0], param: Object.keys(f.errors)[0] ?? null } };
    }
  });

  if (loadConfig().simulatorEnabled) {
    router.post('/pay/:token/sandbox_wallet', (ctx) =>
      formAction(
        ctx,
        'wallet',
        async (fields, token) => {
          if (!fields.from_address) throw invalidRequest('parameter_missing', 'Enter the address of a sandbox wallet.', 'from_address');
          const link = await linkByPayerToken(token);
          const out = await payWithWallet(payerScope(link, ctx), { link, from_address: fields.from_address });
          const tx = out.transaction;
          try {
            await signTransaction({ from: tx.from, chain_id: tx.chain_id, to: tx.to, data: tx.data });
          } catch (e) {
            if (!(e instanceof SignRefused)) throw e;
            throw new DomainError(e.code === 'wallet_not_found' ? 'not_found' : 'invalid_request', e.code, e.message, {
              param: 'from_address',
            });
          }
        },
        { from: 'from_address' },
        'crypto_native',
      ),
    );
  }
}
