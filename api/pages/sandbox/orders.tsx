/**
 * A quote provider's hosted card checkout of an order, as the sandbox serves it (spec 2.10, 4.9): `/sandbox/orders/<prv_ provider order id>`, the checkout `url` of a card or
 * Apple Pay buy (providers/order-providers.ts). Shows the amount, the provider and the provider's
 * state of the order; while it awaits payment its SANDBOX buttons play the provider as
 * `POST /sim/providers/orders/{id}` does (api/sim-actions.ts, the order's workflow woken after each):
 * - pay: `capture` then `complete` (the card is charged and the provider delivers at once);
 * - payment fails: `fail` with `failure_kind` `payment_declined`;
 * - abandon: the provider expires the unpaid order as at the end of the checkout window
 *   (`abandonOrderCheckout`: the order fails `payment_expired`, a hold released).
 * Past the checkout's deadline it can no longer be paid. A closed order has no buttons; an unknown
 * provider order, or one without a hosted checkout, is the 404 page.
 */
import type Router from '@koa/router';
import { conflict, invalidRequest, notFound } from '../../../domain/errors';
import { currencyDecimals } from '../../../domain/money';
import type { ProviderOrderReport } from '../../../domain/orders';
import { Order } from '../../../entities';
import { db } from '../../../lib/db';
import { orderProviders } from '../../../providers/order-providers';
import { quoteProvider } from '../../../providers/quote-providers';
import type { AppState } from '../../context';
import { abandonOrderCheckout, actOnOrder } from '../../sim-actions';
import { pageContext, sendPage, type PageContext } from '../render';
import { postedAction, runAction, SandboxActions, SandboxPage, StateNotice, type Ctx, type SandboxButton } from './parts';

const PAYABLE = new Set<ProviderOrderReport['state']>(['awaiting_payment', 'authorized']);

interface HostedOrder {
  providerOrderId: string;
  orderId: string;
  providerName: string;
  report: ProviderOrderReport;
  expiresAt: Date;
  paymentMethod: string;
  amount: { amount: string; currency: string; decimals: number };
}

async function loadOrder(ctx: Ctx): Promise<HostedOrder> {
  const found = await orderProviders().byProviderOrderId(ctx.params.id);
  const order = found?.placement.checkout ? await db().getRepository(Order).findOneBy({ id: found.orderId }) : null;
  if (!found?.placement.checkout || !order) throw notFound('No such checkout.');
  return {
    providerOrderId: ctx.params.id,
    orderId: found.orderId,
    providerName: quoteProvider(found.provider)?.name ?? found.provider,
    report: found.report,
    expiresAt: found.placement.checkout.expiresAt,
    paymentMethod: order.payment_method,
    amount: { amount: order.final_in_minor, currency: order.from_asset, decimals: currencyDecimals(order.from_asset) },
  };
}

/** What each button does to order `orderId`. */
const ACTIONS: Readonly<Record<string, (orderId: string) => Promise<void>>> = {
  pay: async (id) => {
    await actOnOrder(id, 'capture');
    await actOnOrder(id, 'complete');
  },
  fail: async (id) => {
    await actOnOrder(id, 'fail', { failureKind: 'payment_declined' });
  },
  abandon: async (id) => {
    await abandonOrderCheckout(id);
  },
};

function OrderCheckoutPage(p: { pc: PageContext; o: HostedOrder; refused?: string }) {
  const { pc, o } = p;
  const c = pc.locale.copy.sandbox;
  const open = PAYABLE.has(o.report.state);
  const timedOut = open && o.expiresAt.getTime() <= Date.now();
  const buttons: SandboxButton[] = !open
    ? []
    : [
        ...(timedOut ? [] : [{ value: 'pay', label: c.order.pay }]),
        { value: 'fail', label: c.order.fail },
        { value: 'abandon', label: c.order.abandon },
      ];
  const state = c.order.states[o.report.state] ?? o.report.state;
  const tone = o.report.state === 'completed' || o.report.state === 'captured' ? 'ok' : open ? 'info' : 'bad';
  return (
    <SandboxPage pc={pc} title={c.order.title} refused={p.refused}>
      <p class="amount">{pc.locale.money(o.amount)}</p>
      <dl class="kv">
        <div>
          <dt>{c.order.provider}</dt>
          <dd>{o.providerName}</dd>
        </div>
        <div>
          <dt>{c.order.method}</dt>
          <dd>{c.order.methods[o.paymentMethod] ?? o.paymentMethod}</dd>
        </div>
        <div>
          <dt>{c.order.state}</dt>
          <dd class="status">{state}</dd>
        </div>
        {open ? (
          <div>
            <dt>{c.expiresAt}</dt>
            <dd>{pc.locale.dateTime(o.expiresAt.toISOString())}</dd>
          </div>
        ) : null}
      </dl>
      <StateNotice tone={tone} text={c.order.done(state)} />
      {timedOut ? <p class="notice warn">{c.order.timedOut}</p> : null}
      <SandboxActions pc={pc} action={`/sandbox/orders/${o.providerOrderId}`} hint={c.order.payHint} buttons={buttons} />
    </SandboxPage>
  );
}

/** Mounts `/sandbox/orders/:id` (GET the hosted checkout, POST `action` pay | fail | abandon). */
export function mountOrderPages(router: Router<AppState>): void {
  router.get('/sandbox/orders/:id', async (ctx) => {
    sendPage(ctx, <OrderCheckoutPage pc={pageContext(ctx)} o={await loadOrder(ctx)} />);
  });

  router.post('/sandbox/orders/:id', async (ctx) => {
    const o = await loadOrder(ctx);
    const act = ACTIONS[postedAction(ctx)];
    if (!act) throw invalidRequest('parameter_invalid', 'Unknown action.', 'action');
    await runAction(
      ctx,
      `/sandbox/orders/${o.providerOrderId}`,
      async () => {
        // The page offers these only while the checkout is open (and pay only before its deadline).
        if (!PAYABLE.has(o.report.state)) throw conflict('sim_action_refused', `The provider's order is ${o.report.state}.`);
        if (act === ACTIONS.pay && o.expiresAt.getTime() <= Date.now())
          throw conflict('sim_action_refused', 'The checkout has passed its deadline.');
        await act(o.orderId);
      },
      async (refused, status) => {
        sendPage(ctx, <OrderCheckoutPage pc={pageContext(ctx)} o={await loadOrder(ctx)} refused={refused} />, status);
      },
    );
  });
}
