/**
 * Activity tier, orders (activities/orders, `orderWorkflowActivities.advanceOrder`): the order
 * workflow's poll step at a chosen workflow time, in MockActivityEnvironment on real PostgreSQL
 * with the sandbox quote and order providers. Proves the decisions (done, the wake time: the
 * ten-minute poll capped by the checkout deadline, and `waiting_for`), the provider's expiry at
 * the deadline (failed `payment_expired` with `order.failed`), capture and delivery applied with
 * their events, placement of an order left unplaced (idempotent by the order id), and that a
 * repeated step on a finished order writes nothing.
 */
import crypto from 'node:crypto';
import { provisionAccount } from '../../activities/accounts/commands';
import { orderWorkflowActivities } from '../../activities/orders/activities';
import { createOrder } from '../../activities/orders/commands';
import { createQuote } from '../../activities/orders/quotes';
import { db } from '../../lib/db';
import { orderProviders } from '../../providers/order-providers';
import { callsFor, count, describeWithDb, eventTypes, row, runActivity, testRequest, useActivityTier } from '../helpers/activity-env';
import { systemScope } from '../../activities/scope';

const { advanceOrder } = orderWorkflowActivities;
const POLL_MS = 10 * 60_000;

/** A card buy of 300 USD of USDC on base at rampline, placed (awaiting the payer's hosted checkout). */
async function cardOrder() {
  const creds = await provisionAccount();
  const ctx = systemScope(creds.account_id, true, testRequest);
  const q = await createQuote(ctx, {
    side: 'buy',
    from_asset: 'USD',
    to_asset: 'USDC',
    from_amount: '300.00',
    to_network: 'base',
    payment_method: 'card',
    headers: {},
  });
  const offer = q.offers.find((o) => o.provider === 'rampline')!;
  const o = await createOrder(ctx, { offer_id: offer.id, wallet_address: `0x${crypto.randomBytes(20).toString('hex')}` });
  return { id: o.id, checkoutMs: o.checkout_expires_at!.getTime() };
}

describeWithDb('order activities', () => {
  useActivityTier();

  test('awaiting the payer: not done; the next look is the ten-minute poll, or the checkout deadline when that comes first; waiting_for names it', async () => {
    const o = await cardOrder();
    expect(callsFor(o.id)).toEqual(['signalWithStart:update']);
    const now = Date.now();
    expect(await runActivity(advanceOrder, o.id, now)).toEqual({
      done: false,
      status: 'awaiting_payment',
      wakeAtMs: now + POLL_MS,
      waitingFor: `the payer to pay the rampline order (card until ${new Date(o.checkoutMs).toISOString()})`,
    });
    expect((await runActivity(advanceOrder, o.id, o.checkoutMs - 60_000)).wakeAtMs).toBe(o.checkoutMs);
    expect(await eventTypes(o.id)).toEqual(['order.created', 'order.status_changed']);
  });

  test('at the checkout deadline unpaid: the provider expires it -> failed payment_expired (order.status_changed, order.failed), done; a repeated step writes nothing', async () => {
    const o = await cardOrder();
    expect(await runActivity(advanceOrder, o.id, o.checkoutMs)).toMatchObject({
      done: true,
      status: 'failed',
      waitingFor: 'nothing (failed)',
    });
    expect(await row('orders', o.id)).toMatchObject({ status: 'failed', failure_kind: 'payment_expired', money_state: 'never_authorized' });
    const types = await eventTypes(o.id);
    expect(types.slice(-2)).toEqual(['order.status_changed', 'order.failed']);
    expect(await runActivity(advanceOrder, o.id, o.checkoutMs + 1)).toMatchObject({ done: true, status: 'failed' });
    expect(await eventTypes(o.id)).toEqual(types);
  });

  test('captured: processing, waiting for the delivery (the deadline no longer applies); delivered: completed with the delivery tx hash, done', async () => {
    const o = await cardOrder();
    await orderProviders().act(o.id, 'capture', {});
    const p = await runActivity(advanceOrder, o.id, o.checkoutMs + 60_000);
    expect(p).toMatchObject({ done: false, status: 'processing', wakeAtMs: o.checkoutMs + 60_000 + POLL_MS });
    expect(p.waitingFor).toMatch(/^the provider rampline to deliver \(money /);
    await orderProviders().act(o.id, 'complete', {});
    expect(await runActivity(advanceOrder, o.id, Date.now())).toMatchObject({ done: true, status: 'completed' });
    const r = await row('orders', o.id);
    expect(r.destination.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await eventTypes(o.id)).filter((t) => t === 'order.status_changed')).toHaveLength(3);
  });

  test('an order left pending without a provider order (placement lost): the step places it, idempotent by the order id (one provider order)', async () => {
    const o = await cardOrder();
    const first = (await row('orders', o.id)).provider_order_id;
    await db().query(`UPDATE orders SET status = 'pending', provider_order_id = NULL WHERE id = $1`, [o.id]);
    expect(await runActivity(advanceOrder, o.id, Date.now())).toMatchObject({ done: false, status: 'awaiting_payment' });
    expect((await row('orders', o.id)).provider_order_id).toBe(first);
    expect(await count('sandbox_provider_orders', 'order_id = $1', [o.id])).toBe(1);
  });
});
