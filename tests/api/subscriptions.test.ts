/**
 * Subscriptions (spec 4.2; issue 16) over HTTP against the shared stack: create with every
 * refusal, the first invoice issued at the anchor by the subscription's workflow, the invoice as a
 * pay-in (`GET /payments?subscription_id=`) paid on the chain through `/sim/chain/transfers` and
 * settled to the subscription's wallet, `subscription.*` events, pause / resume / cancel with
 * their refusals, and cancel voiding the open invoice with its pay-in.
 */
import crypto from 'node:crypto';
import { call, client, connectDb, eventually, expectError, expectOk, newAccount } from '../helpers/api';
import type { DevCredentials } from '../../activities/accounts/commands';

let creds: DevCredentials;
let key: ReturnType<typeof client>;
let clientId: string;
let wallet: string;
let walletAddress: string;

const usdc = (amount: string) => ({ amount, currency: 'USDC', decimals: 6 });
const evm = () => `0x${crypto.randomBytes(20).toString('hex')}`;

beforeAll(async () => {
  await connectDb();
  creds = await newAccount();
  key = client(creds.live_key);
  clientId = expectOk(await key.post('/v1/clients', { display_name: 'Subscriber Co', email: 'billing@subscriber.example' }), 201).id;
  walletAddress = evm();
  wallet = expectOk(
    await client(creds.session_token).post('/v1/address_book', {
      kind: 'crypto',
      chain: 'tempo',
      address: walletAddress,
      label: 'Own wallet',
    }),
    201,
  ).id;
});

const create = (b: Record<string, unknown>) =>
  key.post('/v1/subscriptions', {
    client_id: clientId,
    amount: usdc('25000000'),
    interval: 'month',
    settlement_destination_id: wallet,
    ...b,
  });
const invoices = async (id: string) => expectOk(await key.get(`/v1/subscriptions/${id}/invoices`)).data as any[];

test('create: refusals with their codes and params', async () => {
  expectError(
    await create({ amount: { amount: '2500', currency: 'USD', decimals: 2 } }),
    400,
    'invalid_request',
    'currency_invalid',
    'amount.currency',
  );
  expectError(await create({ amount: usdc('0') }), 400, 'invalid_request', 'parameter_invalid', 'amount.amount');
  expectError(await create({ client_id: 'cli_nope' }), 404, 'not_found', 'not_found', 'client_id');
  expectError(await create({ settlement_destination_id: 'adr_nope' }), 404, 'not_found', 'not_found', 'settlement_destination_id');
  const base = expectOk(
    await client(creds.session_token).post('/v1/address_book', { kind: 'crypto', chain: 'base', address: evm() }),
    201,
  ).id;
  expectError(
    await create({ settlement_destination_id: base }),
    400,
    'invalid_request',
    'settlement_destination_invalid',
    'settlement_destination_id',
  );
  expectError(await create({ interval: 'fortnight' }), 400, 'invalid_request', 'parameter_invalid', 'interval');
  expectError(await create({ interval_count: 13 }), 400, 'invalid_request', 'parameter_invalid', 'interval_count');
  expectError(await create({ grace_period_days: 61 }), 400, 'invalid_request', 'parameter_invalid', 'grace_period_days');
  expectError(
    await create({ billing_cycle_anchor: new Date(Date.now() + 400 * 86_400_000).toISOString() }),
    400,
    'invalid_request',
    'parameter_invalid',
    'billing_cycle_anchor',
  );
  expectError(await create({ cycles: 0 }), 400, 'invalid_request', 'parameter_invalid', 'cycles');
  expectError(await client(creds.test_key).post('/v1/subscriptions', {}), 503, 'temporarily_unavailable', 'test_mode_not_supported');
});

test('the first invoice at the anchor is a pay-in; paid on the chain, it is paid and settled to the wallet', async () => {
  const sub = expectOk(await create({ cycles: 3, description: 'Hosting' }), 201);
  expect(sub).toMatchObject({
    object: 'subscription',
    status: 'active',
    amount: usdc('25000000'),
    interval: 'month',
    interval_count: 1,
    cycles: 3,
    grace_period_days: 7,
    settlement_destination: { type: 'address_book', address_book_entry_id: wallet, chain: 'tempo', address: walletAddress },
    description: 'Hosting',
  });
  expect(sub.id).toMatch(/^sub_/);
  const [inv] = await eventually(async () => {
    const l = await invoices(sub.id);
    return l.length === 1 && l;
  }, 'first invoice');
  expect(inv).toMatchObject({
    object: 'subscription_invoice',
    number: 1,
    status: 'open',
    amount: usdc('25000000'),
    payment_status: 'awaiting',
    subscription_id: sub.id,
  });
  expect(new Date(inv.due_at).getTime() - new Date(inv.period_start).getTime()).toBe(7 * 86_400_000);
  expect(inv.deposit_instructions).toMatchObject({ chain: 'tempo', amount: { amount: '25000000' } });
  const pays = expectOk(await key.get(`/v1/payments?subscription_id=${sub.id}`)).data;
  expect(pays).toHaveLength(1);
  expect(pays[0]).toMatchObject({ id: inv.payment_id, subscription_id: sub.id, payment_link_id: null, status: 'awaiting' });
  expect(expectOk(await key.get('/v1/payments?subscription_id=sub_nope')).data).toEqual([]);
  const got = expectOk(await key.get(`/v1/subscriptions/${sub.id}`));
  expect(got).toMatchObject({ periods_billed: 1, next_invoice_at: expect.any(String) });

  expectOk(
    await call(
      'POST',
      '/sim/chain/transfers',
      { chain: 'tempo', to_address: inv.deposit_instructions.address, asset: inv.deposit_instructions.asset, amount: '25000000' },
      { idem: null },
    ),
    201,
  );
  const paid = await eventually(async () => {
    const i = expectOk(await key.get(`/v1/subscriptions/${sub.id}/invoices/${inv.id}`));
    return i.status === 'paid' && i;
  }, 'invoice paid');
  expect(paid).toMatchObject({ amount_received: usdc('25000000'), deposit_instructions: null });
  const payment = await eventually(async () => {
    const p = expectOk(await key.get(`/v1/payments/${inv.payment_id}`));
    return p.status === 'settled' && p;
  }, 'settled');
  expect(payment).toMatchObject({ amount_verdict: 'exact' });
  const types = expectOk(await key.get(`/v1/events?limit=50`))
    .data.filter((e: any) => [sub.id, inv.id].includes(e.data.object.id))
    .map((e: any) => e.type);
  expect(types).toEqual(expect.arrayContaining(['subscription.created', 'subscription.invoice_issued', 'subscription.invoice_paid']));
  expectError(await key.get(`/v1/subscriptions/${sub.id}/invoices/sin_nope`), 404, 'not_found', 'not_found', 'invoice_id');
  expectError(await client((await newAccount()).live_key).get(`/v1/subscriptions/${sub.id}`), 404, 'not_found');
});

test('pause, resume, cancel: refusals; cancel voids the open invoice and closes its pay-in', async () => {
  const sub = expectOk(await create({ interval: 'week' }), 201);
  const [inv] = await eventually(async () => {
    const l = await invoices(sub.id);
    return l.length === 1 && l;
  }, 'first invoice');
  expectError(await key.post(`/v1/subscriptions/${sub.id}/resume`, {}), 409, 'conflict', 'subscription_not_paused');
  expect(expectOk(await key.post(`/v1/subscriptions/${sub.id}/pause`, {}))).toMatchObject({
    status: 'paused',
    next_invoice_at: null,
    paused_at: expect.any(String),
  });
  expectError(await key.post(`/v1/subscriptions/${sub.id}/pause`, {}), 409, 'conflict', 'subscription_not_pausable');
  expect(expectOk(await key.post(`/v1/subscriptions/${sub.id}/resume`, {}))).toMatchObject({ status: 'active', paused_at: null });
  const cancelled = expectOk(await key.post(`/v1/subscriptions/${sub.id}/cancel`, {}));
  expect(cancelled).toMatchObject({
    status: 'cancelled',
    cancelled_at: expect.any(String),
    ended_at: expect.any(String),
    next_invoice_at: null,
  });
  expect(expectOk(await key.post(`/v1/subscriptions/${sub.id}/cancel`, {})).status).toBe('cancelled');
  expectError(await key.post(`/v1/subscriptions/${sub.id}/pause`, {}), 409, 'conflict', 'subscription_not_pausable');
  expect(expectOk(await key.get(`/v1/subscriptions/${sub.id}/invoices/${inv.id}`))).toMatchObject({
    status: 'void',
    voided_at: expect.any(String),
    payment_status: 'abandoned',
    deposit_instructions: null,
  });
  const listed = expectOk(await key.get(`/v1/subscriptions?status=cancelled`)).data.map((s: any) => s.id);
  expect(listed).toContain(sub.id);
  expect(expectOk(await key.get(`/v1/subscriptions?client_id=${clientId}&status=active`)).data.map((s: any) => s.id)).not.toContain(sub.id);
});
