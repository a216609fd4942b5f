/**
 * Sends out of the holder's wallet over HTTP (spec 4.5, 2.5, 4.1; issue 14): send routes with the
 * bridge's fees, a direct send built, signed by the sandbox's holder (`/sim/wallet/sign`),
 * recorded and settled; a cross-chain send delivered on the destination network less the bridge
 * fee; a signed transaction that differs from the built one fails with its reason; the request
 * rules (reach, chain, address, asset, minimum, balance, source_tx conflicts); the sandbox signer's
 * refusals; a payer paying a link with `pay_with_wallet` judged by the native verdict rules; and the
 * sandbox payer wallet, signed from without being funded first.
 */
import type Joi from 'joi';
import { call, client, connectDb, eventually, expectError, expectOk, newAccount } from '../helpers/api';
import { db } from '../../lib/db';
import { SANDBOX_PAYER_WALLET } from '../../providers/wallet-sends';
import { listEnvelope } from '../../views/schema';
import { sendIntentResponse, sendRouteResponse } from '../../views/wallet-sends';

beforeAll(async () => {
  await connectDb();
});

function conforms(schema: Joi.Schema, body: unknown): void {
  const { error } = schema.validate(body, { allowUnknown: false, presence: 'optional' });
  if (error) throw new Error(`response does not match its schema: ${error.message}\n${JSON.stringify(body)}`);
}
const OTHER = '0x52908400098527886E0F7030069857D2E4169EE7';
const usdc = (amount: string, currency: string) => ({ amount, currency, decimals: 6 });

/** A new account whose wallet holds `funds` minor units of the stablecoin. */
async function fundedHolder(funds: string) {
  const acct = await newAccount();
  const s = client(acct.session_token);
  const wallet = expectOk(await s.get('/v1/wallet/wallets')).data[0];
  const asset = expectOk(await s.get('/v1/wallet/balances')).balances[0].asset as string;
  if (funds !== '0')
    expectOk(
      await call(
        'POST',
        '/sim/chain/transfers',
        { chain: wallet.chain, asset, to_address: wallet.address, amount: funds, from_address: OTHER },
        { idem: null },
      ),
      201,
    );
  return { acct, s, key: client(acct.live_key), wallet, asset };
}
const sign = async (tx: Record<string, unknown>) =>
  expectOk(await call('POST', '/sim/wallet/sign', tx, { idem: null }), 201).tx_hash as string;
const settledOrFailed = (s: ReturnType<typeof client>, id: string, status: string) =>
  eventually(
    async () => {
      const r = expectOk(await s.get(`/v1/wallet/send_intents/${id}`));
      return r.status === status ? r : null;
    },
    `send intent ${status}`,
    20000,
  );
const eventTypes = async (id: string) =>
  (await db().query('SELECT type FROM events WHERE object_id = $1 ORDER BY seq', [id])).map((r: { type: string }) => r.type);

test('send routes: the own chain directly and the bridged networks with their fees; a business key reads them', async () => {
  const { key, wallet, asset } = await fundedHolder('0');
  const routes = expectOk(await key.get('/v1/wallet/send_routes'));
  conforms(listEnvelope(sendRouteResponse), routes);
  expect(routes.data[0]).toMatchObject({
    destination_chain: wallet.chain,
    kind: 'direct',
    bridge_fee: usdc('0', asset),
    minimum_amount: usdc('10000', asset),
  });
  expect(routes.data.find((r: { destination_chain: string }) => r.destination_chain === 'base')).toMatchObject({
    kind: 'bridge',
    bridge_fee: usdc('100000', asset),
    minimum_amount: usdc('110000', asset),
  });
});

test('a direct send: built, signed by the holder, recorded, settled; the transfer shows in the wallet history', async () => {
  const { s, key, wallet, asset } = await fundedHolder('5000000');
  expectError(
    await key.post('/v1/wallet/send_intents', {
      destination_chain: wallet.chain,
      destination_address: OTHER,
      amount: usdc('1500000', asset),
    }),
    403,
    'permission_error',
  );
  const built = await s.post('/v1/wallet/send_intents', {
    destination_chain: wallet.chain,
    destination_address: OTHER,
    amount: usdc('1500000', asset),
    note: 'rent',
  });
  expect(built.status).toBe(201);
  conforms(sendIntentResponse, built.body);
  const si = built.body;
  expect(si).toMatchObject({
    object: 'send_intent',
    status: 'created',
    route: 'direct',
    from_address: wallet.address,
    destination_address: OTHER,
    amount: usdc('1500000', asset),
    amount_out: usdc('1500000', asset),
    source_tx_hash: null,
    note: 'rent',
  });
  expect(si.id).toMatch(/^wsi_/);
  expect(si.unsigned_transaction).toMatchObject({ chain: wallet.chain, from: wallet.address, value: '0' });
  expect(si.unsigned_transaction.data.startsWith('0xa9059cbb')).toBe(true); // transfer(address,uint256)

  const hash = await sign(si.unsigned_transaction);
  const rec = expectOk(await s.post(`/v1/wallet/send_intents/${si.id}/source_tx`, { tx_hash: hash }));
  expect(rec.source_tx_hash).toBe(hash);
  expect(rec.unsigned_transaction).toBeNull();
  // The same hash again is the intent unchanged; another hash is a conflict.
  expect(expectOk(await s.post(`/v1/wallet/send_intents/${si.id}/source_tx`, { tx_hash: hash.toUpperCase().replace('0X', '0x') })).id).toBe(
    si.id,
  );
  expectError(
    await s.post(`/v1/wallet/send_intents/${si.id}/source_tx`, { tx_hash: `0x${'ab'.repeat(32)}` }),
    409,
    'conflict',
    'source_tx_already_recorded',
  );

  const done = await settledOrFailed(s, si.id, 'settled');
  expect(done).toMatchObject({ delivery_tx_hash: hash, failure_reason: null });
  expect(done.settled_at).not.toBeNull();
  expect(await eventTypes(si.id)).toEqual(['send_intent.created', 'send_intent.source_submitted', 'send_intent.settled']);
  expect(expectOk(await key.get('/v1/wallet/balances')).balances[0].amount.amount).toBe('3500000');
  expect(expectOk(await key.get(`/v1/wallet/transactions/${hash}`))).toMatchObject({ direction: 'outgoing', to_address: OTHER });
  const list = expectOk(await s.get('/v1/wallet/send_intents?status=settled'));
  expect(list.data.map((x: { id: string }) => x.id)).toEqual([si.id]);
  // A hash already recorded for one intent cannot pay another.
  const second = expectOk(
    await s.post('/v1/wallet/send_intents', {
      destination_chain: wallet.chain,
      destination_address: OTHER,
      amount: usdc('1500000', asset),
    }),
    201,
  );
  expectError(await s.post(`/v1/wallet/send_intents/${second.id}/source_tx`, { tx_hash: hash }), 409, 'conflict', 'source_tx_in_use');
});

test('a cross-chain send goes through the bridge and arrives less the bridge fee', async () => {
  const { s, wallet, asset } = await fundedHolder('5000000');
  const si = expectOk(
    await s.post('/v1/wallet/send_intents', {
      destination_chain: 'base',
      destination_address: OTHER.toLowerCase(),
      amount: usdc('2000000', asset),
    }),
    201,
  );
  expect(si).toMatchObject({
    route: 'bridge',
    destination_chain: 'base',
    bridge_fee: usdc('100000', asset),
    amount_out: usdc('1900000', asset),
  });
  expect(si.unsigned_transaction.chain).toBe(wallet.chain);
  const hash = await sign(si.unsigned_transaction);
  expectOk(await s.post(`/v1/wallet/send_intents/${si.id}/source_tx`, { tx_hash: hash }));
  const done = await settledOrFailed(s, si.id, 'settled');
  expect(done.delivery_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
  const arrived = await db().query('SELECT chain, to_address, amount_minor FROM sandbox_chain_transfers WHERE tx_hash = $1', [
    done.delivery_tx_hash,
  ]);
  expect(arrived[0]).toMatchObject({ chain: 'base', amount_minor: '1900000' });
  expect(arrived[0].to_address.toLowerCase()).toBe(OTHER.toLowerCase());
  expect(await eventTypes(si.id)).toEqual([
    'send_intent.created',
    'send_intent.source_submitted',
    'send_intent.bridging_started',
    'send_intent.settled',
  ]);
});

test('a signed transaction that is not the built one fails the intent with the mismatch', async () => {
  const { s, wallet, asset } = await fundedHolder('5000000');
  const si = expectOk(
    await s.post('/v1/wallet/send_intents', {
      destination_chain: wallet.chain,
      destination_address: OTHER,
      amount: usdc('2000000', asset),
    }),
    201,
  );
  // The holder sent 1 USDC instead of 2 to the same recipient.
  const t = expectOk(
    await call(
      'POST',
      '/sim/chain/transfers',
      { chain: wallet.chain, asset, from_address: wallet.address, to_address: OTHER, amount: '1000000' },
      { idem: null },
    ),
    201,
  );
  expectOk(await s.post(`/v1/wallet/send_intents/${si.id}/source_tx`, { tx_hash: t.tx_hash }));
  expect((await settledOrFailed(s, si.id, 'failed')).failure_reason).toBe('amount_mismatch');
  expect(await eventTypes(si.id)).toEqual(['send_intent.created', 'send_intent.failed']);
  expectError(
    await s.post(`/v1/wallet/send_intents/${si.id}/source_tx`, { tx_hash: `0x${'cd'.repeat(32)}` }),
    409,
    'conflict',
    'source_tx_already_recorded',
  );
});

test('request rules: chain, address, asset, minimum, balance, reach, unknown ids', async () => {
  const { s, key, wallet, asset } = await fundedHolder('1000000');
  const create = (b: Record<string, unknown>) =>
    s.post('/v1/wallet/send_intents', { destination_chain: wallet.chain, destination_address: OTHER, amount: usdc('500000', asset), ...b });
  expectError(await create({ destination_chain: 'solana' }), 400, 'invalid_request', 'network_not_supported', 'destination_chain');
  expectError(
    await create({ destination_address: '0x52908400098527886e0F7030069857D2E4169EE7' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'destination_address',
  );
  expectError(
    await create({ destination_address: `0x${'0'.repeat(40)}` }),
    400,
    'invalid_request',
    'parameter_invalid',
    'destination_address',
  );
  expectError(await create({ destination_address: wallet.address }), 400, 'invalid_request', 'parameter_invalid', 'destination_address');
  expectError(await create({ amount: { amount: '500000', currency: 'USD', decimals: 2 } }), 400, 'invalid_request', undefined, undefined);
  expectError(await create({ amount: usdc('9999', asset) }), 400, 'invalid_request', 'amount_invalid', 'amount');
  expectError(
    await create({ destination_chain: 'base', amount: usdc('100000', asset) }),
    400,
    'invalid_request',
    'amount_invalid',
    'amount',
  );
  expectError(await create({ amount: usdc('1000001', asset) }), 400, 'invalid_request', 'balance_insufficient', 'amount');
  expectError(await key.get('/v1/wallet/send_intents'), 403, 'permission_error');
  expectError(await s.get('/v1/wallet/send_intents/wsi_nope'), 404, 'not_found', 'not_found', 'id');
  expectError(await s.post('/v1/wallet/send_intents/wsi_nope/source_tx', { tx_hash: `0x${'12'.repeat(32)}` }), 404, 'not_found');
  expectError(
    await s.post('/v1/wallet/send_intents/wsi_nope/source_tx', { tx_hash: '0x12' }),
    400,
    'invalid_request',
    undefined,
    'tx_hash',
  );
  const mine = expectOk(await create({}), 201);
  const other = client((await newAccount()).session_token);
  expectError(await other.get(`/v1/wallet/send_intents/${mine.id}`), 404, 'not_found');
  expect(expectOk(await other.get('/v1/wallet/send_intents')).data).toEqual([]);
});

test('the sandbox signer refuses what a passkey would not sign', async () => {
  const { s, wallet, asset } = await fundedHolder('1000000');
  const si = expectOk(
    await s.post('/v1/wallet/send_intents', {
      destination_chain: wallet.chain,
      destination_address: OTHER,
      amount: usdc('1000000', asset),
    }),
    201,
  );
  const tx = si.unsigned_transaction;
  const refuse = async (b: Record<string, unknown>, status: number, code: string, param: string) =>
    expectError(
      await call('POST', '/sim/wallet/sign', { ...tx, ...b }, { idem: null }),
      status,
      status === 404 ? 'not_found' : 'invalid_request',
      code,
      param,
    );
  await refuse({ chain_id: 999 }, 400, 'network_not_supported', 'chain_id');
  await refuse({ to: OTHER }, 400, 'parameter_invalid', 'to');
  await refuse({ data: '0x095ea7b3' }, 400, 'parameter_invalid', 'data');
  await refuse({ from: OTHER }, 404, 'wallet_not_found', 'from');
  // Spend the balance elsewhere first: the built send no longer fits.
  expectOk(
    await call(
      'POST',
      '/sim/chain/transfers',
      { chain: wallet.chain, asset, from_address: wallet.address, to_address: OTHER, amount: '1' },
      { idem: null },
    ),
    201,
  );
  await refuse({}, 400, 'balance_insufficient', 'data');
});

test("the sandbox signer signs a conversion's router call: the conversion settles", async () => {
  const { s, asset } = await fundedHolder('5000000');
  const cnv = expectOk(
    await s.post('/v1/wallet/conversions', { from_asset: asset, to_asset: 'USDT0', amount: usdc('1000000', asset) }),
    201,
  );
  const hash = await sign(cnv.unsigned_transaction);
  const onChain = await db().query('SELECT asset, amount_minor FROM sandbox_chain_transfers WHERE tx_hash = $1', [hash]);
  expect(onChain[0]).toEqual({ asset, amount_minor: '1000000' });
  expectOk(await s.post(`/v1/wallet/conversions/${cnv.id}/source_tx`, { tx_hash: hash }));
  await eventually(
    async () => (expectOk(await s.get(`/v1/wallet/conversions/${cnv.id}`)).status === 'settled' ? true : null),
    'conversion settled',
    20000,
  );
});

test("pay_with_wallet: the unsigned transfer of the total due to the payment's deposit address; once signed the payment is paid", async () => {
  const merchant = client((await newAccount()).live_key);
  const l = expectOk(
    await merchant.post('/v1/payment_links', {
      amount: { amount: '2500', currency: 'USD', decimals: 2 },
      title: 'Wallet pay',
      accepted_rail_kinds: ['crypto'],
    }),
    201,
  );
  const a = expectOk(await merchant.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true }));
  const token = String(a.url).split('/pay/')[1];
  const payer = await fundedHolder('100000000');
  const pay = (b: Record<string, unknown>) => call('POST', `/v1/payment_sessions/${token}/pay_with_wallet`, b, { idem: null });
  expectError(await pay({ from_address: 'nope' }), 400, 'invalid_request', undefined, 'from_address');
  const first = await pay({ from_address: payer.wallet.address });
  expect(first.status).toBe(201);
  const { payment, unsigned_transaction: tx } = first.body;
  expect(first.body.object).toBe('wallet_payment');
  expect(payment.payment_rail).toBe('crypto_native');
  expect(tx).toMatchObject({ from: payer.wallet.address, value: '0', chain: payer.wallet.chain });
  // The live attempt is reused.
  const again = await pay({ from_address: payer.wallet.address });
  expect(again.status).toBe(200);
  expect(again.body.payment.id).toBe(payment.id);
  expect(again.body.unsigned_transaction).toEqual(tx);
  const hash = await sign(tx);
  const onChain = await db().query('SELECT to_address, amount_minor FROM sandbox_chain_transfers WHERE tx_hash = $1', [hash]);
  expect(onChain[0].to_address.toLowerCase()).toBe(String(payment.deposit_instructions.address).toLowerCase());
  expect(onChain[0].amount_minor).toBe(payment.amount_expected.amount);
  expect(payment.amount_expected.amount).toBe('25250000'); // 25.00 USD + the 1% payer fee, in 6 decimals
  await eventually(
    async () => {
      const p = expectOk(await call('GET', `/v1/payment_sessions/${token}/payments/${payment.id}`, undefined, { idem: null }));
      return ['paid', 'settled'].includes(p.status) ? p : null;
    },
    'payment paid',
    20000,
  );
  expectError(await pay({ from_address: payer.wallet.address }), 409, 'conflict');
});

test('the sandbox payer wallet: pay_with_wallet from it is signed without funding it first (the sandbox mints what it lacks, once)', async () => {
  const merchant = client((await newAccount()).live_key);
  const l = expectOk(
    await merchant.post('/v1/payment_links', {
      amount: { amount: '1200', currency: 'USD', decimals: 2 },
      title: 'Sandbox payer wallet',
      accepted_rail_kinds: ['crypto'],
    }),
    201,
  );
  const a = expectOk(await merchant.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true }));
  const token = String(a.url).split('/pay/')[1];
  const out = expectOk(
    await call('POST', `/v1/payment_sessions/${token}/pay_with_wallet`, { from_address: SANDBOX_PAYER_WALLET }, { idem: null }),
    201,
  );
  const hash = await sign(out.unsigned_transaction);
  const [sent] = await db().query('SELECT from_address, to_address, amount_minor FROM sandbox_chain_transfers WHERE tx_hash = $1', [hash]);
  expect(sent).toEqual({
    from_address: SANDBOX_PAYER_WALLET,
    to_address: out.payment.deposit_instructions.address,
    amount_minor: '12120000',
  });
  // What it holds never goes below zero: every debit was covered (minted when short).
  const [bal] = await db().query(
    `SELECT COALESCE(SUM(amount_minor) FILTER (WHERE to_address = $1), 0) - COALESCE(SUM(amount_minor) FILTER (WHERE from_address = $1), 0) AS b
       FROM sandbox_chain_transfers WHERE chain = $2`,
    [SANDBOX_PAYER_WALLET, out.unsigned_transaction.chain],
  );
  expect(BigInt(bal.b)).toBeGreaterThanOrEqual(0n);
  await eventually(
    async () => {
      const p = expectOk(await call('GET', `/v1/payment_sessions/${token}/payments/${out.payment.id}`, undefined, { idem: null }));
      return ['paid', 'settled'].includes(p.status) ? p : null;
    },
    'payment paid',
    20000,
  );
});
