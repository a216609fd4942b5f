/**
 * Journeys of the cross-network and transfer rail families on the simulated mainnet
 * (`NETWORK=mainnet`, the launch flag opened for the merchant as an operator would with
 * `npm run switch`), driven only through the API and `/sim` (spec 2.4, part 3, 6; issue 12):
 * - cross-network: the bridge holds the transfer, then delivers less (watcher `matching`
 *   `bridge_delivered_less`, verdict underpaid, link processing); the payer tops up on the source
 *   network and the payment is delivered, paid and settled (verdict exact, link settled);
 * - cross-network: the bridge fails; the funds go back to the refund address, the payment expires;
 * - transfer: a direct USDC.e transfer on the service network pays and settles the link.
 */
import { setSwitch } from '../../lib/switches';
import { call, client, connectDb, eventually, newAccount } from '../helpers/api';
import { usePrivateStack } from '../helpers/stack';

usePrivateStack('xchain-e2e', { NETWORK: 'mainnet' });
process.env.NETWORK = 'mainnet';

let merchant: ReturnType<typeof client>;

beforeAll(async () => {
  await connectDb();
  const acct = await newAccount();
  merchant = client(acct.live_key);
  await setSwitch('payment_links.crypto_xchain', true, acct.account_id);
  await new Promise((r) => setTimeout(r, 2200));
});

async function activeLink(amount: string) {
  const l = await merchant.post('/v1/payment_links', {
    amount: { amount, currency: 'USD', decimals: 2 },
    title: 'Journey',
    accepted_rail_kinds: ['crypto'],
  });
  const a = await merchant.post(`/v1/payment_links/${l.body.id}/activate`, { attestation_accepted: true });
  expect(a.status).toBe(200);
  return { link: a.body, token: String(a.body.url).split('/pay/')[1] };
}
const session = (token: string, suffix = '', body?: unknown) =>
  call(body === undefined ? 'GET' : 'POST', `/v1/payment_sessions/${token}${suffix}`, body, { idem: null });
const sim = (path: string, body: unknown) => call('POST', `/sim${path}`, body, { idem: null });
const send = (chain: string, to: string, asset: string, amount: string) =>
  sim('/chain/transfers', { chain, to_address: to, asset, amount });
const until = (token: string, ok: (s: any) => boolean, what: string) =>
  eventually(
    async () => {
      const s = (await session(token)).body;
      return ok(s) && s;
    },
    what,
    30000,
  );
const eventTypes = async (id: string) => (await merchant.get(`/v1/payments/${id}/events`)).body.data.map((e: { type: string }) => e.type);

test('cross-network: held, delivered less (matching), topped up, delivered and settled', async () => {
  const { link, token } = await activeLink('25000');
  await session(token, '/view', {});
  const p = await session(token, '/payments', {
    rail: 'crypto_xchain',
    network: 'base',
    stablecoin: 'USDC',
    refund_address: '0x4444444444444444444444444444444444444444',
  });
  expect(p.status).toBe(201);
  const di = p.body.deposit_instructions;
  expect(di).toMatchObject({
    chain: 'base',
    chain_id: 8453,
    amount_out: { amount: '252500000', currency: 'USDC.e' },
    bridge_fee: { amount: '100000', currency: 'USDC' },
  });
  expect(di.amount.amount).toBe('252600000');

  expect((await sim(`/bridge/transfers/${p.body.id}`, { state: 'delayed' })).status).toBe(200);
  expect((await send('base', di.address, 'USDC', di.amount.amount)).status).toBe(201);
  await until(token, (s) => s.watcher_state === 'confirming', 'confirming');

  const short = await sim(`/bridge/transfers/${p.body.id}`, { state: 'delivered', delivered_amount: '250000000' });
  expect(short.body).toMatchObject({ object: 'sim.bridge_transfer', payment_id: p.body.id, delivered: '250000000' });
  const matching = await until(token, (s) => s.watcher_state === 'matching', 'matching');
  expect(matching).toMatchObject({
    watcher_reason: 'bridge_delivered_less',
    amount_verdict: 'underpaid',
    status: 'processing',
    amount_received: { amount: '250000000', currency: 'USDC.e' },
  });
  expect(matching.xchain_deposit_instructions).toHaveLength(1);
  const mid = await merchant.get(`/v1/payment_links/${link.id}`);
  expect(mid.body.partial_payment).toMatchObject({ received: { amount: '250000000', currency: 'USDC.e', decimals: 6 } });

  // The payer tops up the shortfall on the source network; the bridge delivers it without a second fee.
  await send('base', di.address, 'USDC', '2500000');
  const paid = await until(token, (s) => s.status === 'settled', 'settled');
  expect(paid).toMatchObject({
    watcher_state: 'delivered',
    watcher_reason: null,
    amount_verdict: 'exact',
    xchain_deposit_instructions: [],
  });
  const pay = (await merchant.get(`/v1/payments/${p.body.id}`)).body;
  expect(pay).toMatchObject({
    status: 'settled',
    watcher_state: 'delivered',
    amount_received: { amount: '252500000' },
    net_amount: { amount: '250000000' },
  });
  expect(await eventTypes(p.body.id)).toEqual(
    expect.arrayContaining(['payment.created', 'payment.awaiting', 'payment.underpaid', 'payment.paid', 'payment.settled']),
  );
  expect((await merchant.get(`/v1/payment_links/${link.id}`)).body).toMatchObject({ status: 'settled', partial_payment: null });
});

test('cross-network: the bridge fails, the funds go back to the refund address, the payment expires', async () => {
  const { token } = await activeLink('1000');
  const p = await session(token, '/payments', {
    rail: 'crypto_xchain',
    network: 'optimism',
    refund_address: '0x5555555555555555555555555555555555555555',
  });
  expect(p.status).toBe(201);
  await sim(`/bridge/transfers/${p.body.id}`, { state: 'failed' });
  await send('optimism', p.body.deposit_instructions.address, 'USDC', p.body.deposit_instructions.amount.amount);
  const failed = await eventually(
    async () => {
      const r = (await session(token, `/payments/${p.body.id}`)).body;
      return r.watcher_state === 'bridge_failed' && r;
    },
    'bridge_failed',
    30000,
  );
  expect(failed).toMatchObject({ status: 'expired', amount_verdict: null });
  expect(failed.recovery_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
  expect((await sim('/bridge/transfers/btr_nope', { state: 'failed' })).status).toBe(404);
  expect((await sim(`/bridge/transfers/${p.body.id}`, { state: 'lost' })).status).toBe(400);
});

test('transfer: a direct USDC.e transfer on the service network pays and settles the link', async () => {
  const { link, token } = await activeLink('1500');
  const p = await session(token, '/payments', { rail: 'crypto_transfer', source_chain: 'tempo', source_asset: 'USDC' });
  expect(p.status).toBe(201);
  const di = p.body.deposit_instructions;
  expect(di).toMatchObject({ chain: 'tempo', asset: 'USDC.e', amount: { amount: '15150000' } });
  await send('tempo', di.address, di.asset, di.amount.amount);
  await until(token, (s) => s.status === 'settled', 'settled');
  expect((await merchant.get(`/v1/payments/${p.body.id}`)).body).toMatchObject({
    payment_rail: 'crypto_transfer',
    status: 'settled',
    amount_verdict: 'exact',
  });
  expect((await merchant.get(`/v1/payment_links/${link.id}`)).body.status).toBe('settled');
});
