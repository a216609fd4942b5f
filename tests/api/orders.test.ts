/**
 * Orders (spec 2.10, 4.9; issue 16) over HTTP against the shared stack, the provider played
 * through `POST /sim/providers/orders/{id}`: a card buy through a hosted checkout (hold, capture,
 * delivery with a tx hash), a bank buy at the native provider (full receiving details, the rail
 * published, cancel), a sell with a self-custody deposit that fails after capture and is refunded
 * (return_reason), single-use and expired offers, the fallback to the next offer when a provider
 * is out (`offer_selection`), cancel refusals and outages, a link pay-in order, the checkout expiry,
 * the terms gate and the `order.*` events.
 */
import crypto from 'node:crypto';
import { advanceOrder } from '../../activities/orders/activities';
import { db } from '../../lib/db';
import { setSwitch } from '../../lib/switches';
import { call, client, connectDb, eventually, expectError, expectOk, idem, newAccount } from '../helpers/api';
import { bankDestination } from '../helpers/bank';
import type { DevCredentials } from '../../activities/accounts/commands';

let creds: DevCredentials;
let key: ReturnType<typeof client>;

beforeAll(async () => {
  await connectDb();
  creds = await newAccount();
  key = client(creds.live_key);
});

const evm = () => `0x${crypto.randomBytes(20).toString('hex')}`;
const fault = (name: string, value: string | null, acct = creds.account_id) =>
  call('POST', '/sim/providers/faults', { account_id: acct, name, value }, { idem: null });
const act = (id: string, body: Record<string, unknown>) => call('POST', `/sim/providers/orders/${id}`, body, { idem: null });
const order = (id: string) => key.get(`/v1/orders/${id}`);
const until = (id: string, ok: (o: any) => boolean, what: string) =>
  eventually(
    async () => {
      const o = (await order(id)).body;
      return ok(o) && o;
    },
    what,
    20000,
  );
const types = async (id: string) => (expectOk(await key.get(`/v1/orders/${id}/events`)).data as Array<{ type: string }>).map((e) => e.type);
async function cryptoEntry(chain: string, c = creds): Promise<string> {
  return expectOk(
    await client(c.session_token).post('/v1/address_book', { kind: 'crypto', chain, address: evm(), label: `Treasury ${chain}` }),
    201,
  ).id;
}
async function offerOf(body: Record<string, unknown>, provider?: string, k = key): Promise<any> {
  const q = expectOk(await k.post('/v1/quotes', body), 201);
  return provider ? q.offers.find((o: any) => o.provider.id === provider) : q.offers[0];
}

test('card buy: hosted checkout (next_action on create and get only), hold, capture, delivery with its tx hash, order.* events', async () => {
  const offer = await offerOf(
    { side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: '300.00', to_network: 'base', payment_method: 'card' },
    'rampline',
  );
  const dest = await cryptoEntry('base');
  const created = expectOk(await key.post('/v1/orders', { offer_id: offer.offer_id, destination_id: dest }), 201);
  expect(created).toMatchObject({
    object: 'order',
    status: 'awaiting_payment',
    money_state: 'never_authorized',
    money_status: 'No money has been taken.',
    purpose: 'direct',
    provider: { id: 'rampline', name: 'Rampline', limits: { currency: 'USD' } },
    payment_method: 'card',
    payment_rail: null,
    network: 'base',
    amounts: { you_pay: { amount: '30000', currency: 'USD', decimals: 2 }, you_receive: { currency: 'USDC', decimals: 6 } },
    payout_destination: { type: 'crypto', chain: 'base', tx_hash: null, address_book_entry_id: dest },
    failure_kind: null,
    failure_reason: null,
    bank_deposit_instructions: null,
    deposit_instructions: null,
  });
  expect(created.id).toMatch(/^ord_/);
  expect(created.amounts.you_receive.amount).toBe(offer.final_out.replace('.', '').replace(/^0+/, ''));
  expect(created.next_action).toMatchObject({
    type: 'redirect_to_url',
    redirect_to_url: { url: expect.stringMatching(new RegExp(`^${process.env.PAYER_HOST}/sandbox/orders/prv_[0-9a-f]+$`)) },
  });
  expect(created).not.toHaveProperty('offer_selection');
  expect((await order(created.id)).body.next_action).toEqual(created.next_action);
  const listed = expectOk(await key.get('/v1/orders')).data.find((o: any) => o.id === created.id);
  expect(listed).toBeDefined();
  expect(listed).not.toHaveProperty('next_action');
  // The offer is used once.
  const reuse = await key.post('/v1/orders', { offer_id: offer.offer_id, destination_id: dest });
  expectError(reuse, 409, 'conflict', 'offer_already_used', 'offer_id');
  expect(reuse.body.error.details).toEqual({ order_id: created.id });

  expectOk(await act(created.id, { action: 'authorize' }));
  const held = await until(created.id, (o) => o.money_state === 'hold_placed', 'hold_placed');
  expect(held).not.toHaveProperty('next_action');
  expect(held.money_status).toMatch(/held/);
  const refused = await key.post(`/v1/orders/${created.id}/cancel`, {});
  expectError(refused, 409, 'conflict', 'order_not_cancellable');
  expect(refused.body.error.details).toMatchObject({ money_state: 'hold_placed' });
  expectOk(await act(created.id, { action: 'capture' }));
  await until(created.id, (o) => o.status === 'processing' && o.money_state === 'captured', 'processing');
  expectError(await act(created.id, { action: 'authorize' }), 409, 'conflict', 'sim_action_refused');
  const done = expectOk(await act(created.id, { action: 'complete' }));
  const completed = await until(created.id, (o) => o.status === 'completed', 'completed');
  expect(completed.payout_destination.tx_hash).toBe(done.delivery_tx_hash);
  expect(completed.completed_at).not.toBeNull();
  expect(await types(created.id)).toEqual(expect.arrayContaining(['order.created', 'order.status_changed']));
  expect((await types(created.id)).filter((t) => t === 'order.status_changed').length).toBe(3);
  const feed = expectOk(await key.get(`/v1/events?type=order.created`)).data.map((e: any) => e.data.object.id);
  expect(feed).toContain(created.id);
});

test('bank buy at the native provider: full receiving details, the rail published; cancel before money moves; a rail with no recall refuses', async () => {
  const offer = await offerOf(
    { side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: '1000', to_network: 'tempo' },
    'native_fiat',
  );
  const created = expectOk(await key.post('/v1/orders', { offer_id: offer.offer_id, wallet_address: evm() }), 201);
  expect(created).toMatchObject({
    provider: { id: 'native_fiat' },
    payment_method: 'bank_transfer',
    payment_rail: 'ach',
    deposit_instructions: null,
  });
  expect(created).not.toHaveProperty('next_action');
  expect(created.bank_deposit_instructions).toMatchObject({
    rail: 'ach',
    currency: 'USD',
    routing_number: expect.stringMatching(/^\d{9}$/),
    account_number: expect.stringMatching(/^\d{12}$/),
    amount: { amount: '100000', currency: 'USD', decimals: 2 },
  });
  expect(created.bank_deposit_instructions.reference).toMatch(/^[A-Z0-9]{12}$/);
  const cancelled = expectOk(await key.post(`/v1/orders/${created.id}/cancel`, {}));
  expect(cancelled).toMatchObject({ status: 'cancelled', money_state: 'never_authorized', bank_deposit_instructions: null });
  expect(expectOk(await key.post(`/v1/orders/${created.id}/cancel`, {}))).toMatchObject({ status: 'cancelled' });
  expect(await types(created.id)).toEqual(expect.arrayContaining(['order.created', 'order.cancelled']));

  const spei = await offerOf(
    { side: 'buy', from_asset: 'MXN', to_asset: 'USDC', from_amount: '5000', to_network: 'tempo', payment_method: 'spei' },
    'native_fiat',
  );
  const mx = expectOk(await key.post('/v1/orders', { offer_id: spei.offer_id, wallet_address: evm() }), 201);
  expect(mx.bank_deposit_instructions).toMatchObject({ rail: 'spei', clabe: expect.stringMatching(/^\d{18}$/) });
  expectError(await key.post(`/v1/orders/${mx.id}/cancel`, {}), 409, 'conflict', 'cancel_unavailable');

  // A provider outage at cancel time is 503; the order stays as it was.
  const again = await offerOf({ side: 'buy', from_asset: 'EUR', to_asset: 'USDC', from_amount: '200', to_network: 'tempo' }, 'native_fiat');
  const eu = expectOk(await key.post('/v1/orders', { offer_id: again.offer_id, wallet_address: evm() }), 201);
  expect(eu.bank_deposit_instructions).toMatchObject({ rail: 'sepa', iban: expect.any(String), bic: expect.any(String) });
  await fault('orders.native_fiat.unavailable', 'true');
  expectError(await key.post(`/v1/orders/${eu.id}/cancel`, {}), 503, 'temporarily_unavailable');
  await fault('orders.native_fiat.unavailable', null);
  expect((await order(eu.id)).body.status).toBe('awaiting_payment');
});

test("sell with a self-custody deposit: captured, delivery fails, refunded with the provider's text", async () => {
  const bank = await bankDestination(creds, 'sepa');
  const offer = await offerOf(
    { side: 'sell', from_asset: 'USDC', to_asset: 'EUR', from_amount: '500', from_network: 'tempo' },
    'native_fiat',
  );
  expectError(
    await key.post('/v1/orders', { offer_id: offer.offer_id, wallet_address: evm() }),
    400,
    'invalid_request',
    'destination_invalid',
    'wallet_address',
  );
  expectError(
    await key.post('/v1/orders', { offer_id: offer.offer_id, destination_id: await bankDestination(creds, 'ach') }),
    400,
    'invalid_request',
    'destination_invalid',
    'destination_id',
  );
  expectError(
    await key.post('/v1/orders', { offer_id: offer.offer_id, destination_id: bank, refund_address: 'nope' }),
    400,
    'invalid_request',
    'refund_address_invalid',
    'refund_address',
  );
  const refund = evm();
  const created = expectOk(await key.post('/v1/orders', { offer_id: offer.offer_id, destination_id: bank, refund_address: refund }), 201);
  expect(created).toMatchObject({
    side: 'sell',
    status: 'awaiting_payment',
    refund_address: refund,
    bank_deposit_instructions: null,
    payout_destination: { type: 'bank', currency: 'EUR', rail: 'sepa' },
  });
  expect(created.payout_destination.bank_account).toMatchObject({ iban_last4: expect.any(String) });
  expect(JSON.stringify(created.payout_destination)).not.toContain('DE89370400440532013000');
  expect(created.deposit_instructions).toMatchObject({
    chain: 'tempo',
    asset: 'USDC',
    amount: { amount: '500000000', currency: 'USDC', decimals: 6 },
    amount_decimal: '500.000000',
    provider: 'native_fiat',
  });
  expect(created.deposit_instructions.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  expectOk(await act(created.id, { action: 'capture' }));
  await until(created.id, (o) => o.status === 'processing', 'processing');
  expectOk(await act(created.id, { action: 'fail', failure_kind: 'delivery_failed', reason: 'AC04 Closed account number' }));
  const failed = await until(created.id, (o) => o.status === 'failed', 'failed');
  expect(failed).toMatchObject({
    failure_kind: 'delivery_failed',
    failure_reason: 'The provider could not deliver the funds to the destination.',
    money_state: 'captured',
    return_reason: 'AC04 Closed account number',
  });
  expectOk(await act(created.id, { action: 'refund', reason: 'Returned to the sender' }));
  const refunded = await until(created.id, (o) => o.status === 'refunded', 'refunded');
  expect(refunded).toMatchObject({ money_state: 'refunded', return_reason: 'Returned to the sender' });
  expect(await types(created.id)).toEqual(expect.arrayContaining(['order.failed', 'order.refunded']));
});

test('offers: unknown, expired and other-account offers are refused; a destination on another network is refused', async () => {
  expectError(await key.post('/v1/orders', { offer_id: 'qof_nope', wallet_address: evm() }), 404, 'not_found', 'not_found', 'offer_id');
  const offer = await offerOf({
    side: 'buy',
    from_asset: 'USD',
    to_asset: 'USDC',
    from_amount: '100',
    to_network: 'base',
    payment_method: 'card',
  });
  const other = await newAccount();
  expectError(
    await client(other.live_key).post('/v1/orders', { offer_id: offer.offer_id, wallet_address: evm() }),
    404,
    'not_found',
    'not_found',
    'offer_id',
  );
  expectError(
    await key.post('/v1/orders', { offer_id: offer.offer_id, destination_id: await cryptoEntry('ethereum') }),
    400,
    'invalid_request',
    'destination_invalid',
    'destination_id',
  );
  expectError(await key.post('/v1/orders', { offer_id: offer.offer_id }), 400, 'invalid_request', 'destination_invalid');
  expectError(
    await key.post('/v1/orders', { offer_id: offer.offer_id, wallet_address: evm(), destination_id: await cryptoEntry('base') }),
    400,
    'invalid_request',
    'destination_invalid',
  );
  expectError(
    await key.post('/v1/orders', { offer_id: offer.offer_id, wallet_address: 'not-an-address' }),
    400,
    'invalid_request',
    'destination_invalid',
    'wallet_address',
  );
  expectError(
    await key.post('/v1/orders', { offer_id: offer.offer_id, wallet_address: evm(), refund_address: evm() }),
    400,
    'invalid_request',
    'refund_address_not_applicable',
    'refund_address',
  );
  await db().query(`UPDATE quote_offers SET expires_at = now() - interval '1 second' WHERE id = $1`, [offer.offer_id]);
  expectError(
    await key.post('/v1/orders', { offer_id: offer.offer_id, wallet_address: evm() }),
    409,
    'conflict',
    'offer_expired',
    'offer_id',
  );
});

test('a provider out at placement: the next offer is executed (offer_selection); every provider out is 503 and the offer is released', async () => {
  const a = await newAccount();
  const k = client(a.live_key);
  const q = expectOk(
    await k.post('/v1/quotes', {
      side: 'buy',
      from_asset: 'USD',
      to_asset: 'USDC',
      from_amount: '400',
      to_network: 'base',
      payment_method: 'card',
    }),
    201,
  );
  expect(q.offers.length).toBe(2);
  const [first, second] = q.offers;
  await fault(`orders.${first.provider.id}.unavailable`, 'true', a.account_id);
  const o = expectOk(await k.post('/v1/orders', { offer_id: first.offer_id, wallet_address: evm() }), 201);
  expect(o).toMatchObject({
    offer_id: second.offer_id,
    provider: { id: second.provider.id },
    offer_selection: { selected_offer_id: first.offer_id, executed_offer_id: second.offer_id, reason: 'selected_offer_unavailable' },
  });
  expect((await k.get(`/v1/orders/${o.id}`)).body).not.toHaveProperty('offer_selection');

  const q2 = expectOk(
    await k.post('/v1/quotes', {
      side: 'buy',
      from_asset: 'USD',
      to_asset: 'USDC',
      from_amount: '400',
      to_network: 'base',
      payment_method: 'card',
    }),
    201,
  );
  await fault(`orders.${q2.offers[1].provider.id}.unavailable`, 'true', a.account_id);
  const out = await k.post('/v1/orders', { offer_id: q2.offer_id, wallet_address: evm() });
  expectError(out, 503, 'temporarily_unavailable');
  const failedId = out.body.error.details.order_id;
  expect((await k.get(`/v1/orders/${failedId}`)).body).toMatchObject({ status: 'failed', failure_kind: 'provider_unavailable' });
  await fault(`orders.${first.provider.id}.unavailable`, null, a.account_id);
  const retried = expectOk(await k.post('/v1/orders', { offer_id: q2.offer_id, wallet_address: evm() }, { idem: idem() }), 201);
  expect(retried.offer_id).toBe(q2.offer_id);
});

test("a link pay-in order delivers to the link's payment and is cancelled only through the link", async () => {
  const link = expectOk(
    await key.post('/v1/payment_links', {
      amount: { amount: '5000', currency: 'USD', decimals: 2 },
      title: 'Order pay-in',
      accepted_rail_kinds: ['crypto'],
    }),
    201,
  );
  expectOk(await key.post(`/v1/payment_links/${link.id}/activate`, { attestation_accepted: true }));
  const offer = await offerOf({ side: 'buy', from_asset: 'USD', to_asset: 'USDC', to_amount: '50.5', to_network: 'tempo' }, 'native_fiat');
  const o = expectOk(await key.post('/v1/orders', { offer_id: offer.offer_id, payment_link_id: link.id }), 201);
  expect(o).toMatchObject({ purpose: 'payment_link_pay_in', payment_link_id: link.id, payment_id: expect.stringMatching(/^pay_/) });
  const pay = expectOk(await key.get(`/v1/payments/${o.payment_id}`));
  expect(o.payout_destination.address).toBe(pay.deposit_instructions?.address ?? o.payout_destination.address);
  expectError(await key.post(`/v1/orders/${o.id}/cancel`, {}), 409, 'conflict', 'payment_link_pay_in');
  const swap = await offerOf({ side: 'swap', from_asset: 'USDC', to_asset: 'ETH', from_amount: '100', to_network: 'base' });
  expectError(
    await key.post('/v1/orders', { offer_id: swap.offer_id, payment_link_id: link.id }),
    400,
    'invalid_request',
    'destination_invalid',
    'payment_link_id',
  );
});

test('an unpaid hosted checkout expires at its deadline: failed payment_expired, next_action gone', async () => {
  const offer = await offerOf(
    { side: 'buy', from_asset: 'EUR', to_asset: 'USDC', from_amount: '80', to_network: 'base', payment_method: 'card' },
    'rampline',
  );
  const o = expectOk(await key.post('/v1/orders', { offer_id: offer.offer_id, wallet_address: evm() }), 201);
  await db().query(`UPDATE orders SET checkout_expires_at = now() - interval '1 second' WHERE id = $1`, [o.id]);
  const p = await advanceOrder(o.id, Date.now());
  expect(p).toMatchObject({ done: true, status: 'failed' });
  const got = expectOk(await order(o.id));
  expect(got).toMatchObject({
    status: 'failed',
    failure_kind: 'payment_expired',
    failure_reason: 'The payment was not completed in time.',
    money_state: 'never_authorized',
  });
  expect(got).not.toHaveProperty('next_action');
});

test("terms: POST /orders is a money boundary gated by the account's acceptance", async () => {
  const a = await newAccount();
  await setSwitch('legal.terms_acceptance', true, a.account_id);
  const k = client(a.live_key);
  const offer = await offerOf({ side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: '100', to_network: 'base' }, undefined, k);
  await eventually(
    async () =>
      (await k.post('/v1/orders', { offer_id: offer.offer_id, wallet_address: evm() })).body?.error?.code === 'terms_acceptance_required',
    'gate',
    10000,
  );
  expectOk(await call('POST', '/sim/legal/acceptances', { account_id: a.account_id }, { idem: null }), 201);
  expectOk(await k.post('/v1/orders', { offer_id: offer.offer_id, wallet_address: evm() }), 201);
});
