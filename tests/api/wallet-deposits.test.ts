/**
 * Wallet deposits and conversions over HTTP (spec 2.5, 4.5, 5, 6; issue 14): deposit routes and
 * conversion pairs readable by a key and a session; quotes (amount in = out + bridge fee, expiry);
 * reach (everything else dashboard session only; test mode 503); a deposit intent from base
 * driven by `/sim/chain/transfers` to `settled` with the USDC in the wallet, one whose bridge
 * holds then fails (funds returned, `failed`); list, get and another account's 404; a conversion
 * built, signed (played by a chain transfer from the wallet), `source_tx` recorded and settled;
 * the refusals; the catalogued events in the outbox.
 */
import type Joi from 'joi';
import crypto from 'node:crypto';
import { call, client, connectDb, eventually, expectError, expectOk, newAccount } from '../helpers/api';
import { db } from '../../lib/db';
import { listEnvelope } from '../../views/schema';
import {
  conversionPairResponse,
  conversionResponse,
  depositIntentListResponse,
  depositIntentResponse,
  depositQuoteResponse,
  depositRouteResponse,
} from '../../views/wallet-deposits';

type Api = ReturnType<typeof client>;
let key: Api;
let session: Api;
let acct: Awaited<ReturnType<typeof newAccount>>;

beforeAll(async () => {
  await connectDb();
  acct = await newAccount();
  key = client(acct.live_key);
  session = client(acct.session_token);
});

function conforms(schema: Joi.Schema, body: unknown): void {
  const { error } = schema.validate(body, { allowUnknown: false, presence: 'optional' });
  if (error) throw new Error(`response does not match its schema: ${error.message}\n${JSON.stringify(body)}`);
}
const hash = () => `0x${crypto.randomBytes(32).toString('hex')}`;
const SENDER = '0x52908400098527886E0F7030069857D2E4169EE7';
const usdc = (amount: string) => ({ amount, currency: 'USDC', decimals: 6 });
const types = async (id: string) =>
  (await db().query('SELECT type FROM events WHERE object_id = $1 ORDER BY seq', [id])).map((r: { type: string }) => r.type);

test('deposit routes and conversion pairs: a key and a session read them; test mode is unavailable', async () => {
  const routes = expectOk(await key.get('/v1/wallet/deposit_routes'));
  conforms(listEnvelope(depositRouteResponse), routes);
  expect(routes.data.map((r: { source_chain: string }) => r.source_chain)).toEqual(['base', 'ethereum', 'polygon', 'arbitrum', 'optimism']);
  expect(routes.data[0]).toMatchObject({ source_asset: 'USDC', source_chain_id: 8453, bridge_fee: usdc('100000') });
  const pairs = expectOk(await session.get('/v1/wallet/conversion_pairs'));
  conforms(listEnvelope(conversionPairResponse), pairs);
  expect(pairs.data.length).toBe(2);
  expectError(await client(acct.test_key).get('/v1/wallet/deposit_routes'), 503, 'temporarily_unavailable');
});

test('quotes: amount in = amount out + bridge fee, with expiry; refusals; a key cannot quote or open intents', async () => {
  const q = expectOk(await session.post('/v1/wallet/deposit_quotes', { source_chain: 'base', amount: usdc('25000000') }));
  conforms(depositQuoteResponse, q);
  expect(q).toMatchObject({ source_chain: 'base', amount_in: usdc('25100000'), bridge_fee: usdc('100000') });
  expect(q.amount_out.amount).toBe('25000000');
  expect(Date.parse(q.expires_at)).toBeGreaterThan(Date.now());
  expectError(
    await session.post('/v1/wallet/deposit_quotes', { source_chain: 'solana', amount: usdc('1') }),
    409,
    'conflict',
    'network_not_supported',
    'source_chain',
  );
  expectError(
    await session.post('/v1/wallet/deposit_quotes', { source_chain: 'base', amount: { amount: '100', currency: 'EUR', decimals: 2 } }),
    400,
    'invalid_request',
    'currency_invalid',
  );
  expectError(
    await session.post('/v1/wallet/deposit_quotes', { source_chain: 'base', amount: { amount: '100', currency: 'USDC', decimals: 2 } }),
    400,
    'invalid_request',
    'amount_invalid',
  );
  expectError(
    await session.post('/v1/wallet/deposit_quotes', { source_chain: 'base', amount: usdc('9223372036854775807') }),
    400,
    'invalid_request',
    'amount_invalid',
    'amount',
  );
  expectError(await key.post('/v1/wallet/deposit_quotes', { source_chain: 'base', amount: usdc('1') }), 403, 'permission_error');
  expectError(await key.post('/v1/wallet/deposit_intents', { source_chain: 'base' }), 403, 'permission_error');
  expectError(await key.get('/v1/wallet/deposit_intents'), 403, 'permission_error');
  expectError(await key.post('/v1/wallet/conversions', {}), 403, 'permission_error');
});

test('a deposit intent from base: the source transfer is seen, bridged and settled into the wallet; list, get, 404', async () => {
  const before = BigInt(expectOk(await key.get('/v1/wallet/balances')).balances[0].amount.amount);
  const d = expectOk(await session.post('/v1/wallet/deposit_intents', { source_chain: 'base', amount: usdc('10000000') }), 201);
  conforms(depositIntentResponse, d);
  expect(d).toMatchObject({
    status: 'awaiting_funds',
    source_chain: 'base',
    amount_in: usdc('10100000'),
    bridge_fee: usdc('100000'),
    amount_received: null,
  });
  expect(d.id).toMatch(/^dpi_/);
  expectOk(
    await call(
      'POST',
      '/sim/chain/transfers',
      { chain: 'base', asset: 'USDC', to_address: d.deposit_address, amount: '10100000', from_address: SENDER, tx_hash: hash() },
      { idem: null },
    ),
    201,
  );
  const settled = await eventually(
    async () => {
      const r = expectOk(await session.get(`/v1/wallet/deposit_intents/${d.id}`));
      return r.status === 'settled' ? r : null;
    },
    'deposit intent settled',
    30000,
  );
  conforms(depositIntentResponse, settled);
  expect(settled).toMatchObject({ amount_received: usdc('10100000'), amount_delivered: { amount: '10000000' } });
  expect(settled.delivery_tx_hash).toMatch(/^0x/);
  const after = BigInt(expectOk(await key.get('/v1/wallet/balances')).balances[0].amount.amount);
  expect(after - before).toBe(10000000n);
  expect(await types(d.id)).toEqual([
    'deposit_intent.created',
    'deposit_intent.source_detected',
    'deposit_intent.bridging_started',
    'deposit_intent.settled',
  ]);
  // Catalogued, not shipped (spec 6): in the outbox, never listed in /events.
  expect(
    expectOk(await key.get('/v1/events?limit=100')).data.filter((e: { type: string }) => e.type.startsWith('deposit_intent.')),
  ).toEqual([]);

  const list = expectOk(await session.get('/v1/wallet/deposit_intents?limit=1'));
  conforms(depositIntentListResponse, list);
  expect(list.data[0].id).toBe(d.id);
  const other = client((await newAccount()).session_token);
  expectError(await other.get(`/v1/wallet/deposit_intents/${d.id}`), 404, 'not_found');
  expect(expectOk(await other.get('/v1/wallet/deposit_intents')).data).toEqual([]);
});

test('a deposit intent whose bridge holds and then fails: bridging, funds returned to the refund address, failed', async () => {
  const refund = '0x1111111111111111111111111111111111111111';
  const d = expectOk(await session.post('/v1/wallet/deposit_intents', { source_chain: 'polygon', refund_address: refund }), 201);
  expect(d.amount_in).toBeNull();
  expectOk(await call('POST', `/sim/bridge/transfers/${d.id}`, { state: 'delayed' }, { idem: null }));
  expectOk(
    await call(
      'POST',
      '/sim/chain/transfers',
      { chain: 'polygon', asset: 'USDC', to_address: d.deposit_address, amount: '3000000', tx_hash: hash() },
      { idem: null },
    ),
    201,
  );
  await eventually(async () => expectOk(await session.get(`/v1/wallet/deposit_intents/${d.id}`)).status === 'bridging', 'bridging', 30000);
  expectOk(await call('POST', `/sim/bridge/transfers/${d.id}`, { state: 'failed' }, { idem: null }));
  const failed = await eventually(
    async () => {
      const r = expectOk(await session.get(`/v1/wallet/deposit_intents/${d.id}`));
      return r.status === 'failed' ? r : null;
    },
    'failed',
    30000,
  );
  expect(failed).toMatchObject({ failure_reason: 'bridge_failed', refund_address: refund });
  expect(failed.recovery_tx_hash).toMatch(/^0x/);
  const back = await db().query('SELECT amount_minor FROM sandbox_chain_transfers WHERE chain = $1 AND tx_hash = $2', [
    'polygon',
    failed.recovery_tx_hash,
  ]);
  expect(back).toEqual([{ amount_minor: '3000000' }]);
  expect(await types(d.id)).toEqual([
    'deposit_intent.created',
    'deposit_intent.source_detected',
    'deposit_intent.bridging_started',
    'deposit_intent.recovery_started',
    'deposit_intent.failed',
  ]);
  expectError(
    await session.post('/v1/wallet/deposit_intents', {
      source_chain: 'base',
      refund_address: '0x0000000000000000000000000000000000000000',
    }),
    400,
    'invalid_request',
    'parameter_invalid',
    'refund_address',
  );
});

test('a conversion: built with the unsigned transaction, signed by the holder, source_tx recorded, settled; refusals', async () => {
  const wallet = expectOk(await key.get('/v1/wallet/wallets')).data[0];
  const stable = expectOk(await key.get('/v1/wallet/balances')).balances[0].asset as string;
  const pair = expectOk(await key.get('/v1/wallet/conversion_pairs')).data.find((p: { from_asset: string }) => p.from_asset === stable);
  expectOk(
    await call(
      'POST',
      '/sim/chain/transfers',
      { chain: wallet.chain, asset: stable, to_address: wallet.address, amount: '50000000', from_address: SENDER, tx_hash: hash() },
      { idem: null },
    ),
    201,
  );
  const c = expectOk(
    await session.post('/v1/wallet/conversions', {
      from_asset: stable,
      to_asset: pair.to_asset,
      amount: { amount: '20000000', currency: stable, decimals: 6 },
    }),
    201,
  );
  conforms(conversionResponse, c);
  expect(c).toMatchObject({
    status: 'built',
    amount_in: { amount: '20000000' },
    fee: { amount: '10000' },
    amount_out: { amount: '19990000', currency: pair.to_asset },
    source_tx_hash: null,
  });
  expect(c.unsigned_transaction).toMatchObject({ from: wallet.address, value: '0', token_transfer: { amount: { amount: '20000000' } } });
  expect(c.unsigned_transaction.data).toMatch(/^0x[0-9a-f]+$/);
  expectError(
    await session.post('/v1/wallet/conversions', {
      from_asset: stable,
      to_asset: 'DAI',
      amount: { amount: '1', currency: stable, decimals: 6 },
    }),
    400,
    'invalid_request',
    'conversion_pair_unsupported',
    'to_asset',
  );
  expectError(
    await session.post(`/v1/wallet/conversions/${c.id}/source_tx`, { tx_hash: '0x12' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'tx_hash',
  );

  // The holder signs and broadcasts (played by the simulator's chain transfer from the wallet).
  const signed = hash();
  expectOk(
    await call(
      'POST',
      '/sim/chain/transfers',
      {
        chain: wallet.chain,
        asset: stable,
        from_address: wallet.address,
        to_address: c.unsigned_transaction.to,
        amount: '20000000',
        tx_hash: signed,
      },
      { idem: null },
    ),
    201,
  );
  const s = expectOk(await session.post(`/v1/wallet/conversions/${c.id}/source_tx`, { tx_hash: signed }));
  expect(s).toMatchObject({ status: 'submitted', source_tx_hash: signed });
  expect(expectOk(await session.post(`/v1/wallet/conversions/${c.id}/source_tx`, { tx_hash: signed })).source_tx_hash).toBe(signed);
  expectError(
    await session.post(`/v1/wallet/conversions/${c.id}/source_tx`, { tx_hash: hash() }),
    409,
    'conflict',
    'conversion_state_changed',
  );
  const settled = await eventually(
    async () => {
      const r = expectOk(await session.get(`/v1/wallet/conversions/${c.id}`));
      return r.status === 'settled' ? r : null;
    },
    'conversion settled',
    30000,
  );
  expect(settled.settlement_tx_hash).toMatch(/^0x/);
  const out = await db().query('SELECT asset, amount_minor, to_address FROM sandbox_chain_transfers WHERE tx_hash = $1', [
    settled.settlement_tx_hash,
  ]);
  expect(out).toEqual([{ asset: pair.to_asset, amount_minor: '19990000', to_address: wallet.address }]);
  expect(await types(c.id)).toEqual(['conversion.built', 'conversion.submitted', 'conversion.settled']);
  // Another conversion cannot claim the same hash; another account cannot read it.
  const c2 = expectOk(
    await session.post('/v1/wallet/conversions', {
      from_asset: stable,
      to_asset: pair.to_asset,
      amount: { amount: '1000000', currency: stable, decimals: 6 },
    }),
    201,
  );
  expectError(
    await session.post(`/v1/wallet/conversions/${c2.id}/source_tx`, { tx_hash: signed }),
    409,
    'conflict',
    'source_tx_already_used',
    'tx_hash',
  );
  expectError(await client((await newAccount()).session_token).get(`/v1/wallet/conversions/${c.id}`), 404, 'not_found');
});
